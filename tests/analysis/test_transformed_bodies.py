"""Functions run through a transformation that a module-level name holds: the function given
to haiku's `hk.transform` runs traced when `.apply` (or `.init`) is jitted or called in traced
code, and eagerly otherwise; `f = shard_map(body, ...)` traces `body` when `f` is jitted or
called in traced code. Each program runs under real JAX: what is flagged raises (or prints
tracers), what stays clean runs."""

from __future__ import annotations

import textwrap

import pytest

from tests.conftest import findings_of as _all_findings
from tests.runtime import run_snippet

# The programs import `shard_map` from `jax.experimental`, which JAX deprecates (JAX1102): the
# tests here are about what shard_map traces, not about the name.


def findings_of(source: str):
    return [f for f in _all_findings(source) if f.code not in ("JAX1101", "JAX1102")]


HAIKU = """
import jax, jax.numpy as jnp
import haiku as hk


def forward(x):
    h = hk.Linear(4)(x)
    {line}
    return h


model = {transform}
params = model.init(jax.random.PRNGKey(0), jnp.ones((2, 3)))
{run}
"""
TRANSFORMS = {
    "no-rng": ("hk.without_apply_rng(hk.transform(forward))", "params, "),
    "rng": ("hk.transform(forward)", "params, None, "),
}
RUNS = {
    "jit-apply": "out = jax.jit(model.apply)({given}jnp.ones((2, 3)))",
    "apply-in-jit": "out = jax.jit(lambda p, v: model.apply({given}v))(params, jnp.ones((2, 3)))",
}


def _haiku(transform: str, run: str, line: str) -> str:
    made, given = TRANSFORMS[transform]
    given = given.replace("params, ", "p, ") if run == "apply-in-jit" else given
    program = textwrap.dedent(HAIKU).replace("{transform}", made)
    return program.replace("{run}", RUNS[run].replace("{given}", given)).replace("{line}", line)


def _codes(source: str) -> list[tuple[int, str]]:
    return [(f.span.start.line, f.code) for f in findings_of(source)]


@pytest.mark.parametrize("transform", TRANSFORMS)
@pytest.mark.parametrize("run", RUNS)
def test_a_haiku_function_applied_under_jit_is_traced(transform: str, run: str):
    source = _haiku(transform, run, "if h.sum() > 0: h = -h")
    assert _codes(source) == [(7, "JAX701")]
    assert type(run_snippet(source).error).__name__ == "TracerBoolConversionError"


def test_print_in_a_haiku_function_applied_under_jit_prints_a_tracer():
    source = _haiku("no-rng", "jit-apply", "print(h)")
    assert _codes(source) == [(7, "JAX101")]
    printed = run_snippet(source).stdout
    assert "Tracer" not in printed.split("]]")[0] and "Tracer" in printed  # init runs eagerly


@pytest.mark.parametrize("transform", TRANSFORMS)
def test_a_haiku_function_applied_eagerly_is_clean_and_runs(transform: str):
    made, given = TRANSFORMS[transform]
    source = (
        textwrap.dedent(HAIKU)
        .replace("{transform}", made)
        .replace("{run}", f"out = model.apply({given}jnp.ones((2, 3)))")
        .replace("{line}", "if h.sum() > 0: h = -h")
    )
    assert _codes(source) == []
    assert run_snippet(source).error is None


SHARD_MAP = """
import jax, jax.numpy as jnp
from jax.experimental.shard_map import shard_map
from jax.sharding import PartitionSpec as P

mesh = jax.make_mesh((jax.device_count(),), ("x",))


def body(block):
    if block.sum() > 0:
        return block * 2
    return block


f = shard_map(body, mesh=mesh, in_specs=P(), out_specs=P())
{run}
"""
SHARD_MAP_RUNS = {
    "jit-of-it": "out = jax.jit(f)(jnp.ones(4))",
    "called-in-jit": "out = jax.jit(lambda v: f(v) + 1)(jnp.ones(4))",
}


@pytest.mark.parametrize("run", SHARD_MAP_RUNS)
def test_a_shard_map_held_by_a_name_and_run_under_jit_traces_its_body(run: str):
    source = textwrap.dedent(SHARD_MAP).replace("{run}", SHARD_MAP_RUNS[run])
    assert _codes(source) == [(9, "JAX701")]
    assert type(run_snippet(source).error).__name__ == "TracerBoolConversionError"


@pytest.mark.parametrize("run", ["", "out = f(jnp.ones(4))"], ids=["never-run", "eager"])
def test_a_shard_map_held_by_a_name_outside_jit_is_clean_and_runs(run: str):
    # Eagerly, on a replicated input, the truth test sees the same value on every device.
    source = textwrap.dedent(SHARD_MAP).replace("{run}", run)
    assert _codes(source) == []
    assert run_snippet(source).error is None

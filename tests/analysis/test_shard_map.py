"""`shard_map` called outside any trace runs its function eagerly, on every call: `print`
shows the shards' values and module values are read afresh; a conversion to a Python or
NumPy value fails as under `jit`, but a truth test fails only on values that vary across the
mesh (a replicated input, a `psum` or a constant can be tested), which the model does not
track: not flagged. Each program runs under real JAX (one device): what is flagged raises,
what stays clean runs."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

from tests.conftest import findings_of as _all_findings
from tests.runtime import run_snippet

# The programs import `shard_map` from `jax.experimental`, which JAX deprecates (JAX1102): the
# tests here are about what shard_map traces, not about the name.


def findings_of(source: str):
    return [f for f in _all_findings(source) if f.code not in ("JAX1101", "JAX1102")]


HEADER = """
from functools import partial

import jax
import jax.numpy as jnp
import numpy as np
from jax.experimental.shard_map import shard_map
from jax.sharding import PartitionSpec as P

mesh = jax.make_mesh((jax.device_count(),), ("x",))
SCALE = 2.0
"""
CALL_FORM = """
def body(block):
    {line}
    return block


g = jax.shard_map(body, mesh=mesh, in_specs=P(), out_specs=P())
out = g(jnp.arange(4.0))
"""
DECORATED = """
@partial({transform}, mesh=mesh, in_specs=P(), out_specs=P())
def body(block):
    {line}
    return block


out = body(jnp.arange(4.0))
"""
HELPER = """
def helper(block):
    {line}
    return block


def body(block):
    return helper(block)


out = jax.shard_map(body, mesh=mesh, in_specs=P(), out_specs=P())(jnp.arange(4.0))
"""
FORMS = {
    "call": CALL_FORM,
    "partial": DECORATED.replace("{transform}", "jax.shard_map"),
    "experimental": DECORATED.replace("{transform}", "shard_map"),
    "helper": HELPER,
}
FAILING = {
    "block = block * float(block.sum())": ("JAX703", "ConcretizationTypeError"),
    "block = jnp.asarray(np.exp(block))": ("JAX703", "TracerArrayConversionError"),
}
RUNNING = [
    "block = block * SCALE",  # a module value, read on every call
    "block = jnp.where(block > 1.0, block / 2, block)",
    "if block.max() > 1.0: block = block / 2",  # replicated (`P()`): the same on each device
    'if jax.lax.psum(block.sum(), "x") > 1.0: block = block / 2',
]


def _source(form: str, line: str) -> str:
    return textwrap.dedent(HEADER) + textwrap.dedent(FORMS[form]).replace("{line}", line)


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("line", FAILING)
def test_truth_tests_and_conversions_fail_in_eager_shard_map(form: str, line: str):
    code, error = FAILING[line]
    source = _source(form, line)
    assert [f.code for f in findings_of(source)] == [code]
    assert type(run_snippet(source).error).__name__ == error


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("line", RUNNING)
def test_eager_shard_map_reading_module_values_is_clean_and_runs(form: str, line: str):
    source = _source(form, line)
    assert findings_of(source) == []
    assert run_snippet(source).error is None


@pytest.mark.slow  # JAX on two devices in a subprocess
def test_print_in_eager_shard_map_shows_values_and_is_not_flagged():
    source = textwrap.dedent(HEADER) + textwrap.dedent(
        """
        def body(block):
            print(block)
            return block


        out = jax.shard_map(body, mesh=mesh, in_specs=P(), out_specs=P())(jnp.float32(3.0))
        """
    )
    assert findings_of(source) == []
    # Two host devices (one device cannot print a sharded tracer): a fresh interpreter.
    environment = {**os.environ, "XLA_FLAGS": "--xla_force_host_platform_device_count=2"}
    ran = subprocess.run(
        [sys.executable, "-c", source], env=environment, capture_output=True, text=True
    )
    assert ran.returncode == 0 and "3." in ran.stdout

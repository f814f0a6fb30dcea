"""A key an object stores once and draws from on every call: `__call__` (or a
method) consumes `self.key`, which only `__init__` assigns, so two calls of the same
module-level object give the same random numbers. Each program runs under real JAX: what is
flagged draws equal numbers, what stays clean draws different ones (or draws once)."""

from __future__ import annotations

import textwrap

import pytest

from jax_lsp.analysis.document import Document
from jax_lsp.analysis.key_consumers import attribute_makers
from jax_lsp.analysis.model import ModuleModel
from tests.conftest import findings_of
from tests.runtime import run_snippet

CLASS = """
import jax, jax.numpy as jnp


class Noise:
    def __init__(self, seed):
        self.key = jax.random.PRNGKey(seed)

    def __call__(self, shape):
        return jax.random.normal(self.key, shape)

    def sample(self, shape):
        return jax.random.uniform(self.key, shape)
{more}

noise = Noise(0)
{calls}
"""
SAME = "same = bool(jnp.allclose(a, b))"
ADVANCING = """
    def draw(self, shape):
        self.key, subkey = jax.random.split(self.key)
        return jax.random.normal(subkey, shape)
"""
RESETTING = """
    def reset(self, seed):
        self.key = jax.random.PRNGKey(seed)
"""


def _program(calls: str, more: str = "") -> str:
    source = textwrap.dedent(CLASS).replace("{more}", more)
    return source.replace("{calls}", textwrap.dedent(calls))


def _codes(source: str) -> list[tuple[int, str]]:
    return [(f.span.start.line, f.code) for f in findings_of(source)]


def _line_of(source: str, text: str) -> int:
    return [n for n, line in enumerate(source.splitlines()) if text in line][-1]  # 0-based


@pytest.mark.parametrize(
    ("calls", "second"),
    [
        ("a = noise((3,))\nb = noise((3,))", "b = noise"),
        ("a = noise.sample((3,))\nb = noise.sample((3,))", "b = noise"),
    ],
    ids=["call-twice", "method-twice"],
)
def test_a_stored_key_drawn_by_two_calls_is_found_and_draws_the_same(calls: str, second: str):
    source = _program(f"{calls}\n{SAME}")
    assert _codes(source) == [(_line_of(source, second), "JAX602")]
    assert run_snippet(source).namespace["same"] is True


def test_a_stored_key_drawn_in_a_loop_is_found_and_draws_the_same():
    source = _program("draws = [noise((2,)) for _ in range(2)]\na, b = draws\n" + SAME)
    assert [code for _, code in _codes(source)] == ["JAX602"]
    assert run_snippet(source).namespace["same"] is True


def test_a_finding_names_the_method_and_offers_no_fix():
    source = _program("a = noise((3,))\nb = noise((3,))")
    (finding,) = findings_of(source)
    assert "`Noise.__call__` consumes `self.key`" in finding.message
    assert finding.fix is None


@pytest.mark.parametrize(
    ("calls", "more"),
    [
        ("a = noise((3,))", ""),  # drawn once
        ("a = noise.draw((3,))\nb = noise.draw((3,))\n" + SAME, ADVANCING),  # split and kept
        ("a = noise((3,))\nnoise.reset(1)\nb = noise((3,))\n" + SAME, RESETTING),
        ("a = noise((3,))\nnoise.key = jax.random.PRNGKey(1)\nb = noise((3,))\n" + SAME, ""),
    ],
    ids=["once", "advancing-method", "another-method-assigns", "assigned-outside"],
)
def test_a_key_drawn_once_or_replaced_is_clean_and_runs(calls: str, more: str):
    source = _program(calls, more)
    assert _codes(source) == []
    outcome = run_snippet(source)
    assert outcome.error is None and outcome.namespace.get("same", False) is False


def test_a_subclass_may_replace_the_key_so_is_not_judged():
    source = _program("a = noise((3,))\nb = noise((3,))").replace(
        "noise = Noise(0)",
        "class Fresh(Noise):\n    def __call__(self, shape):\n"
        "        self.key, k = jax.random.split(self.key)\n"
        "        return jax.random.normal(k, shape)\n\n\nnoise = Noise(0)",
    )
    assert _codes(source) == []


def test_the_layers_a_class_stores_are_found_once_for_the_same_imports():
    """`attribute_makers` is memoised by the import aliases' key: the model of a later
    version, with a resolver of its own over the same imports, finds them kept."""
    text = (
        "import equinox as eqx\n\n\nclass Block:\n"
        "    def __init__(self):\n        self.drop = eqx.nn.Dropout(0.1)\n"
    )
    document = Document(text)
    first = ModuleModel(document)
    block = first.classes["Block"].node
    found = attribute_makers(block, first.aliases)
    assert found == {"drop": "equinox.nn.Dropout"}
    second = ModuleModel(document)
    assert second.resolver is not first.resolver and second.aliases.key == first.aliases.key
    assert attribute_makers(block, second.aliases) is found

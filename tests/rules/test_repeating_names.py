"""JAX602's search for keys a loop or a tree map consumes again (`repeated_uses`) runs where the
text spells one of the names it follows as a whole name: `vmap` and `mapping` spell none."""

from __future__ import annotations

import textwrap

import pytest

from jax_lsp.analysis.document import Document
from jax_lsp.analysis.imports import Resolver
from jax_lsp.diagnostics.random import _names_a_repeating_call
from jax_lsp.engine import analyze


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("jax.lax.fori_loop(0, 3, body, x)", True),
        ("lax.while_loop(cond, body, x)", True),
        ("jax.lax.scan(step, carry, xs)", True),
        ("jax.tree.map(draw, tree)", True),
        ("jax.tree_util.tree_map(draw, tree)", True),
        ("tm = tree_map\ntm(draw, tree)", True),
        ("jax.vmap(draw)(keys)", False),
        ("mapping = {'a': 1}; pmap_axis = 'i'; scanner(x)", False),
    ],
)
def test_names_a_repeating_call(text: str, expected: bool) -> None:
    assert _names_a_repeating_call(text, Resolver({})) is expected


def test_a_key_a_tree_map_consumes_on_every_leaf() -> None:
    source = """
        import jax

        def noisy(tree, key):
            return jax.tree.map(lambda leaf: leaf + jax.random.normal(key), tree)
        """
    findings = analyze(Document(textwrap.dedent(source))).findings
    assert [f.span.start.line + 1 for f in findings if f.code == "JAX602"] == [5]

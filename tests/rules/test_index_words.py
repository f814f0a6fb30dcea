"""JAX301 walks only the expressions whose lines spell what it looks at (a subscript, a `take`
under any name the scope imports it as, a walrus): each spelling still counts."""

from __future__ import annotations

import textwrap

from jax_lsp.analysis.document import Document
from jax_lsp.engine import analyze


def _lines(source: str) -> list[int]:
    findings = analyze(Document(textwrap.dedent(source))).findings
    return [f.span.start.line + 1 for f in findings if f.code == "JAX301"]


def test_take_imported_under_another_name() -> None:
    source = """
        import jax.numpy as jnp
        from jax.numpy import take as pick

        def last(n):
            data = jnp.arange(5.0)
            first = data[0]
            return first, pick(data, 7)
        """
    assert _lines(source) == [8]


def test_a_walrus_rebinding_forgets_the_shape() -> None:
    source = """
        import jax.numpy as jnp

        def grow(make):
            x = jnp.zeros(3)
            if (x := make()) is not None:
                return x[5]
            return x[5]
        """
    assert _lines(source) == []
    assert _lines(source.replace("(x := make())", "make()")) == [7, 8]


def test_an_index_on_a_line_of_its_own() -> None:
    source = """
        import jax.numpy as jnp

        def pick():
            x = jnp.zeros(3)
            return jnp.sum(
                x[
                    5
                ]
            )
        """
    assert _lines(source) == [7]


def test_a_scope_spelling_only_the_alias_of_take() -> None:
    # The function spells no `[`, `take` or walrus: only the alias tells that it may index.
    source = """
        import jax.numpy as jnp
        from jax.numpy import take as pick

        def f():
            values = jnp.arange(3.0)
            k = 1
            return pick(values, 5)
        """
    assert _lines(source) == [8]

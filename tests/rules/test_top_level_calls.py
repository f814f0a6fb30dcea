"""JAX602's pre-filter on a unit's top-level code asks the model's module-wide key flow only
where that code makes a call (a key is consumed by a call), its decorators included."""

from __future__ import annotations

import ast
import textwrap

from jax_lsp.analysis.document import Document
from jax_lsp.diagnostics.random import PrngKeyReuse, _calls_at_top_level
from jax_lsp.engine import analyze


def _calls(source: str) -> bool:
    return _calls_at_top_level(ast.parse(textwrap.dedent(source)))


def test_only_calls_outside_definition_bodies_count() -> None:
    assert not _calls("import jax\nfrom jax import random\n")
    assert not _calls("def f(key):\n    return jax.random.normal(key)\n")
    assert not _calls("class Model:\n    w = jax.random.normal(key)\n")  # no key flow there
    assert _calls("x = jax.random.normal(key)\n")
    assert _calls("@partial(jax.jit, static_argnums=0)\ndef f(n):\n    return n\n")
    assert _calls("if __name__ == '__main__':\n    main()\n")


def test_a_reuse_in_top_level_code_across_units_is_still_found() -> None:
    source = textwrap.dedent(
        """
        import jax

        key = jax.random.key(0)


        def helper(n):
            return n


        a = jax.random.normal(key, (3,))


        class Holder:
            pass


        @jax.custom_jvp
        def f(x):
            return x


        b = jax.random.uniform(key, (3,))
        """
    )
    found = analyze(Document(source), [PrngKeyReuse], reuse_findings=False).findings
    assert [(f.code, f.span.start.line) for f in found] == [("JAX602", 22)]

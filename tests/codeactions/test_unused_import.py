"""JAX402's fix jits the method plainly: the `partial` (or `functools`) import it leaves unused
goes, its comments and the other names of the statement kept, and stays whenever anything else
may use it (another reference, a string naming it, a unit that does not parse)."""

from __future__ import annotations

import pytest

from jax_lsp.codeactions.pytree import unstatic_register_fix
from tests.codeactions.helpers import applied, position_of, source
from tests.runtime import run_snippet

CLASS = """
class Model:
    def __init__(self, x, mul):
        self.x = x
        self.mul = mul

    @DECORATOR
    def calc(self, y):
        return self.x * 2 + y if self.mul else y
"""
STATIC = "partial(jax.jit, static_argnums=0)"


def fixed(header: str, footer: str = "", decorator: str = STATIC) -> str:
    text = source(header) + CLASS.replace("DECORATOR", decorator) + source(footer)
    fix = unstatic_register_fix(text, *position_of(text, decorator))
    assert fix is not None
    result = applied(text, fix)
    assert "    @jax.jit\n" in result and "def tree_flatten(self):" in result
    return result


def test_the_import_line_goes_without_leaving_a_blank_line_first():
    result = fixed(
        """
        from functools import partial

        import jax
        """
    )
    assert result.startswith("import jax\n\n@jax.tree_util.register_pytree_node_class\n")
    assert "partial" not in result
    outcome = run_snippet(
        result, "m = Model(2.0, True); a = m.calc(1.0); m.mul = False; b = m.calc(1.0)"
    )
    assert outcome.error is None, f"{outcome.error!r}\n{result}"
    assert float(outcome.namespace["a"]) == 5.0 and float(outcome.namespace["b"]) == 1.0


def test_a_blank_line_between_imports_is_not_doubled():
    result = fixed(
        """
        import os

        from functools import partial

        import jax
        """
    )
    assert result.startswith("import os\n\nimport jax\n")


def test_functools_spelled_out_goes_too():
    result = fixed(
        """
        import functools
        import jax
        """,
        decorator="functools.partial(jax.jit, static_argnums=0)",
    )
    assert result.startswith("import jax\n") and "functools" not in result


def test_other_names_and_the_comment_of_the_statement_stay():
    result = fixed(
        """
        import jax
        from functools import partial, reduce  # tools

        total = reduce(max, [1, 2])
        """
    )
    assert "from functools import reduce  # tools\n" in result


def test_a_name_on_its_own_line_goes_with_its_comment_the_others_keep_theirs():
    result = fixed(
        """
        import jax
        from functools import (
            reduce,  # folds
            partial,  # jit options
        )

        total = reduce(max, [1, 2])
        """
    )
    assert "from functools import (\n    reduce,  # folds\n)\n" in result


@pytest.mark.parametrize(
    "footer",
    [
        "scaled = partial(max, 1)\n",  # another use
        '__all__ = ["Model", "partial"]\n',  # exported by name
        "def half(:\n    return partial\n",  # a unit that does not parse yet
    ],
)
def test_the_import_stays_while_something_else_may_use_it(footer):
    result = fixed("import jax\nfrom functools import partial\n", footer)
    assert "from functools import partial\n" in result


def test_a_second_static_method_keeps_the_import_for_itself():
    second = "    @partial(jax.jit, static_argnums=0)\n    def other(self, y):\n        return y\n"
    text = "from functools import partial\n\nimport jax\n" + CLASS.replace("DECORATOR", STATIC)
    text += "\n" + second
    fix = unstatic_register_fix(text, *position_of(text, STATIC))
    assert "from functools import partial\n" in applied(text, fix)

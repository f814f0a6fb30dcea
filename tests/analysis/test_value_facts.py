"""Module facts about values (jax_lsp.analysis.hashing): which value a name holds where it is
read, which values JAX cannot hash, and that an edit in another statement never leaves a
finding that reads those facts stale."""

from __future__ import annotations

import ast

import pytest

from jax_lsp.analysis.document import Document
from jax_lsp.analysis.hashing import Binding, ValueJudge, dominating_binding, walk_with_chain
from jax_lsp.analysis.imports import Resolver, import_bindings
from jax_lsp.engine import analyze


def _chain_to(tree: ast.Module, name: str, line: int) -> list[ast.AST]:
    """The chain from the module to the load of `name` on (1-based) `line`."""
    for node, chain in walk_with_chain(tree):
        if (
            isinstance(node, ast.Name)
            and node.id == name
            and node.lineno == line
            and isinstance(node.ctx, ast.Load)
        ):
            return chain
    raise AssertionError(f"no load of {name} on line {line}")


def _judge(text: str, name: str, line: int) -> str | None:
    tree = ast.parse(text)
    chain = _chain_to(tree, name, line)
    judge = ValueJudge(Resolver(import_bindings(tree.body)), {}, {})
    return judge.unhashable(chain[-1], lambda n: dominating_binding(n, chain))


@pytest.mark.parametrize(
    ("text", "line", "expected"),
    [
        ("def f():\n    a = [1]\n    use(a)\n", 3, "a list"),
        ("def f():\n    a = (1,)\n    use(a)\n", 3, None),
        # The binding that every path passes last: the one before the loop, on entry.
        ("def f():\n    a = {}\n    for i in r:\n        use(a)\n        a = (1,)\n", 4, "a dict"),
        # Bound inside a branch: which value arrives is unknown.
        ("def f(c):\n    a = (1,)\n    if c:\n        a = [1]\n    use(a)\n", 5, None),
        ("import numpy as np\ndef f():\n    a = np.zeros(3)\n    use(a)\n", 4, "a NumPy array"),
        ("import numpy as np\ndef f():\n    a = np.float32(3)\n    use(a)\n", 4, None),
        (
            "import jax.numpy as jnp\ndef f():\n    a = jnp.float32(3)\n    use(a)\n",
            4,
            "a JAX array",
        ),
        ("import jax.numpy as jnp\ndef f(x):\n    a = jnp.shape(x)\n    use(a)\n", 4, None),
        ("def f():\n    a, b = [1], 2\n    use(a)\n", 3, "a list"),
        ("def f():\n    a, b = [1], 2\n    use(b)\n", 3, None),
    ],
)
def test_what_a_name_holds_where_it_is_read(text, line, expected):
    assert _judge(text, "a" if "use(a)" in text else "b", line) == expected


def test_a_parameter_never_rebound_is_a_parameter():
    tree = ast.parse("def f(p):\n    use(p)\n")
    binding = dominating_binding("p", _chain_to(tree, "p", 2))
    assert binding is not None and binding.parameter is not None
    assert binding.parameter[1] == "p"


def test_a_free_name_is_module_level():
    tree = ast.parse("def f():\n    use(g)\n")
    assert dominating_binding("g", _chain_to(tree, "g", 2)) == Binding(module_level=True)


def _incremental_equals_fresh(before: str, after: str) -> list:
    document = Document(before)
    analyze(document)
    edited = Document(after, previous=document)
    incremental = analyze(edited).findings
    fresh = analyze(Document(after)).findings
    assert incremental == fresh
    return fresh


_LOADER = """\
import jax


class Loader:
    def __init__(self, data):
        self.data = data

    def __iter__(self):
        return iter(self.data)


@jax.jit
def first(loader):
    return next(iter(loader))


loader = Loader([1.0])
first(loader)
"""

_STATIC_LIST = """\
from functools import partial

import jax


@partial(jax.jit, static_argnums=0)
def add(dummy, x):
    return x + 1


dummy = [0]
add(dummy, 1.0)
"""

_PRINT_JITTED_RESULT = """\
import jax


@jax.jit
def predict(x):
    return x * 2


@jax.jit
def main(x):
    y = predict(x)
    print(y)
    return y
"""


@pytest.mark.parametrize(
    ("before", "after", "code"),
    [
        (_LOADER, _LOADER.replace("def __iter__", "def items"), "JAX104"),
        (_STATIC_LIST, _STATIC_LIST.replace("dummy = [0]", "dummy = (0,)"), "JAX1002"),
        (
            _PRINT_JITTED_RESULT,
            _PRINT_JITTED_RESULT.replace(
                "@jax.jit\ndef predict(x):\n    return x * 2", "def predict(x):\n    return x.shape"
            ),
            "JAX101",
        ),
    ],
)
def test_an_edit_in_another_statement_updates_the_finding(before, after, code):
    """The finding reads a fact of another statement: the edit there removes it, and adding
    it back brings it back, incrementally as in a fresh analysis."""
    assert code in {f.code for f in analyze(Document(before)).findings}
    assert code not in {f.code for f in _incremental_equals_fresh(before, after)}
    assert code in {f.code for f in _incremental_equals_fresh(after, before)}

"""A function's own imports: recorded by the summary walk, or found by a walk of its own for
trees the summary never saw. Both must agree."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from jax_lsp.analysis.imports import Resolver, local_imports
from jax_lsp.analysis.summary import summarize

REPO = Path(__file__).resolve().parents[2]
SOURCES = sorted([*REPO.glob("jax_lsp/**/*.py"), *REPO.glob("tests/**/*.py")])
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)

NESTED = """
def f(flag):
    import numpy as np
    if flag:
        from jax import numpy as jnp
    else:
        import jax.random as jr
    try:
        import jax.numpy as np  # a second binding of np: the first wins
    except ImportError:
        import math
    class Inner:
        import os  # the class's, not the function's
    def g():
        import sys  # g's own
"""


def _functions(tree: ast.AST) -> list[ast.AST]:
    return [node for node in ast.walk(tree) if isinstance(node, _FUNCTIONS)]


def test_own_blocks_only_and_first_binding_wins() -> None:
    tree = ast.parse(NESTED)
    summarize(tree, Resolver({}))
    f, g = _functions(tree)
    assert local_imports(f) == {
        "np": "numpy",
        "jnp": "jax.numpy",
        "jr": "jax.random",
        "math": "math",
    }
    assert local_imports(g) == {"sys": "sys"}


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(REPO)))
def test_summary_and_own_walk_agree(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    summarised = ast.parse(text)
    summarize(summarised, Resolver({}))
    fresh = ast.parse(text)
    for recorded, walked in zip(_functions(summarised), _functions(fresh), strict=True):
        assert local_imports(recorded) == local_imports(walked), recorded.name

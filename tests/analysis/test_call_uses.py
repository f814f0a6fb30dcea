"""`unit_uses` (one walk of a unit, scope by scope, for the uses of every name) with
`module_uses` (the uses of one name that are the module's) must find what a plain walk
carrying each node's parent, grandparent and function finds; `may_store_elsewhere` (its
patterns started at line breaks, possessive) must answer as the multiline patterns do."""

from __future__ import annotations

import ast
import re
from collections import Counter
from pathlib import Path

import pytest

from jax_lsp.analysis.call_shapes import module_uses, unit_uses
from jax_lsp.analysis.imported_globals import may_store_elsewhere
from jax_lsp.analysis.imports import Resolver, import_bindings
from jax_lsp.analysis.names import scope_bound_names

REPO = Path(__file__).resolve().parents[2]
SOURCES = sorted([*REPO.glob("jax_lsp/analysis/*.py"), *REPO.glob("tests/fixtures/*.py")])
_SHAPE_KEEPING = {"jax.jit", "jax.grad", "jax.value_and_grad", "jax.checkpoint", "jax.remat"}
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)


def _plain_uses(tree: ast.Module, resolver: Resolver) -> dict[str, Counter]:
    """Every use of each name, as `unit_uses` defines them, by a walk of each node with its
    parent, grandparent and innermost function (by the ids of the call and the function)."""
    found: dict[str, Counter] = {}
    stack: list[tuple[ast.AST, ast.AST | None, ast.AST | None, ast.AST | None]] = [
        (tree, None, None, None)
    ]
    while stack:
        node, parent, grandparent, function = stack.pop()
        inner = node if isinstance(node, _FUNCTIONS) else function
        stack.extend((child, node, parent, inner) for child in ast.iter_child_nodes(node))
        if not isinstance(node, ast.Name):
            continue
        if function is not None and node.id in scope_bound_names(function):  # type: ignore[arg-type]
            continue
        call = None
        if isinstance(node.ctx, ast.Load) and isinstance(parent, ast.Call):
            if parent.func is node:
                call = parent
            elif (
                parent.args == [node]
                and not parent.keywords
                and resolver.qualname(parent.func) in _SHAPE_KEEPING
                and isinstance(grandparent, ast.Call)
                and grandparent.func is parent
            ):
                call = grandparent
        found.setdefault(node.id, Counter())[(id(call), id(function))] += 1
    return found


def _uses_found(tree: ast.Module, resolver: Resolver) -> dict[str, Counter]:
    found = {}
    for name, uses in unit_uses(tree, resolver).items():
        kept = Counter((id(call), id(function)) for call, function in module_uses(name, uses))
        if kept:
            found[name] = kept
    return found


def test_uses_in_a_small_module() -> None:
    text = (
        "import jax\n"
        "def loss(p, x):\n    return p * x\n"
        "def step(p, x):\n    g = jax.grad(loss)(p, x)\n    return loss(p, x), g\n"
        "def own(loss):\n    return loss(1)\n"
        "values = [loss]\n"
    )
    tree = ast.parse(text)
    uses = _uses_found(tree, Resolver(import_bindings(tree.body)))
    assert uses == _plain_uses(tree, Resolver(import_bindings(tree.body)))
    step = tree.body[2]
    calls = [node for node in ast.walk(step) if isinstance(node, ast.Call)]
    grad_call = next(c for c in calls if isinstance(c.func, ast.Call))
    plain_call = next(c for c in calls if isinstance(c.func, ast.Name) and c.func.id == "loss")
    # Given to `jax.grad` and called at once, called, and listed at module level; the
    # parameter `loss` of `own` is its own.
    assert uses["loss"] == Counter(
        {(id(grad_call), id(step)): 1, (id(plain_call), id(step)): 1, (id(None), id(None)): 1}
    )


@pytest.mark.parametrize("path", SOURCES, ids=lambda path: path.name)
def test_uses_match_a_plain_walk(path: Path) -> None:
    module = ast.parse(path.read_text(encoding="utf-8"))
    resolver = Resolver(import_bindings(module.body))
    for statement in module.body:
        unit = ast.Module([statement], [])
        assert _uses_found(unit, resolver) == _plain_uses(unit, resolver)


_STORE_LINE = re.compile(
    r"^[ \t]*(?!self\b)([A-Za-z_]\w*)(?:\.\w+|\[[^\]\n]*\])+[ \t]*(?:[-+*/]?=)(?!=)", re.M
)
_IMPORT_LINE = re.compile(r"^[ \t]*(?:from[ \t]+\S+[ \t]+)?import[ \t].*$", re.M)


def _stores_elsewhere(text: str) -> bool:
    """`may_store_elsewhere` with patterns anchored by `^` in multiline mode."""
    roots = {match.group(1) for match in _STORE_LINE.finditer(text)}
    imported = {word for line in _IMPORT_LINE.findall(text) for word in re.findall(r"\w+", line)}
    return bool(roots) and not roots.isdisjoint(imported)


@pytest.mark.parametrize(
    "text",
    [
        "import settings\nsettings.SCALE = 3.0\n",
        "settings.SCALE = 3.0\nimport settings",
        "from config import OPTIONS\ndef f():\n    OPTIONS['scale'] += 1\n",
        "from config import OPTIONS\nOPTIONS [0] = 1\n",
        "import settings\nself.SCALE = 3.0\nsettings.SCALE == 3.0\n",
        "import settings as s\n  s.a.b[1] *= 2",
        "from . import settings\nsettings.x.y = 1\n",
        "settings.x = 1\n",
        "",
    ],
)
def test_stores_elsewhere_as_multiline_patterns(text: str) -> None:
    assert may_store_elsewhere(text) == _stores_elsewhere(text)


def test_stores_elsewhere_on_sources() -> None:
    for path in SOURCES:
        text = path.read_text(encoding="utf-8")
        assert may_store_elsewhere(text) == _stores_elsewhere(text), path.name

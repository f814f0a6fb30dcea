"""`child_nodes` (children read by functions made from each node class's grammar line) must
list exactly what `ast.iter_child_nodes` lists, less the marker nodes; `block_children` (the
fields each grammar line types as blocks) what a look at every field's values finds;
`scope_statements` what `scope_nodes` meets of the statements, in its order."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

from jax_lsp.analysis.nodes import (
    MARKER_NODE_TYPES,
    block_children,
    child_nodes,
    scope_nodes,
    scope_statements,
    walk_nodes,
)

REPO = Path(__file__).resolve().parents[2]
SOURCES = sorted(
    [*REPO.glob("jax_lsp/**/*.py"), *REPO.glob("tests/fixtures/*.py"), *REPO.glob("examples/*.py")]
)
# Syntax the repository's own files may not use.
EXTRA = """
match command:
    case [x, *rest] if x: pass
    case {"k": v, **others}: pass
    case Point(x=0, y=y) | None: pass
    case _: pass
async def f(a, /, b=1, *args, c, d=2, **kwargs) -> int:
    async with a as b, c: pass
    async for i in b: yield i
    global g
    return {**kwargs, "x": [i async for i in args if i], **{}}
x = f"{a!r:>{width}}" + b"bytes"
del x[1:2, ...]
"""
EXCEPT_STAR = """
try:
    pass
except* ValueError as error:
    raise
"""


def _expected(node: ast.AST) -> list[ast.AST]:
    return [c for c in ast.iter_child_nodes(node) if type(c) not in MARKER_NODE_TYPES]


_BLOCKS = (ast.stmt, ast.excepthandler, ast.match_case, ast.withitem)


def _expected_blocks(node: ast.AST) -> list[ast.AST]:
    """The items of every list field whose items are statements, handlers, cases or `with`
    items."""
    found: list[ast.AST] = []
    for _, value in ast.iter_fields(node):
        if isinstance(value, list) and value and isinstance(value[0], _BLOCKS):
            found += value
    return found


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(REPO)))
def test_children_match_the_ast_module(path: Path) -> None:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        assert child_nodes(node) == _expected(node), type(node).__name__
        assert block_children(node) == _expected_blocks(node), type(node).__name__


def test_rare_syntax() -> None:
    star = sys.version_info >= (3, 11)
    tree = ast.parse(EXTRA + EXCEPT_STAR if star else EXTRA)
    seen = set()
    for node in ast.walk(tree):
        seen.add(type(node).__name__)
        assert child_nodes(node) == _expected(node), type(node).__name__
        assert block_children(node) == _expected_blocks(node), type(node).__name__
    assert {"MatchMapping", "MatchClass", "JoinedStr", "Dict", "arguments"} <= seen
    assert "TryStar" in seen or not star


def test_a_node_built_by_hand_without_all_fields() -> None:
    partial = ast.Call(func=ast.Name("f", ast.Load()))  # no args, no keywords
    assert [type(c) for c in child_nodes(partial)] == [ast.Name]


def test_walk_is_breadth_first_without_markers() -> None:
    tree = ast.parse("a = b + c(d)")
    expected = [n for n in ast.walk(tree) if type(n) not in MARKER_NODE_TYPES]
    assert walk_nodes(tree) == expected


def test_kept_walks_answer_as_fresh_walks() -> None:
    """`walk_nodes` keeps its last walks: asked again of a tree it kept, and of trees that
    came and went (whose ids a new tree may take), it lists what a fresh walk lists."""
    from jax_lsp.analysis import nodes

    texts = [f"def f{i}(x):\n    return g(x) + {i}\n" for i in range(3 * nodes._RECENT_WALKS_KEPT)]
    for round_ in range(2):
        for text in texts:
            tree = ast.parse(text)  # a new tree each time: ids of dropped trees are reused
            for root in (tree, tree.body[0]):
                expected = [n for n in ast.walk(root) if type(n) not in MARKER_NODE_TYPES]
                assert walk_nodes(root) == expected
                assert walk_nodes(root) == expected, round_  # the kept walk
    assert len(nodes._RECENT_WALKS) <= nodes._RECENT_WALKS_KEPT
    for root, walked in nodes._RECENT_WALKS.values():
        assert walked[0] is root  # each entry holds its root: its id stays its own
    nodes.forget_walks()
    assert not nodes._RECENT_WALKS


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(REPO)))
def test_scope_statements_are_those_scope_nodes_meets(path: Path) -> None:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    scopes = [tree, *(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.ClassDef))]
    for scope in scopes:
        expected = [n for n in scope_nodes(scope.body) if isinstance(n, _BLOCKS)]
        assert list(scope_statements(scope.body)) == expected


def test_scope_statements_of_rare_syntax() -> None:
    star = sys.version_info >= (3, 11)
    tree = ast.parse(EXTRA + EXCEPT_STAR if star else EXTRA)
    expected = [n for n in scope_nodes(tree.body) if isinstance(n, _BLOCKS)]
    found = list(scope_statements(tree.body))
    assert found == expected
    assert any(isinstance(n, ast.match_case) for n in found)

"""The summary walk's free writes (`jax_lsp.analysis.free_writes`) against a direct statement
of the definition: a separate walk per function, as module state computed them before."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from jax_lsp.analysis.free_writes import mutated_name
from jax_lsp.analysis.imports import Resolver
from jax_lsp.analysis.nodes import all_params
from jax_lsp.analysis.summary import summarize

REPO = Path(__file__).resolve().parents[2]
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


def _scope_nodes(statements: list[ast.stmt]) -> list[ast.AST]:
    """Nodes of `statements`, not entering nested functions, lambdas or classes."""
    nodes, stack = [], list(statements)
    while stack:
        node = stack.pop()
        nodes.append(node)
        if not isinstance(node, _SCOPES):
            stack.extend(ast.iter_child_nodes(node))
    return nodes


def reference_free_writes(statements: list[ast.stmt]) -> set[str]:
    writes: set[str] = set()
    for node in _scope_nodes(statements):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            writes |= _function_free_writes(node)
        elif isinstance(node, ast.ClassDef):
            writes |= reference_free_writes(node.body)
    return writes


def _function_free_writes(function: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    local, declared, free = set(all_params(function)), set(), set()
    for child in _scope_nodes(function.body):
        if isinstance(child, ast.Name) and not isinstance(child.ctx, ast.Load):
            local.add(child.id)
            free.add(child.id)
        elif isinstance(child, ast.Global | ast.Nonlocal):
            declared.update(child.names)
        elif isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            local.add(child.name)
            free |= reference_free_writes([child])
        elif isinstance(child, ast.Call | ast.Subscript | ast.Attribute):
            name = mutated_name(child)
            if name is not None and name not in ("self", "cls"):
                free.add(name)
    return {name for name in free if name in declared or name not in local}


def _summary_writes(tree: ast.Module) -> frozenset[str]:
    """The free writes, those its top-level functions write only as set-up included (the
    summary keeps those apart, with what was read before them)."""
    summary = summarize(tree, Resolver({}))
    return summary.free_writes | {name for name, _, _ in summary.set_up_writes}


CASES = {
    "global rebinding": ("n = 0\ndef bump():\n    global n\n    n += 1\n", {"n"}),
    "mutation of a global": ("log = []\ndef f(x):\n    log.append(x)\n", {"log"}),
    "local list": ("def f():\n    out = []\n    out.append(1)\n    return out\n", set()),
    "parameter": ("def f(cache):\n    cache[1] = 2\n", set()),
    "attribute store": ("def f():\n    config.value = 2\n    self.x = 1\n", {"config"}),
    "nested function": (
        "def outer():\n    acc = []\n    def inner():\n"
        "        acc.append(1)\n        seen.add(2)\n",
        {"seen"},
    ),
    "nonlocal": (
        "def outer():\n    n = 0\n    def inner():\n        nonlocal n\n        n = 1\n",
        set(),
    ),
    "method": ("class A:\n    def f(self):\n        registry[self] = 1\n", {"registry"}),
    "decorator and default are not the body": (
        "def outer():\n    @hooks.append\n    def inner(x=cache.pop()):\n        pass\n",
        set(),
    ),
    "lambda bodies own nothing": ("def f():\n    g = lambda: log.append(1)\n", set()),
    "comprehension target is local": (
        "def f(xs):\n    return [y for y in xs]\n",
        set(),
    ),
}


@pytest.mark.parametrize("name", CASES)
def test_cases(name: str) -> None:
    source, expected = CASES[name]
    tree = ast.parse(source)
    assert _summary_writes(tree) == expected
    assert reference_free_writes(tree.body) == expected


SOURCES = sorted([*REPO.glob("jax_lsp/**/*.py"), *REPO.glob("tests/**/*.py")])


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(REPO)))
def test_same_as_the_definition_on_real_files(path: Path) -> None:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for statement in tree.body:  # each top-level statement is a unit
        unit = ast.Module([statement], [])
        assert _summary_writes(unit) == reference_free_writes([statement])


SET_UP_CASES = {
    "written first": (
        "def main():\n    global LR\n    args = parse()\n    LR = args.lr\n    run()\n",
        {"LR": {"parse", "args"}},
    ),
    "written under an if and in a with": (
        "def main(a):\n    global A, B\n    if a:\n        A = 1\n"
        "    with ctx() as c:\n        B = c\n",
        {"A": {"a"}, "B": {"a", "ctx", "c"}},
    ),
    "written after a call": (
        "def main():\n    global LR\n    step()\n    LR = 2\n",
        {"LR": {"step"}},
    ),
    "written in a loop": (
        "def main():\n    global LR\n    for lr in rates:\n        LR = lr\n",
        {},
    ),
    "a mutation counts": ("def main():\n    CONFIG['lr'] = 2\n", {"CONFIG": {"CONFIG"}}),
    "a nested function's write is not the function's": (
        "def main():\n    def set_lr(v):\n        global LR\n        LR = v\n    set_lr(2)\n",
        {},
    ),
    "a method is not a top-level function": (
        "class A:\n    def f(self):\n        global LR\n        LR = 2\n",
        {},
    ),
}


@pytest.mark.parametrize("name", SET_UP_CASES)
def test_set_up_writes_are_told_apart_with_what_was_read_before(name: str) -> None:
    source, expected = SET_UP_CASES[name]
    summary = summarize(ast.parse(source), Resolver({}))
    found = {written: set(read) for written, _, read in summary.set_up_writes}
    assert found == expected
    assert not summary.free_writes & set(expected)

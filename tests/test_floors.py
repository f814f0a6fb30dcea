"""The floors, read statically from the source (nothing is imported): jax_lsp's import graph has
no cycle, not even through imports for type checkers; the faces reach analysis only through the
engine (`jax_lsp.engine`, `jax_lsp.workspace`); no module or class is too big to read."""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "jax_lsp"

# The faces: they convert and deliver, and call the engine.
FACES = ("jax_lsp.cli", "jax_lsp.checking", "jax_lsp.reporting", "jax_lsp.server", "jax_lsp.lsp")


@dataclass(frozen=True)
class SourceFile:
    path: Path
    text: str
    tree: ast.Module


def read_package() -> tuple[SourceFile, ...]:
    files = []
    for path in sorted(PACKAGE.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        files.append(SourceFile(path, text, ast.parse(text)))
    return tuple(files)


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _type_checking_only(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def imported_modules(file: SourceFile, known: set[str], type_checking: bool = False) -> set[str]:
    """The jax_lsp modules `file` imports when it runs (at import time or later, in a function),
    and with `type_checking` those imported for type checkers only."""
    path, tree = file.path, file.tree
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    skipped: set[ast.AST] = set()
    for node in ast.walk(tree):
        if not type_checking and isinstance(node, ast.If) and _type_checking_only(node):
            skipped.update(ast.walk(node))
    found: set[str] = set()
    for node in ast.walk(tree):
        if node in skipped:
            continue
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, *([base] if base else [])])
            for alias in node.names:
                submodule = f"{base}.{alias.name}"
                found.add(submodule if submodule in known else base)
    return {module for module in found if module in known and module != name}


def import_graph(files: tuple[SourceFile, ...], type_checking: bool = False) -> dict[str, set[str]]:
    known = {module_name(file.path) for file in files}
    return {module_name(file.path): imported_modules(file, known, type_checking) for file in files}


def cycles(graph: dict[str, set[str]]) -> list[set[str]]:
    """The strongly connected components with more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[set[str]] = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        on_stack.add(module)
        for target in sorted(graph[module]):
            if target not in index:
                visit(target)
                low[module] = min(low[module], low[target])
            elif target in on_stack:
                low[module] = min(low[module], index[target])
        if low[module] == index[module]:
            component = set()
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.add(member)
                if member == module:
                    break
            if len(component) > 1:
                found.append(component)

    for module in sorted(graph):
        if module not in index:
            visit(module)
    return found


# Read, parsed and graphed once for the tests of this file (none changes them), and let go
# after them.
@pytest.fixture(scope="module")
def package_files() -> tuple[SourceFile, ...]:
    return read_package()


@pytest.fixture(scope="module")
def graph(package_files: tuple[SourceFile, ...]) -> dict[str, set[str]]:
    return import_graph(package_files)


@pytest.fixture(scope="module")
def typed_graph(package_files: tuple[SourceFile, ...]) -> dict[str, set[str]]:
    return import_graph(package_files, type_checking=True)


def test_the_cycle_finder_finds_a_cycle():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(graph) == [{"a", "b", "c"}]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_the_import_graph_is_read(graph, typed_graph):
    assert "jax_lsp.engine" in graph["jax_lsp.checking"]
    assert "jax_lsp.checking" in graph["jax_lsp.cli"]  # an import inside a function counts
    assert "jax_lsp.lsp.language_server" not in graph["jax_lsp.lsp.hints"]  # TYPE_CHECKING
    assert "jax_lsp.lsp.server_view" in typed_graph["jax_lsp.lsp.hints"]
    assert "jax_lsp.lsp.server_view" not in graph["jax_lsp.lsp.hints"]


def test_no_import_cycle(graph):
    # None is tolerated: `infer.py` builds a `ModuleModel` of an imported module, so the facts
    # the model reads from `infer.py` live below both, in `analysis/external.py`.
    assert cycles(graph) == []


def test_no_import_cycle_through_type_checking_imports(typed_graph):
    # A module imported for its types only still has to be read first: the layers hold for
    # the reader too (a Protocol below names what a module needs of one above it).
    assert cycles(typed_graph) == []


def test_faces_reach_analysis_only_through_the_engine(graph):
    reached = {
        (module, target)
        for module, targets in graph.items()
        if module.startswith(FACES)
        for target in targets
        if target.startswith("jax_lsp.analysis")
    }
    # Lines and columns come from `jax_lsp.text`, below every floor; jedi runs beside its
    # worker (`lsp/jedi_oracle.py`) and speaks plain data.
    assert sorted(reached) == []


MAX_MODULE_LINES = 1500
MAX_CLASS_LINES = 1000  # a rule's examples included


def test_no_module_or_class_too_big_to_read(package_files):
    # A rule family too big for one file is a folder, one file a rule.
    modules, classes = set(), set()
    for file in package_files:
        name = file.path.relative_to(PACKAGE.parent).as_posix()
        if file.text.count("\n") > MAX_MODULE_LINES:
            modules.add(name)
        for node in ast.walk(file.tree):
            if isinstance(node, ast.ClassDef):
                start = min([node.lineno, *(d.lineno for d in node.decorator_list)])
                if node.end_lineno - start + 1 > MAX_CLASS_LINES:
                    classes.add(f"{name}: {node.name}")
    assert sorted(modules) == []
    assert sorted(classes) == []


def _memo_access(node: ast.AST) -> bool:
    """`x.memo[...]`, `x.memo.get(...)`, `x.memo.setdefault(...)`: a unit's memo read or
    written under a key spelled by hand."""
    if isinstance(node, ast.Subscript):
        value = node.value
        return isinstance(value, ast.Attribute) and value.attr == "memo"
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        owner = node.func.value
        return (
            node.func.attr in ("get", "setdefault", "pop")
            and isinstance(owner, ast.Attribute)
            and owner.attr == "memo"
        )
    return False


def test_no_memo_key_is_spelled_by_hand(package_files):
    # A unit's memo is keyed by the computation and its arguments (`unit_memo.per_unit`,
    # `UnitMemo.kept`): a string key could collide, a tuple key forget an input.
    found = []
    for file in package_files:
        name = file.path.relative_to(PACKAGE.parent).as_posix()
        for node in ast.walk(file.tree):
            if _memo_access(node):
                found.append(f"{name}:{node.lineno}")
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                # The owner of an entry: `kept(owner, ...)`, `keep(value, owner, ...)`.
                at = {"kept": 0, "keep": 1}.get(node.func.attr)
                owner = node.args[at] if at is not None and len(node.args) > at else None
                if isinstance(owner, ast.Constant | ast.Tuple | ast.Lambda):
                    found.append(f"{name}:{node.lineno}")
    assert found == []

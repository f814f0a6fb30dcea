"""Cross-module facts: does a function imported from another workspace module return a JAX
array, and is it transformed (jitted) where it is defined?

The engine answers first: it finds the imported module's file under the workspace root (no
import, no `sys.path` search beyond the workspace) and builds our own ModuleModel on its
text, which tells exactly whether the function is decorated with a transformation and what
kind each of its `return` values has. Only names the engine cannot answer are left for jedi
(`jax_lsp.analysis.jedi_oracle`), which infers by reading sources too. Nothing here imports or
executes the code it reads.
"""

from __future__ import annotations

import ast
import os
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from jax_lsp.analysis.document import Document
from jax_lsp.analysis.flow import annotation_kind, dotted_name
from jax_lsp.analysis.jitted import StaticSignature
from jax_lsp.analysis.kinds import Kind
from jax_lsp.analysis.summary import FunctionNode, transform_of
from jax_lsp.analysis.workspace import (
    Target,
    absolute_module,
    module_file,
    package_of,
    read_disk,
    search_roots,
)

if TYPE_CHECKING:
    from jax_lsp.analysis.model import ModuleModel

# Libraries whose functions the local model already knows (or must not guess about).
_KNOWN_ROOTS = frozenset({"jax", "jaxlib", "numpy", "builtins", "flax", "equinox", "optax"})
_MAX_REEXPORT_DEPTH = 4

ReadText = Callable[[str], str | None]


@dataclass(frozen=True)
class ExternalFacts:
    """What the model may assume about calling one imported function. Hashable: it is part
    of the per-unit cache key."""

    returns_array: bool  # a call returns a jax.Array (a tracer inside traced code)
    transform: str | None = None  # "jit", "vmap", ...: transformed where it is defined
    static: StaticSignature | None = None  # its static arguments, when jitted with some
    origin: str = "engine"  # "engine" or "jedi": who answered


@dataclass(frozen=True)
class CallSite:
    """Where the document calls an imported name (0-based line, column of the last part)."""

    line: int
    column: int


def imported_callables(
    trees: list[ast.Module], path: str | None, roots: list[Path]
) -> dict[str, Target]:
    """Call spellings in the document (`make_state`, `ops.step`) -> what they import.

    Only absolute and relative imports of workspace modules count; jax, numpy and friends are
    the local model's business.
    """
    package = package_of(path)
    names: dict[str, Target] = {}  # `from m import f`: f
    modules: dict[str, str] = {}  # module aliases: `import m.sub as s`, `from m import sub`
    for tree in trees:
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name.split(".")[0] in _KNOWN_ROOTS:
                        continue
                    local = alias.asname or alias.name
                    modules[local] = alias.name
            elif isinstance(node, ast.ImportFrom):
                module = absolute_module(node, package)
                if module is None or module.split(".")[0] in _KNOWN_ROOTS:
                    continue
                for alias in node.names:
                    if alias.name == "*":
                        continue
                    local = alias.asname or alias.name
                    if module_file(f"{module}.{alias.name}", roots):
                        modules[local] = f"{module}.{alias.name}"
                    else:
                        names[local] = Target(module, alias.name)
    spelled: dict[str, Target] = {}
    for spelling in _called_spellings(trees):
        if spelling in names:
            spelled[spelling] = names[spelling]
            continue
        head, _, attribute = spelling.rpartition(".")
        if head in modules:
            spelled[spelling] = Target(modules[head], attribute)
    return spelled


def _called_spellings(trees: list[ast.Module]) -> set[str]:
    return {
        spelling
        for tree in trees
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and (spelling := dotted_name(node.func))
    }


def call_sites(document: Document, spellings: set[str]) -> dict[str, CallSite]:
    """The first call of each spelling, in absolute document coordinates (for jedi)."""
    sites: dict[str, CallSite] = {}
    for unit in document.units:
        if unit.tree is None:
            continue
        for node in ast.walk(unit.tree):
            if not isinstance(node, ast.Call):
                continue
            spelling = dotted_name(node.func)
            if spelling in spellings and spelling not in sites:
                func = node.func
                column = func.end_col_offset - 1 if func.end_col_offset else func.col_offset
                sites[spelling] = CallSite(unit.start_line + func.end_lineno - 1, column)
    return sites


# -- the engine's answer -----------------------------------------------------------------------
class ModuleFactsCache:
    """Models of imported modules, rebuilt only when a module's text changes."""

    def __init__(self, read_text: ReadText | None = None) -> None:
        self._read_text = read_text or read_disk
        self._models: dict[str, tuple[str, ModuleModel]] = {}

    def model(self, file: Path) -> ModuleModel | None:
        from jax_lsp.analysis.model import ModuleModel  # the model imports this module

        text = self._read_text(str(file))
        if text is None:
            return None
        cached = self._models.get(str(file))
        if cached is not None and cached[0] == text:
            return cached[1]
        model = ModuleModel(Document(text, str(file)))
        self._models[str(file)] = (text, model)
        return model


def _returns(node: ast.FunctionDef | ast.AsyncFunctionDef) -> Iterator[ast.Return]:
    """The function's own `return` statements (not those of nested functions)."""
    pending: list[ast.AST] = list(node.body)
    while pending:
        current = pending.pop()
        if isinstance(current, ast.Return):
            yield current
        if isinstance(current, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Lambda):
            continue
        pending.extend(ast.iter_child_nodes(current))


def _returns_array(model: ModuleModel, node: FunctionNode) -> bool | None:
    """True: every return is a JAX array; False: known not to be; None: cannot tell."""
    declared = annotation_kind(node.returns, model.resolver)
    if declared is Kind.ARRAY:
        return True
    if declared is Kind.NUMPY:
        return False
    info = model.trace.get(node)
    if info is not None and not info.direct:
        return None  # its kinds depend on what this module's traced callers pass
    returns = [r.value for r in _returns(node)]
    if not returns or any(value is None for value in returns):
        return False  # it returns None (or yields)
    kinds = model.scope_kinds(node).kinds
    found = [kinds.get(value, Kind.UNKNOWN) for value in returns]
    if all(kind.is_jax for kind in found):
        return True
    if any(kind in (Kind.NUMPY, Kind.STATIC, Kind.SEQUENCE, Kind.ITERATOR) for kind in found):
        return False
    return None


def _jit_binding(model: ModuleModel, name: str) -> tuple[str, str] | None:
    """`name = jax.jit(f, ...)` at module level: (transform label, f)."""
    for unit in model.document.units:
        if unit.tree is None:
            continue
        for statement in unit.tree.body:
            if not (
                isinstance(statement, ast.Assign)
                and len(statement.targets) == 1
                and isinstance(statement.targets[0], ast.Name)
                and statement.targets[0].id == name
                and isinstance(statement.value, ast.Call)
                and statement.value.args
                and isinstance(statement.value.args[0], ast.Name)
            ):
                continue
            found = transform_of(statement.value.func, model.resolver)
            if found is not None:
                return found[0].label, statement.value.args[0].id
    return None


def _facts_in_model(model: ModuleModel, name: str) -> ExternalFacts | None:
    record = model.functions.get(name)
    transform: str | None = None
    if record is None:
        binding = _jit_binding(model, name)
        if binding is None:
            return None
        transform, inner = binding
        record = model.functions.get(inner)
        if record is None:
            return None
    info = model.trace.get(record.node)
    if info is not None and info.direct:
        transform = transform or info.via
    returns = _returns_array(model, record.node)
    if returns is None:
        return None
    return ExternalFacts(returns, transform, model.static_signatures.get(name))


def _reexport(model: ModuleModel, name: str, file: Path) -> Target | None:
    """`from .impl import name` (or `import`) in the module: where `name` really lives."""
    # `pkg/__init__.py` and `pkg/impl.py` both have the package `pkg`, which `.` names.
    package = package_of(str(file))
    for unit in model.document.units:
        if unit.tree is None:
            continue
        for statement in unit.tree.body:
            if not isinstance(statement, ast.ImportFrom):
                continue
            for alias in statement.names:
                if (alias.asname or alias.name) == name:
                    module = absolute_module(statement, package)
                    return Target(module, alias.name) if module else None
    return None


def engine_facts(
    target: Target, roots: list[Path], cache: ModuleFactsCache
) -> ExternalFacts | None:
    """The engine's answer for one imported callable (following re-exports), if it has one."""
    for _ in range(_MAX_REEXPORT_DEPTH):
        file = module_file(target.module, roots)
        model = cache.model(file) if file is not None else None
        if model is None:
            return None
        facts = _facts_in_model(model, target.attribute)
        if facts is not None or target.attribute in model.functions:
            return facts
        moved = _reexport(model, target.attribute, file)
        if moved is None:
            return None
        target = moved
    return None


def facts_key(external: Mapping[str, ExternalFacts] | None) -> tuple:
    """A hashable summary of `external`, for cache keys."""
    return tuple(sorted((external or {}).items()))


def document_file(document: Document) -> str | None:
    """The document's file as an absolute path (None for "<unknown>" and the like)."""
    path = document.path
    return os.path.abspath(path) if path and not path.startswith("<") else None


def local_external_facts(
    document: Document, root: str | None, cache: ModuleFactsCache
) -> tuple[dict[str, ExternalFacts], dict[str, Target]]:
    """The engine's facts for the document's imported callables, and those it could not
    answer (for jedi)."""
    path = document_file(document)
    roots = search_roots(root, path)
    if not roots:
        return {}, {}
    trees = [unit.tree for unit in document.units if unit.tree is not None]
    callables = imported_callables(trees, path, roots)
    facts: dict[str, ExternalFacts] = {}
    unanswered: dict[str, Target] = {}
    for spelling, target in callables.items():
        found = engine_facts(target, roots, cache)
        if found is not None:
            facts[spelling] = found
        else:
            unanswered[spelling] = target
    return facts, unanswered

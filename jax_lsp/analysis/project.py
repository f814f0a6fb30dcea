"""The project's trace graph: which functions of a module the other modules of the project
trace, by which transformation, through which calls.

A module's model resolves what its imports name in other workspace modules through
`WorkspaceForeign`, and finds the traces its traced code gives them
(`ModuleModel.outgoing_traces`).
`ProjectTraces.incoming` asks, for one module, every project module that may import it (its
import statements spell the module's name or one of its definitions), builds that module's
model with the traces its own importers give it (recursively, a module under way counting for
none), and hands back the traces they give this module. What crosses is the other module's
summary of what it traces (`IncomingTrace`), never its analysis: each module's findings stay
in its own file. Nothing is imported or run.
"""

from __future__ import annotations

import ast
import heapq
import math
import os
import re
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from pathlib import Path

from jax_lsp.analysis.boolean_args import returned_booleans
from jax_lsp.analysis.boolean_entries import returned_boolean_keys
from jax_lsp.analysis.crossing import (
    NO_FOREIGN,
    ForeignDefinitions,
    ForeignFunction,
    ForeignStep,
    IncomingTrace,
    passed_in,
)
from jax_lsp.analysis.document import Document, UnitSource
from jax_lsp.analysis.external import ExternalFacts, imports_a_wrapper, read_by_models
from jax_lsp.analysis.haiku import haiku_transformed, own_def, returned_haiku_transform
from jax_lsp.analysis.imported_globals import may_store_elsewhere
from jax_lsp.analysis.imports import Resolver, import_bindings
from jax_lsp.analysis.infer import (
    _MAX_REEXPORT_DEPTH,
    STAMP_TRUST_SECONDS,
    Bindings,
    FactsRead,
    ModuleFactsCache,
    _ModuleEntry,
    document_file,
    file_stamp,
    last_external_facts,
    local_external_facts,
)
from jax_lsp.analysis.model import ModuleModel
from jax_lsp.analysis.pytrees import LINEN_MODULE, PYTREE_BASES, PYTREE_DECORATORS
from jax_lsp.analysis.summary import FunctionNode
from jax_lsp.analysis.unit_memo import per_unit
from jax_lsp.analysis.workspace import (
    Target,
    absolute_module,
    module_file,
    package_of,
    project_folder,
    read_disk,
    real_file,
    search_roots,
)
from jax_lsp.findings import Position, Span

_MAX_PROJECT_FILES = 4000  # a folder with more Python files is no one project
_FRESH = 5.0  # seconds: the project's files are listed and indexed again after this long
_MAX_DEPTH = 24  # importers of importers followed at most this far
_MAX_RECEIVERS = 8  # modules an importer passes objects to, read for one module at most
_MAX_KEPT_LINES = 60_000  # lines of importers' models kept for their own analysis
# Seconds an answer of `_importers` is kept (with the same import index): where the imports
# resolve is read from the file system, whose answers are reused for as long
# (`analysis.workspace`).
_RESOLVED_SECONDS = 1.0
# Folders a project's own modules never live in.
_SKIPPED_FOLDERS = frozenset(
    {"node_modules", "__pycache__", "site-packages", "build", "dist", "venv", "env"}
)
# Words of a module that may apply a transformation itself: a module spelling none of them,
# and traced by no importer, traces nothing and needs no model to say so.
_TRANSFORM_WORDS = re.compile(
    r"\b(?:jit|pjit|pmap|vmap|grad|value_and_grad|jacfwd|jacrev|hessian|scan|fori_loop|"
    r"while_loop|cond|switch|checkpoint|remat|shard_map|filter_jit|filter_vmap|filter_grad|"
    r"filter_value_and_grad|apply|transform|transform_with_state|eval_shape|make_jaxpr|"
    r"custom_vjp|custom_jvp|odeint|minimize|dynamic_unroll|associative_scan|compiled)\b"
)

# What a module outside any trace may tell the functions of other modules it calls: a call of
# a capitalised name (`Cell(key, 3)`) may construct an object, whose class it tells; a
# comparison, `~`, or a spelling of `bool` may make a boolean array (`mask = x > 0`).
_CAPITALISED_CALL = re.compile(r"\b[A-Z]\w*+\(")
_BOOL = re.compile(r"\bbool")


def _may_pass_objects(text: str) -> bool:
    # Each spelling searched apart, the characters by `in`: one pattern of all of them was
    # tried at every character of a text where none comes early (six times slower).
    return (
        "<" in text
        or ">" in text
        or "~" in text
        or "==" in text
        or "!=" in text
        or _BOOL.search(text) is not None
        or _CAPITALISED_CALL.search(text) is not None
    )


class WorkspaceForeign(ForeignDefinitions):
    """The definitions one module's imports name in other workspace modules, read from those
    modules' parses (through `cache`). Equal to another for the same imports and the same
    versions of the modules they name: a model built with it is kept while both hold."""

    def __init__(
        self,
        bindings: Bindings,
        roots: tuple[Path, ...],
        cache: ModuleFactsCache,
        definitions: Callable[[Path, _ModuleEntry], ModuleDefinitions | None],
    ) -> None:
        self._names, self._modules = bindings
        self._roots = roots
        self._cache = cache
        self._definitions = definitions
        self._found: dict[tuple[str, str], ForeignFunction | None] = {}
        self._classes: dict[str, tuple[ModuleDefinitions, str] | None] = {}
        # Local names standing for classes of modules not imported (`class_at`).
        self._aliases: dict[str, Target] = {}
        stamps = []
        for module in sorted({*self._modules.values(), *(t.module for t in self._names.values())}):
            file = module_file(module, roots)
            entry = cache.entry(file) if file is not None else None
            stamps.append((module, entry.stamp if entry is not None else None))
        self._key = (
            tuple(sorted(self._names.items(), key=lambda item: item[0])),
            tuple(sorted(self._modules.items())),
            roots,
            tuple(stamps),
        )

    @property
    def key(self) -> Hashable:
        return self._key

    # -- what the model asks ---------------------------------------------------------------
    def function(self, local: str) -> ForeignFunction | None:
        target = self._target(local)
        return self._defined(target, "") if target is not None else None

    def member(self, local: str, attribute: str) -> ForeignFunction | None:
        module = self._modules.get(local)
        if module is not None:
            return self._defined(Target(module, attribute), "")
        target = self._target(local)
        if target is None:
            return None
        return self._defined(target, attribute)  # `Cls.f(...)`, `Cls(...)(x)`

    def method(self, local: str, attribute: str) -> ForeignFunction | None:
        target = self._target(local)
        return self._defined(target, attribute) if target is not None else None

    def is_class(self, local: str) -> bool:
        return self._class(local) is not None

    def class_names(self) -> frozenset[str]:
        return frozenset(local for local in self._names if self.is_class(local))

    def is_property(self, local: str, attribute: str) -> bool:
        method = self.method(local, attribute) if self.is_class(local) else None
        return method is not None and any(
            getattr(decorator, "id", None) in ("property", "cached_property")
            or getattr(decorator, "attr", None) == "cached_property"
            for decorator in method.node.decorator_list
        )

    def linen_class(self, local: str) -> bool:
        found = self._class(local)
        return found is not None and found[1] in found[0].linen

    def pytree_class(self, local: str) -> bool:
        found = self._class(local)
        return found is not None and found[1] in found[0].pytrees

    def imported_names(self) -> frozenset[str]:
        return frozenset(self._names.keys() | self._modules.keys())

    def class_origin(self, local: str) -> tuple[str, str] | None:
        found = self._class(local)
        return (found[0].file, found[1]) if found is not None else None

    def class_at(self, file: str, name: str) -> str | None:
        target = Target(file, name)
        alias = next((key for key, known in self._aliases.items() if known == target), None)
        if alias is None:
            # Not a name Python code can bind: it shadows none of the module's own.
            alias = f"{name}@{len(self._aliases)}"
            self._aliases[alias] = target
        return alias if self._class(alias) is not None else None

    def _target(self, local: str) -> Target | None:
        return self._names.get(local) or self._aliases.get(local)

    def haiku_transformed(self, local: str, called: bool) -> tuple[ForeignFunction, int] | None:
        target = self._target(local)
        found = self._definition_module(target) if target is not None else None
        if found is None:
            return None
        definitions, name = found
        made = (definitions.haiku_factories if called else definitions.haiku_values).get(name)
        if made is None:
            return None
        path, node, leading = made
        return ForeignFunction(definitions.file, path, node), leading

    def returned_booleans(self, function: ForeignFunction) -> frozenset[int]:
        found = self._module_function(function)
        return returned_booleans(*found) if found is not None else frozenset()

    def returned_boolean_keys(self, function: ForeignFunction) -> frozenset[str]:
        found = self._module_function(function)
        return returned_boolean_keys(*found) if found is not None else frozenset()

    def _module_function(self, function: ForeignFunction) -> tuple[ModuleModel, ast.AST] | None:
        """The model of the module defining `function` and its node, for a function of that
        module's top level (None for methods and nested functions)."""
        if function.method or "." in function.path:
            return None
        file = Path(function.file)
        entry = self._cache.entry(file)
        model = self._cache.model(file, entry) if entry is not None else None
        record = model.functions.get(function.path) if model is not None else None
        if record is None or record.parent is not None:
            return None
        return model, record.node

    # -- reading the other modules -----------------------------------------------------------
    def _class(self, local: str) -> tuple[ModuleDefinitions, str] | None:
        if local not in self._classes:
            target = self._target(local)
            found = self._definition_module(target) if target is not None else None
            self._classes[local] = (
                found if found is not None and found[1] in found[0].classes else None
            )
        return self._classes[local]

    def _definition_module(self, target: Target) -> tuple[ModuleDefinitions, str] | None:
        """The definitions of the module defining what `target` names (re-exports followed),
        and the name there. Read from its parse: no model of it is built."""
        for _ in range(_MAX_REEXPORT_DEPTH):
            # A class named by its file (`class_at`), or a module by its dotted name.
            file = (
                Path(target.module)
                if os.path.isabs(target.module)
                else module_file(target.module, self._roots)
            )
            if file is None:
                return None
            entry = self._cache.entry(file)
            if entry is None:
                return None
            definitions = self._definitions(file, entry)
            if definitions is None:
                return None
            name = target.attribute
            if (
                name in definitions.functions
                or name in definitions.classes
                or name in definitions.haiku_values
            ):
                return definitions, name
            following = definitions.reexports.get(name)
            if following is None:
                return None
            target = following
        return None

    def _defined(self, target: Target, attribute: str) -> ForeignFunction | None:
        """The function `target` names (`attribute` "": itself; else its method, looked up in
        the class and its bases of the same module)."""
        key = (f"{target.module}.{target.attribute}", attribute)
        if key not in self._found:
            self._found[key] = self._look_up(target, attribute)
        return self._found[key]

    def _look_up(self, target: Target, attribute: str) -> ForeignFunction | None:
        found = self._definition_module(target)
        if found is None:
            return None
        definitions, name = found
        if not attribute:
            node = definitions.functions.get(name)
            return ForeignFunction(definitions.file, name, node) if node is not None else None
        classes, seen = [name], set()
        while classes:
            class_name = classes.pop(0)
            seen.add(class_name)
            node = definitions.functions.get(f"{class_name}.{attribute}")
            if node is not None:
                path = f"{class_name}.{attribute}"
                return ForeignFunction(definitions.file, path, node, method=True)
            cls = definitions.classes.get(class_name)
            if cls is not None:
                classes += [
                    base.id
                    for base in cls.bases
                    if isinstance(base, ast.Name)
                    and base.id in definitions.classes
                    and base.id not in seen
                ]
        return None


@dataclass
class ModuleDefinitions:
    """What a module defines at top level, read from its parse: functions ("f") and methods
    ("Cls.f"), classes, the classes that are flax linen modules, and the names it
    re-exports (bound by `from .impl import name`)."""

    file: str
    functions: dict[str, FunctionNode]
    classes: dict[str, ast.ClassDef]
    linen: frozenset[str]
    reexports: dict[str, Target | None]
    # The PyTree classes (an `eqx.Module`, a flax struct, a registered dataclass, or one
    # deriving from such a class of the module): a filtered transformation traces the array
    # leaves of their instances.
    pytrees: frozenset[str] = frozenset()
    # Haiku transformed objects (`analysis.haiku`): the module-level names bound once to one
    # (`net = hk.transform(forward)`), and the functions returning one (`make_net`): the
    # path of the function its `init` and `apply` run, its definition, and the arguments
    # `apply` takes before its own.
    haiku_values: dict[str, tuple[str, ast.FunctionDef, int]] = field(default_factory=dict)
    haiku_factories: dict[str, tuple[str, ast.FunctionDef, int]] = field(default_factory=dict)


def module_definitions(
    document: Document, file: str, reexports: dict[str, Target | None]
) -> ModuleDefinitions:
    bindings: dict[str, str] = {}
    statements = [s for unit in document.units if unit.tree is not None for s in unit.tree.body]
    bindings.update(import_bindings(statements))
    resolver = Resolver(bindings)
    functions: dict[str, FunctionNode] = {}
    classes: dict[str, ast.ClassDef] = {}
    bases: dict[str, list[str]] = {}
    pytrees: set[str] = set()
    for statement in statements:
        if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef):
            functions[statement.name] = statement
        elif isinstance(statement, ast.ClassDef):
            classes[statement.name] = statement
            bases[statement.name] = [resolver.qualname(b) or "" for b in statement.bases]
            decorators = (resolver.qualname(d) for d in statement.decorator_list)
            if any(d in PYTREE_DECORATORS for d in decorators):
                pytrees.add(statement.name)
            for member in statement.body:
                if isinstance(member, ast.FunctionDef | ast.AsyncFunctionDef):
                    functions[f"{statement.name}.{member.name}"] = member
    linen: set[str] = set()
    changed = True
    while changed:  # a class deriving from a linen module of the module is one too
        changed = False
        for name, found in bases.items():
            if name not in linen and any(b == LINEN_MODULE or b in linen for b in found):
                linen.add(name)
                changed = True
            if name not in pytrees and any(b in PYTREE_BASES or b in pytrees for b in found):
                pytrees.add(name)
                changed = True
    values, factories = _haiku_objects(statements, functions, resolver)
    return ModuleDefinitions(
        real_file(file),
        functions,
        classes,
        frozenset(linen),
        reexports,
        frozenset(pytrees),
        values,
        factories,
    )


def _haiku_objects(
    statements: list[ast.stmt], functions: dict[str, FunctionNode], resolver: Resolver
) -> tuple[
    dict[str, tuple[str, ast.FunctionDef, int]], dict[str, tuple[str, ast.FunctionDef, int]]
]:
    """The module's haiku transformed objects (see `ModuleDefinitions`), of its named
    functions only (a lambda stays in its module)."""
    values: dict[str, tuple[str, ast.FunctionDef, int]] = {}
    factories: dict[str, tuple[str, ast.FunctionDef, int]] = {}
    assigned: dict[str, int] = {}
    for statement in statements:
        if isinstance(statement, ast.Assign | ast.AnnAssign | ast.AugAssign):
            targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
            for target in targets:
                if isinstance(target, ast.Name):
                    assigned[target.id] = assigned.get(target.id, 0) + 1
        if (
            isinstance(statement, ast.Assign)
            and len(statement.targets) == 1
            and isinstance(statement.targets[0], ast.Name)
        ):
            found = haiku_transformed(statement.value, resolver)
            node = functions.get(found[0]) if found and isinstance(found[0], str) else None
            if found is not None and isinstance(node, ast.FunctionDef):
                values[statement.targets[0].id] = (found[0], node, found[1])
        elif isinstance(statement, ast.FunctionDef):
            found = returned_haiku_transform(statement, statement.name, resolver)
            if found is None or not isinstance(found[0], str):
                continue
            path, leading = found
            if path.startswith(f"{statement.name}."):
                node = own_def(statement, path.rpartition(".")[2])
            else:
                node = functions.get(path)
            if isinstance(node, ast.FunctionDef):
                factories[statement.name] = (path, node, leading)
    return {name: found for name, found in values.items() if assigned.get(name) == 1}, factories


class ProjectTraces:
    """The traces that a project's modules give each other's functions, asked module by
    module (`incoming`) and kept while the modules read are unchanged. `foreign` gives the
    definitions a module's imports name in other workspace modules."""

    def __init__(
        self,
        root: str | None,
        cache: ModuleFactsCache,
        foreign: Callable[..., ForeignDefinitions],
        others_edited: Callable[[str], Hashable] | None = None,
    ) -> None:
        self.root = root
        self._cache = cache
        self._foreign = foreign
        self._others_edited = others_edited
        # How long the project's file index is trusted: a `check` run reads files that do
        # not change under it (forever); an editor's files change (`_FRESH`).
        self.fresh_seconds = _FRESH
        # Each project folder's import index (the files whose import statements spell each
        # module), with when it was read: read again every few seconds (a new file, an
        # import added on disk). `_index`: the last one asked.
        self._indexes: dict[str, tuple[float, str, dict]] = {}
        self._index: tuple[float, str, dict] | None = None
        # file -> (its traces, the importers read: (file, entry) at their versions then)
        self._incoming: dict[str, tuple[tuple[IncomingTrace, ...], tuple]] = {}
        self._active: set[str] = set()
        # The files whose incoming traces were confirmed or gathered since the outermost
        # `incoming` call began: asked again through another path of the import graph, they
        # are not checked again.
        self._settled: set[str] = set()
        self._upstream_seen: set[str] = set()  # see `_upstream_unchanged`
        self._asked: str | None = None  # the module the outermost ask is about
        # When the walk of `_upstream_unchanged` last read the file read longest ago.
        self._oldest_read = math.inf
        # Bumped whenever traces are gathered (`_incoming` changes).
        self._revision = 0
        # module -> (what its upstream was confirmed against, until when): see
        # `_upstream_confirmed`.
        self._confirmed: dict[str, tuple[tuple, float]] = {}
        # module -> (the names asked with, which import index (when it was built, its top
        # folder: not the index, which a module asked once would keep), when, its importers)
        self._importers_of: dict[
            str, tuple[frozenset[str], tuple[float, str], float, frozenset[str]]
        ] = {}
        # The importers' models, kept for their own analysis (a `check` analyses them too):
        # the most recent ones, up to _MAX_KEPT_LINES lines.
        self._models: OrderedDict[str, ModuleModel] = OrderedDict()
        self._kept_lines = 0
        self._read: dict[Path, tuple[_ModuleEntry, ModuleDefinitions]] = {}
        self._defined: dict[str, tuple[str, frozenset[str]]] = {}
        # Each file's import statements and `_defined_names` at the version read (the index is
        # rebuilt often).
        self._statements: dict[str, tuple[_ModuleEntry, tuple, frozenset[str]]] = {}

    def definitions(self, file: Path, entry: _ModuleEntry) -> ModuleDefinitions | None:
        """What the module defines, at the entry's version (memoised)."""
        known = self._read.get(file)
        if known is not None and known[0] is entry:
            return known[1]
        document = self._cache.document(file, entry)
        parsed = self._cache.parsed_facts(file, entry)
        if document is None or parsed is None:
            return None
        found = module_definitions(document, str(file), parsed.reexports)
        self._read[file] = (entry, found)
        return found

    def incoming(self, document: Document, x64: bool) -> tuple[IncomingTrace, ...]:
        """The traces other modules of the project give the functions of `document`."""
        path = document_file(document)
        if path is None:
            return ()
        file = real_file(path)
        known = self._incoming.get(file)
        if known is not None and self.fresh_seconds == float("inf"):
            return known[0]  # the files do not change under this run
        outermost = not self._active
        if outermost:
            self._settled.clear()
            # The module asked about is not its own upstream: its version changes with every
            # keystroke, and what it gives comes back to it only through an import cycle.
            self._asked = file
            self._upstream_seen.clear()
            self._oldest_read = math.inf
        if known is not None and file in self._settled:
            return known[0]
        if file in self._active or len(self._active) >= _MAX_DEPTH:
            # An import cycle (its importers' traces are being gathered), or deep.
            return known[0] if known is not None else ()
        importers = self._importers(file, self._document_names(file, document))
        self._active.add(file)
        try:
            if known is not None:
                confirmed = outermost and self._upstream_confirmed(file, path)
                if self._still_hold(known[1], importers, confirmed):
                    if outermost and not confirmed:
                        self._confirm_upstream(file, path)
                    return known[0]
            found, read = self._gather(file, importers, x64)
        finally:
            self._active.discard(file)
        self._incoming[file] = (found, read)
        self._revision += 1
        self._settled.add(file)
        return found

    def _upstream_state(self, path: str) -> tuple | None:
        """What a confirmation of the upstream of the module at `path` (as the document is
        named) read, as far as it can change without a file on disk being read again: the
        traces gathered, the module versions seen, the other open documents' texts (None:
        those cannot be told)."""
        if self._others_edited is None:
            if self._cache.reads_open_documents:
                return None
            edited: Hashable = None  # files on disk only
        else:
            edited = self._others_edited(path)
        return (self._revision, self._cache.generation, edited)

    def _upstream_confirmed(self, file: str, path: str) -> bool:
        """Does the last confirmation of the upstream of `file` hold without walking it again:
        nothing it read changed since, and no file on disk it trusted is due to be read
        again (`STAMP_TRUST_SECONDS`)? Then the walk would trust every file it reads and find
        each at the version it found then."""
        known = self._confirmed.get(file)
        return (
            known is not None
            and time.monotonic() < known[1]
            and known[0] == self._upstream_state(path)
        )

    def _confirm_upstream(self, file: str, path: str) -> None:
        """The walk from the importers of `file` found its whole upstream unchanged."""
        state = self._upstream_state(path)
        if state is None:
            return
        if len(self._confirmed) > _MAX_PROJECT_FILES:
            self._confirmed.clear()
        self._confirmed[file] = (state, self._oldest_read + STAMP_TRUST_SECONDS)

    def files_changed(self) -> None:
        """Files of the project changed on disk, or were made or removed: the import indexes
        (which file imports which module) are read again, and no walk of a module's upstream
        holds without being made again."""
        self._indexes.clear()
        self._index = None
        self._confirmed.clear()

    def gathered(self, path: str) -> bool:
        """Were the traces given to the module at `path` gathered before? Then `incoming`
        confirms them; else it reads the project's files and models the module's importers."""
        return real_file(path) in self._incoming

    def tracing_files(self, files: list[str]) -> list[str]:
        """The project's files, other than `files`, whose traced code may reach one of them:
        their importers, and importers of those, that may apply a transformation or pass one
        on (`check` analyses them for the traces they give, not for their findings)."""
        checked = {real_file(file) for file in files}
        found: set[str] = set()
        pending = sorted(checked)
        while pending:
            file = pending.pop()
            entry = self._cache.entry(self._cache.path(file))
            if entry is None:
                continue
            for other in self._importers(file, self._imports_and_names(file, entry)[1]):
                if other not in checked and other not in found:
                    found.add(other)
                    pending.append(other)
        return sorted(found)

    def importers_first(self, files: list[str]) -> list[str]:
        """`files` in the order `check` analyses them: the modules of each top folder (the
        folder holding their top package) together, top folders in path order, and within
        one, each module after those of its importers that are among `files` (in path order
        where the imports leave a choice; an import cycle is cut at its first module by
        path). A pass in this order sees most traces before the modules they reach."""
        groups: dict[str, list[str]] = {}
        for file in files:
            roots = search_roots(None, file)
            top = str(roots[-1]) if roots else os.path.dirname(file)
            groups.setdefault(top, []).append(file)
        ordered: list[str] = []
        for top in sorted(groups):
            ordered += self._importers_first_in(sorted(groups[top]))
        return ordered

    def _importers_among(self, files: list[str]) -> dict[str, list[str]]:
        """Each of `files` that can be read -> its importers among `files`."""
        real = {file: real_file(file) for file in files}
        by_real = {path: file for file, path in real.items()}
        found: dict[str, list[str]] = {}
        for file in files:
            entry = self._cache.entry(self._cache.path(real[file]))
            if entry is None:
                continue
            names = self._imports_and_names(real[file], entry)[1]
            found[file] = [by_real[o] for o in self._importers(real[file], names) if o in by_real]
        return found

    def _importers_first_in(self, files: list[str]) -> list[str]:
        waiting: dict[str, int] = {}  # file -> its importers among `files` not yet placed
        imports: dict[str, list[str]] = {file: [] for file in files}
        for file, importers in self._importers_among(files).items():
            waiting[file] = len(importers)
            for importer in importers:
                imports[importer].append(file)
        ready = [file for file in files if not waiting.get(file)]
        heapq.heapify(ready)
        placed: list[str] = []
        left = set(files)
        while left:
            if not ready:  # a cycle: cut it at its first module by path
                ready = [min(left)]
            file = heapq.heappop(ready)
            if file not in left:
                continue
            left.discard(file)
            placed.append(file)
            for imported in imports[file]:
                waiting[imported] -= 1
                if waiting[imported] == 0 and imported in left:
                    heapq.heappush(ready, imported)
        return placed

    def linked_groups(self, files: list[str]) -> dict[str, int]:
        """Each of `files` -> its group: the files linked to each other by imports (a file,
        its importers among `files`, theirs, ...), numbered in the order of `files`. A module's
        imports are read with it, and the traces it gives reach its imports: a process that
        analyses a whole group reads and models each of its modules once."""
        parent = {file: file for file in files}

        def root(file: str) -> str:
            while parent[file] != file:
                parent[file] = parent[parent[file]]
                file = parent[file]
            return file

        for file, importers in self._importers_among(files).items():
            for importer in importers:
                parent[root(importer)] = root(file)
        numbers: dict[str, int] = {}
        return {file: numbers.setdefault(root(file), len(numbers)) for file in files}

    def may_trace(self, text: str, incoming: tuple[IncomingTrace, ...]) -> bool:
        """Can a module with this text, given these traces, trace something of another module:
        it applies a transformation itself or is traced by its importers; or tell another
        module the classes of the objects or the boolean arrays it passes."""
        return (
            bool(incoming)
            or _may_pass_objects(text)
            or _TRANSFORM_WORDS.search(text) is not None
            or may_store_elsewhere(text)
        )

    def applies_imported_wrapper(self, document: Document) -> bool:
        """Does the module call a function that another project module's facts say
        transforms the function it is given (`compiled(step)` of `def compiled(f): return
        jax.jit(f)`)? It then traces what it passes, though its text may name no
        transformation (which `may_trace` reads first, as it costs no facts)."""
        return imports_a_wrapper(local_external_facts(document, self.root, self._cache)[0])

    def _document_names(self, file: str, document: Document) -> frozenset[str]:
        """`_defined_names` of the document's text, each unit's read once per unit text (asked
        at every keystroke: the units cover the text, line by line)."""
        if "\r" in document.text:  # `^` of the pattern starts a line after "\n" only
            return self._names(file, document.text)
        # The definitions of the units an edit left alone: the last version's; and the set
        # of them all, while every unit's are the same (one comparison per unit, mostly by
        # identity): the set is then the last one, which `_importers` knows at once.
        units = document.units
        defined = document.lineage.each_unit(_unit_definitions, [unit.source for unit in units])
        pieces = tuple(
            [
                names if unit.changed_text is None else unit.changed_text
                for unit, names in zip(units, defined, strict=True)
            ]
        )
        return document.lineage.reuse(_names_of_units, _module_word(file), pieces)

    def _imports_and_names(self, file: str, entry: _ModuleEntry) -> tuple[tuple, frozenset[str]]:
        """The file's import statements (`_import_statements`) and `_defined_names`, read from
        one read of its text at the entry's version (memoised with it)."""
        known = self._statements.get(file)
        if known is None or known[0] is not entry:
            text = self._cache.text(Path(file), entry)
            known = self._statements[file] = (
                entry,
                _import_statements(text, package_of(file)),
                _defined_names(text, file),
            )
        return known[1], known[2]

    def _names(self, file: str, text: str) -> frozenset[str]:
        """`_defined_names`, memoised on the text (asked at every keystroke)."""
        known = self._defined.get(file)
        if known is None or known[0] != text:
            known = self._defined[file] = (text, _defined_names(text, file))
        return known[1]

    def _still_hold(self, read: tuple, importers: frozenset[str], upstream_confirmed: bool) -> bool:
        """Are the importers read the same files, at the same versions, given the traces they
        were modelled with, by importers of theirs still at the versions read then (an edit
        two imports away changes those; `upstream_confirmed`: known to be)? Read from what
        was gathered, nothing parsed. The other files read, those the importers passed
        objects to, follow from what the importers are. What the importers are told of the
        functions they import is `drop_stale`'s to judge."""
        files = {file for file, _, _, _ in read}
        return importers <= files and all(
            self._cache.entry(self._cache.path(file), STAMP_TRUST_SECONDS) is entry
            and self._last_given(file) == given
            and (upstream_confirmed or self._upstream_unchanged(file))
            for file, entry, given, _ in read
        )

    def _same_facts(
        self,
        file: str,
        entry: _ModuleEntry,
        known: _ImporterFacts | None,
        read_now: dict[tuple[str, int], FactsRead],
    ) -> bool:
        """Do the modules the importer `file` imports tell it the facts its model read (None:
        it read none)? Read again only when one of those modules changed (once per importer
        version in `read_now`), and then compared: an edit seldom changes what they tell
        (early cutoff)."""
        if known is None or known.read.still_read():
            return True
        now = read_now.get((file, id(entry)))
        if now is None:
            now = read_now[(file, id(entry))] = known.read.read_again()
        if read_by_models(now.facts) != known.facts:
            return False
        known.read = now  # the same facts, read from the modules as they are now
        return True

    def drop_stale(self) -> list[str]:
        """The files whose gathered traces no longer hold as their importers are told other
        facts of the functions they import now (a wrapper that stopped jitting), the asked
        module's own included; dropped, so that each gathers them again at its next
        analysis. Each keystroke's `incoming` leaves those facts out: reading them takes a
        model of each new version, and a look at every module each importer imports.
        Asked when edits pause, and when files change on disk."""
        read_now: dict[tuple[str, int], FactsRead] = {}
        stale = [
            file
            for file, (_, read) in self._incoming.items()
            if not all(
                self._same_facts(other, entry, facts, read_now) for other, entry, _, facts in read
            )
        ]
        for file in stale:
            del self._incoming[file]
        return stale

    def _last_given(self, file: str) -> tuple[IncomingTrace, ...]:
        known = self._incoming.get(file)
        return known[0] if known is not None else ()

    def _upstream_unchanged(self, file: str) -> bool:
        """Are the importers the traces last given to `file` were gathered from, and theirs,
        at the versions read then? Each file is looked at once per outermost ask."""
        if file in self._upstream_seen:
            return True  # looked at already (its answer is in the one being made), or a cycle
        self._upstream_seen.add(file)
        known = self._incoming.get(file)
        if known is None:
            return True
        for other, entry, _, _ in known[1]:
            if other == self._asked:
                continue
            if self._cache.entry(self._cache.path(other), STAMP_TRUST_SECONDS) is not entry:
                return False
            self._oldest_read = min(self._oldest_read, entry.checked)
            if not self._upstream_unchanged(other):
                return False
        return True

    def _gather(
        self, file: str, importers: frozenset[str], x64: bool
    ) -> tuple[tuple[IncomingTrace, ...], tuple]:
        found: list[IncomingTrace] = []
        read: list[tuple[str, _ModuleEntry, tuple[IncomingTrace, ...], _ImporterFacts | None]] = []
        # Modules the importers pass objects of the module's classes to (`param_classes`):
        # what they do with them (`lax.scan(cell.step, ...)`) traces the module's methods,
        # though they need not import it.
        receivers: set[str] = set()
        pending = sorted(importers)
        while pending:
            other = pending.pop(0)
            entry = self._cache.entry(Path(other))
            if entry is None:
                continue
            built = self._model(other, entry, x64)
            # With the traces it was modelled with (they change when its own importers do),
            # and the facts its imports told it.
            given = built[0].incoming if built is not None else ()
            read.append((other, entry, given, self._facts_read(other, entry)))
            if built is None:
                continue
            model, foreign = built
            for function, seed in model.outgoing_traces(foreign):
                if function.file == file:
                    found.append(seed)
                elif (
                    function.file not in importers
                    and function.file not in receivers
                    and len(receivers) < _MAX_RECEIVERS
                    and any(origin == file for _, origin, _ in seed.param_classes)
                ):
                    receivers.add(function.file)
                    pending.append(function.file)
        return tuple(found), tuple(read)

    def _facts_read(self, file: str, entry: _ModuleEntry) -> _ImporterFacts | None:
        """The facts of the names it imports that the importer's model was built with, or
        that told it to trace nothing (none of them wraps a transformation); None where
        none were asked (it imports nothing of the project)."""
        document = self._cache.document(Path(file), entry)
        read = last_external_facts(document) if document is not None else None
        return _ImporterFacts(read_by_models(read.facts), read) if read is not None else None

    def _model(
        self, file: str, entry: _ModuleEntry, x64: bool
    ) -> tuple[ModuleModel, ForeignDefinitions] | None:
        """`model_given` of a project module, with the traces its own importers give it (asked
        only if it may trace anything: it applies a transformation, or is imported)."""
        text = self._cache.text(Path(file), entry)
        if not self.may_trace(text, ()) and not self._importers(file, _defined_names(text, file)):
            document = self._cache.document(Path(file), entry)
            if document is None or not self.applies_imported_wrapper(document):
                return None  # it traces nothing itself, and nothing of the project imports it
        built = self.model_given(file, entry, x64, lambda document: self.incoming(document, x64))
        if built is not None and (built[0].incoming or built[0].external):
            self._keep(file, built[0])
        return built

    def model_given(
        self,
        file: str,
        entry: _ModuleEntry,
        x64: bool,
        incoming_of: Callable[[Document], tuple[IncomingTrace, ...]],
    ) -> tuple[ModuleModel, ForeignDefinitions] | None:
        """The model a project module's outgoing traces are read from, given the traces
        `incoming_of` says its importers give it, and the definitions its imports name in
        other modules. None where it gives none: it imports nothing of the project, or it
        applies no transformation and is given no trace."""
        document = self._cache.document(Path(file), entry)
        if document is None:
            return None
        foreign = self._foreign(document)
        incoming = incoming_of(document)
        if foreign is NO_FOREIGN:
            # It imports nothing of the project: it traces nothing of it, unless objects of
            # the project's classes are passed in.
            if not passed_in(incoming):
                return None
            foreign = self._foreign(document, True)
        if (
            not incoming
            and not self.may_trace(document.text, ())
            and not self.applies_imported_wrapper(document)
        ):
            return None
        # With the facts of the functions it imports, as its own analysis has them: what its
        # traced code passes them may be what another module's function returned
        # (`grads = clip(grads)`). Those facts are read from the imported modules' own models.
        external = local_external_facts(document, self.root, self._cache)[0]
        if incoming or any(facts.read_by_models for facts in external.values()):
            return ModuleModel.of(document, x64, external, incoming), foreign
        # The model its importers read facts from: built once, shared.
        model = self._cache.model(Path(file), entry)
        return (model, foreign) if model is not None else None

    def _keep(self, file: str, model: ModuleModel) -> None:
        """Hold the model (the lineage holds its last model weakly): the module's own
        analysis, with the same inputs, takes it (`ModuleModel.of`)."""
        old = self._models.pop(file, None)
        if old is not None:
            self._kept_lines -= len(old.document.lines)
        self._models[file] = model
        self._kept_lines += len(model.document.lines)
        while self._kept_lines > _MAX_KEPT_LINES and len(self._models) > 1:
            _, dropped = self._models.popitem(last=False)
            self._kept_lines -= len(dropped.document.lines)

    def _importers(self, file: str, names: frozenset[str]) -> frozenset[str]:
        """The project's files whose import statements may bind the module or something it
        defines (`names`), but the module itself: they import the module, or import one of
        `names` from it or from a package above it (a re-export). Asked at every keystroke:
        the last answer holds for the same names and import index while the modules the
        imports resolve to are taken as found (`_RESOLVED_SECONDS`)."""
        index = self._import_index(file)
        built = self._index[:2] if self._index is not None else (0.0, "")
        now = time.monotonic()
        known = self._importers_of.get(file)
        if (
            known is not None
            and known[1] == built
            # In one `check` run the file system does not change: answers hold for good.
            and (now - known[2] < _RESOLVED_SECONDS or self.fresh_seconds == math.inf)
            and (known[0] is names or known[0] == names)
        ):
            return known[3]
        found = self._importers_in(index, file, names)
        if len(self._importers_of) > _MAX_PROJECT_FILES:
            self._importers_of.clear()
        self._importers_of[file] = (names, built, now, found)
        return found

    def _importers_in(
        self,
        index: dict[str, tuple[tuple[str, tuple[str, ...]], ...]],
        file: str,
        names: frozenset[str],
    ) -> frozenset[str]:
        module = _module_name(file)
        parts = module.split(".")
        found: set[str] = set()
        for size in range(len(parts), 0, -1):
            imported = ".".join(parts[:size])
            for other, bound in index.get(imported, ()):
                if (
                    other not in found
                    and (imported == module or not names.isdisjoint(bound))
                    and self._resolves_to(other, imported, file)
                ):
                    found.add(other)
        found.discard(file)
        return frozenset(found)

    def _resolves_to(self, importer: str, imported: str, file: str) -> bool:
        """Does `imported`, spelled in `importer`, name the module `file` or a package holding
        it? Another project's module of the same name (`utils`) is not this one."""
        resolved = module_file(imported, search_roots(self.root, importer))
        if resolved is None:
            return False
        resolved_file = real_file(str(resolved))
        if resolved_file == file:
            return True
        package = os.path.dirname(resolved_file)
        return resolved.name == "__init__.py" and file.startswith(package + os.sep)

    def _import_index(self, file: str) -> dict[str, tuple[tuple[str, tuple[str, ...]], ...]]:
        """Module -> the project files importing from it, with the names each binds (none:
        `import module`). The project: the root, or the folder holding the module's top
        package when the root does not hold it (a module outside the workspace, a workspace
        opened inside a package)."""
        top = project_folder(self.root, file)
        now = time.monotonic()
        fresh = self.fresh_seconds  # infinite in one `check` run: the files do not change
        known = self._indexes.get(top)
        if known is not None and now - known[0] < fresh:
            self._index = known
            return known[2]
        return self._index_files(top, _python_files(top), now)

    def _index_files(
        self, top: str, files: tuple[str, ...], now: float
    ) -> dict[str, tuple[tuple[str, tuple[str, ...]], ...]]:
        importing: dict[str, list[tuple[str, tuple[str, ...]]]] = {}
        for other in files:
            entry = self._cache.entry(self._cache.path(other))
            if entry is None:
                continue
            for imported, bound in self._imports_and_names(other, entry)[0]:
                importing.setdefault(imported, []).append((other, bound))
        index = {module: tuple(files) for module, files in importing.items()}
        self._index = self._indexes[top] = (now, top, index)
        return index

    def read_ahead(
        self, files: list[str], map_files: Callable[[Callable[[str], object], list[str]], list]
    ) -> None:
        """Read every file of the project folders holding `files` for its import statements
        and the names it defines through `map_files` (`check`'s worker processes), and build
        their import indexes: `check` asks every module's importers before it analyses any.
        What a worker read is kept only for the version of the file found here."""
        if self._cache.reads_open_documents:
            return  # an open document's text is the editor's, not the file's
        tops = sorted({project_folder(self.root, real_file(file)) for file in files})
        listed = {top: _python_files(top) for top in tops}
        unread = sorted({other for found in listed.values() for other in found})
        for other, found in zip(unread, map_files(read_imports_and_names, unread), strict=True):
            entry = self._cache.entry(self._cache.path(other))
            if entry is not None and found is not None and found[0] == entry.stamp:
                self._statements[other] = (entry, found[1], found[2])
        now = time.monotonic()
        for top, found in listed.items():
            self._index_files(top, found, now)


def read_imports_and_names(file: str) -> tuple[object, tuple, frozenset[str]] | None:
    """The stamp of the file on disk (before it was read), its import statements and the
    names it defines (`ProjectTraces._imports_and_names`); None if it cannot be read."""
    stamp = file_stamp(Path(file))
    text = read_disk(file)
    if stamp is None or text is None:
        return None
    return stamp, _import_statements(text, package_of(file)), _defined_names(text, file)


_DEFINED = re.compile(r"^(?:async[ \t]+)?(?:def|class)[ \t]+(\w+)", re.MULTILINE)


def _top_level_definitions(text: str) -> list[str]:
    """`_DEFINED.findall(text)`, trying only the lines that start with its first words."""
    starts = [0] if text.startswith(("def", "class", "async")) else []
    for word in ("\ndef", "\nclass", "\nasync"):
        at = text.find(word)
        while at >= 0:
            starts.append(at + 1)
            at = text.find(word, at + 1)
    return [match.group(1) for start in sorted(starts) if (match := _DEFINED.match(text, start))]


_IMPORT_WORDS = ("import",)  # on the line where each import statement's match starts


def _findall_on_lines(pattern: re.Pattern, text: str, words: tuple[str, ...]) -> list:
    """`pattern.findall(text)`, for a pattern that starts with `^` (multiline) and whose every
    match starts on a line holding one of `words`: only those lines are tried. Run over the
    whole text, the pattern tried every character of every module of the project (the
    import index reads them all)."""
    starts: set[int] = set()
    for word in words:
        at = text.find(word)
        while at >= 0:
            starts.add(text.rfind("\n", 0, at) + 1)
            at = text.find("\n", at)
            if at < 0:
                break
            at = text.find(word, at)
    found: list = []
    end = 0  # matches do not overlap: a line inside the last one is not tried
    for start in sorted(starts):
        if start < end:
            continue
        match = pattern.match(text, start)
        if match is not None:
            found.append(match.group(1) if pattern.groups == 1 else match.groups())
            end = match.end()
    return found


@dataclass
class _ImporterFacts:
    """The facts a model of an importer read of the names it imports (`read_by_models`),
    and where they were read from."""

    facts: dict[str, ExternalFacts]
    read: FactsRead


def _defined_names(text: str, file: str) -> frozenset[str]:
    """The words an import of the module may spell: its name (its package's, for an
    `__init__.py`) and the names it defines at top level (read from the text)."""
    return frozenset([_module_word(file), *_top_level_definitions(text)])


def _module_word(file: str) -> str:
    """The word an import of the module spells last: its name (its package's, for an
    `__init__.py`)."""
    # os.path, not pathlib: asked at every keystroke.
    stem = os.path.splitext(os.path.basename(file))[0]
    return os.path.basename(os.path.dirname(file)) if stem == "__init__" else stem


_FROM_IMPORT = re.compile(
    r"^[ \t]*from[ \t]+(\.*)([\w.]*)[ \t]+import[ \t]+(\([^)]*\)|[^\n#]*(?:\\\n[^\n#]*)*)",
    re.MULTILINE,
)
_PLAIN_IMPORT = re.compile(r"^[ \t]*import[ \t]+([^\n#]*)", re.MULTILINE)


def _module_name(file: str) -> str:
    """The dotted name an import of the module spells (`pkg/sub/mod.py`: pkg.sub.mod)."""
    package = package_of(file) or ()
    stem = os.path.splitext(os.path.basename(file))[0]  # `Path.stem`, without a `Path`
    return ".".join(package if stem == "__init__" else (*package, stem)) or stem


def _import_statements(
    text: str, package: tuple[str, ...] | None
) -> tuple[tuple[str, tuple[str, ...]], ...]:
    found: list[tuple[str, tuple[str, ...]]] = []
    for dots, module, names in _findall_on_lines(_FROM_IMPORT, text, _IMPORT_WORDS):
        if dots:
            absolute = absolute_module(module or None, len(dots), package)
            if absolute is None:
                continue
            module = absolute
        words = re.findall(r"\w+", names.replace(" as ", " , "))
        found.append((module, tuple(words)))
    for names in _findall_on_lines(_PLAIN_IMPORT, text, _IMPORT_WORDS):
        for part in names.split(","):
            dotted = part.split(" as ")[0].strip()
            if dotted:
                found.append((dotted, ()))
    return tuple(found)


def _python_files(top: str) -> tuple[str, ...]:
    """The project's Python files below `top` (links resolved), as `os.walk` finds them (links
    to folders not followed), but hidden, skipped and virtual-environment folders; none if
    there are more than `_MAX_PROJECT_FILES`. Each folder's listing tells which of its files
    are links: the others are resolved with their folder, where `real_file` asked the system
    about each file (a `check` lists every file of the project before it can start)."""
    found: list[str] = []
    folders = [top]
    while folders:
        folder = folders.pop()
        try:
            with os.scandir(folder) as listing:
                entries = list(listing)
        except OSError:
            continue
        real_folder: str | None = None
        for entry in entries:
            name = entry.name
            if _is_folder(entry):
                if (
                    not _is_link(entry)
                    and not name.startswith(".")
                    and name not in _SKIPPED_FOLDERS
                    and not os.path.exists(os.path.join(folder, name, "pyvenv.cfg"))
                ):
                    folders.append(os.path.join(folder, name))
            elif name.endswith(".py"):
                if _is_link(entry):
                    found.append(real_file(os.path.join(folder, name)))
                    continue
                if real_folder is None:
                    real_folder = real_file(folder)
                found.append(os.path.join(real_folder, name))
        if len(found) > _MAX_PROJECT_FILES:
            return ()
    return tuple(sorted(found))


def _is_folder(entry: os.DirEntry) -> bool:
    try:
        return entry.is_dir()  # links followed, as `os.walk` sorts them
    except OSError:
        return False


def _is_link(entry: os.DirEntry) -> bool:
    try:
        return entry.is_symlink()
    except OSError:
        return True  # resolved by `real_file`, whole


__all__ = ["ProjectTraces", "WorkspaceForeign"]


def library_traces(
    patterns: tuple[str, ...], document: Document, config_file: str | None, line: int = 0
) -> tuple[IncomingTrace, ...]:
    """Library mode: the traces the project's users give its API (`traced` in the settings,
    glob patterns over dotted names, set at `line` of `config_file`), for the module of
    `document`: its model traces the functions whose dotted names they match."""
    path = document_file(document)
    if not patterns or path is None:
        return ()
    package = package_of(path) or ()
    stem = Path(path).stem
    module = ".".join([*package, stem] if stem != "__init__" else package) or stem
    # Named as the user wrote it: "traced by `[tool.jax-lsp] traced` in pyproject.toml".
    here = ForeignStep(
        "",
        "[tool.jax-lsp] traced",
        None,
        config_file or "pyproject.toml",
        Span(Position(line, 0), Position(line, len("traced"))),
    )
    return tuple(
        IncomingTrace(pattern, "jit", True, True, frozenset(), frozenset(), (here,), module=module)
        for pattern in patterns
    )


@per_unit
def _unit_definitions(source: UnitSource) -> tuple[str, ...]:
    return tuple(_top_level_definitions(source.text))


def _names_of_units(module_word: str, pieces: tuple[tuple[str, ...] | str, ...]) -> frozenset[str]:
    """`_defined_names` from each unit's definitions (`_unit_definitions`), or its text where
    it differs from its parse's in comments only (`Unit.changed_text`)."""
    found = [module_word]
    for piece in pieces:
        found += _top_level_definitions(piece) if type(piece) is str else piece
    return frozenset(found)

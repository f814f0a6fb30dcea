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

import os
import re
import time
from collections.abc import Callable
from pathlib import Path

from jax_lsp.analysis.crossing import (
    NO_FOREIGN,
    ForeignDefinitions,
    ForeignFunction,
    ForeignStep,
    IncomingTrace,
)
from jax_lsp.analysis.document import Document
from jax_lsp.analysis.infer import (
    Bindings,
    ModuleFactsCache,
    _ModuleEntry,
    document_file,
)
from jax_lsp.analysis.model import ModuleModel
from jax_lsp.analysis.pytrees import LINEN_MODULE
from jax_lsp.analysis.workspace import Target, module_file, package_of, real_file, search_roots
from jax_lsp.findings import Position, Span

_MAX_REEXPORT_DEPTH = 4
_MAX_PROJECT_FILES = 4000  # a folder with more Python files is no one project
_FRESH_SECONDS = 2.0  # the project's file list is read again after this long
# Folders a project's own modules never live in.
_SKIPPED_FOLDERS = frozenset(
    {"node_modules", "__pycache__", "site-packages", "build", "dist", "venv", "env"}
)
# Words of a module that may apply a transformation itself: a module spelling none of them,
# and traced by no importer, traces nothing and needs no model to say so.
_TRANSFORM_WORDS = re.compile(
    r"\b(?:jit|pjit|pmap|vmap|x?map|grad|value_and_grad|jacfwd|jacrev|hessian|scan|fori_loop|"
    r"while_loop|cond|switch|checkpoint|remat|shard_map|filter_\w+|apply|init|transform\w*|"
    r"eval_shape|make_jaxpr|custom_vjp|custom_jvp|odeint|minimize|dynamic_unroll|"
    r"associative_scan|update)\b"
)


class WorkspaceForeign(ForeignDefinitions):
    """The definitions one module's imports name in other workspace modules, read from those
    modules' parses (through `cache`). Equal to another for the same imports and the same
    versions of the modules they name: a model built with it is kept while both hold."""

    def __init__(
        self, bindings: Bindings, roots: tuple[Path, ...], cache: ModuleFactsCache
    ) -> None:
        self._names, self._modules = bindings
        self._roots = roots
        self._cache = cache
        self._found: dict[tuple[str, str], ForeignFunction | None] = {}
        self._classes: dict[str, tuple[ModuleModel, str] | None] = {}
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

    def __eq__(self, other: object) -> bool:
        return isinstance(other, WorkspaceForeign) and other._key == self._key

    def __hash__(self) -> int:
        return hash(self._key)

    # -- what the model asks ---------------------------------------------------------------
    def function(self, local: str) -> ForeignFunction | None:
        target = self._names.get(local)
        return self._defined(target, "") if target is not None else None

    def member(self, local: str, attribute: str) -> ForeignFunction | None:
        module = self._modules.get(local)
        if module is not None:
            return self._defined(Target(module, attribute), "")
        target = self._names.get(local)
        if target is None:
            return None
        return self._defined(target, attribute)  # `Cls.f(...)`, `Cls(...)(x)`

    def method(self, local: str, attribute: str) -> ForeignFunction | None:
        target = self._names.get(local)
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
        if found is None:
            return False
        model, name = found
        return LINEN_MODULE in model.classes[name].bases

    # -- reading the other modules -----------------------------------------------------------
    def _class(self, local: str) -> tuple[ModuleModel, str] | None:
        if local not in self._classes:
            target = self._names.get(local)
            found = self._definition_module(target) if target is not None else None
            self._classes[local] = (
                found if found is not None and found[1] in found[0].classes else None
            )
        return self._classes[local]

    def _definition_module(self, target: Target) -> tuple[ModuleModel, str] | None:
        """The model of the module defining what `target` names (re-exports followed), and
        the name there."""
        for _ in range(_MAX_REEXPORT_DEPTH):
            file = module_file(target.module, self._roots)
            if file is None:
                return None
            entry = self._cache.entry(file)
            if entry is None:
                return None
            model = self._cache.model(file, entry)
            if model is None:
                return None
            name = target.attribute
            if name in model.functions or name in model.classes:
                return model, name
            reexported = self._cache.parsed_facts(file, entry)
            following = reexported.reexports.get(name) if reexported is not None else None
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
        model, name = found
        file = document_file(model.document) or model.document.path
        if not attribute:
            record = model.functions.get(name)
            if record is None or record.class_name is not None:
                return None
            return ForeignFunction(real_file(file), name, record.node)
        classes = [name]
        while classes:
            class_name = classes.pop(0)
            record = model.functions.get(f"{class_name}.{attribute}")
            if record is not None:
                return ForeignFunction(real_file(file), record.path, record.node, method=True)
            cls = model.classes.get(class_name)
            if cls is not None:
                classes += [
                    base.id
                    for base in cls.node.bases
                    if hasattr(base, "id") and base.id in model.classes and base.id != class_name
                ]
        return None


class ProjectTraces:
    """The traces that a project's modules give each other's functions, asked module by
    module (`incoming`) and kept while the modules read are unchanged. `inputs` builds what a
    module's model needs from the workspace (its importers' traces, its foreign
    definitions, the facts of the functions it imports)."""

    def __init__(
        self,
        root: str | None,
        cache: ModuleFactsCache,
        inputs: Callable[[Document, bool], tuple[dict, tuple[IncomingTrace, ...], object]],
    ) -> None:
        self.root = root
        self._cache = cache
        self._inputs = inputs
        self._files: tuple[float, tuple[str, ...]] | None = None
        # file -> (its traces, the (file, entry) versions they were read from)
        self._incoming: dict[str, tuple[tuple[IncomingTrace, ...], tuple]] = {}
        self._active: set[str] = set()

    def incoming(self, document: Document, x64: bool) -> tuple[IncomingTrace, ...]:
        """The traces other modules of the project give the functions of `document`."""
        path = document_file(document)
        if path is None:
            return ()
        file = real_file(path)
        known = self._incoming.get(file)
        if known is not None and self._still_hold(known[1]):
            return known[0]
        if file in self._active:
            return ()  # an import cycle: its importers' traces are being gathered
        self._active.add(file)
        try:
            found, read = self._gather(file, document, x64)
        finally:
            self._active.discard(file)
        self._incoming[file] = (found, read)
        return found

    def _still_hold(self, read: tuple) -> bool:
        return all(self._cache.entry(Path(file)) is entry for file, entry in read)

    def _gather(
        self, file: str, document: Document, x64: bool
    ) -> tuple[tuple[IncomingTrace, ...], tuple]:
        names = _defined_names(document, file)
        found: list[IncomingTrace] = []
        read: list[tuple[str, _ModuleEntry]] = []
        for other in self._project_files(file):
            if other == file:
                continue
            entry = self._cache.entry(Path(other))
            if entry is None:
                continue
            read.append((other, entry))
            if not self._cache.may_import(Path(other), entry, names):
                continue
            built = self._model(other, entry, x64)
            if built is None:
                continue
            model, foreign = built
            found += [
                seed for function, seed in model.outgoing_traces(foreign) if function.file == file
            ]
        return tuple(found), tuple(read)

    def _model(
        self, file: str, entry: _ModuleEntry, x64: bool
    ) -> tuple[ModuleModel, ForeignDefinitions] | None:
        """The model of a project module as its analysis builds it, and the definitions its
        imports name in other modules, if it may trace anything: it applies a
        transformation, or its own importers trace some of its functions."""
        other = self._cache.document(Path(file), entry)
        if other is None:
            return None
        external, incoming, foreign = self._inputs(other, x64)
        if foreign is NO_FOREIGN or (not incoming and not _TRANSFORM_WORDS.search(other.text)):
            return None
        return ModuleModel.of(other, x64, external, incoming), foreign

    def _project_files(self, file: str) -> tuple[str, ...]:
        """The project's Python files: under the root (or the folder holding the module's
        top package), read again every few seconds."""
        now = time.monotonic()
        if self._files is not None and now - self._files[0] < _FRESH_SECONDS:
            return self._files[1]
        top = self.root or str(search_roots(None, file)[-1])
        files = _python_files(top)
        self._files = (now, files)
        return files


def _defined_names(document: Document, file: str) -> frozenset[str]:
    """The words an import of the module spells: its name (its package's, for an
    `__init__.py`) and the names it defines at top level."""
    stem = Path(file).stem
    names = {Path(file).parent.name if stem == "__init__" else stem}
    for unit in document.units:
        if unit.tree is None:
            continue
        for statement in unit.tree.body:
            name = getattr(statement, "name", None)
            if isinstance(name, str):
                names.add(name)
    return frozenset(names)


def _python_files(top: str) -> tuple[str, ...]:
    found: list[str] = []
    for folder, folders, files in os.walk(top):
        folders[:] = [
            name
            for name in folders
            if not name.startswith(".")
            and name not in _SKIPPED_FOLDERS
            and not os.path.exists(os.path.join(folder, name, "pyvenv.cfg"))
        ]
        found += [real_file(os.path.join(folder, name)) for name in files if name.endswith(".py")]
        if len(found) > _MAX_PROJECT_FILES:
            return ()
    return tuple(sorted(found))


__all__ = ["ProjectTraces", "WorkspaceForeign"]


def library_traces(
    patterns: tuple[str, ...], document: Document, config_file: str | None
) -> tuple[IncomingTrace, ...]:
    """Library mode: the traces the project's users give its API (`traced` in the settings,
    glob patterns over dotted names), for the module of `document`: its model traces the
    functions whose dotted names they match."""
    path = document_file(document)
    if not patterns or path is None:
        return ()
    package = package_of(path) or ()
    stem = Path(path).stem
    module = ".".join([*package, stem] if stem != "__init__" else package) or stem
    here = ForeignStep(
        "",
        "jax.jit",
        None,
        config_file or "pyproject.toml",
        Span(Position(0, 0), Position(0, 0)),
    )
    return tuple(
        IncomingTrace(pattern, "jit", True, True, frozenset(), frozenset(), (here,), module=module)
        for pattern in patterns
    )

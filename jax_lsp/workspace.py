"""The other modules of a workspace, as the engine sees them: what the functions a document
imports from them return (`jax_lsp.analysis.infer` reads the imported module and builds our own
model of it), and, for a face that can ask jedi, the questions the engine could not answer and
jedi's cached answers.

Every face keeps one `Workspace` and hands it to `jax_lsp.engine.check_source` with each text:
the CLI without jedi (`check` stays fast and deterministic), the server with jedi's answers
(asked by `jax_lsp.lsp.crossmodule`). Nothing here imports or runs the code it reads.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping
from pathlib import Path

from jax_lsp.analysis.crossing import NO_FOREIGN, ForeignDefinitions, IncomingTrace, passed_in
from jax_lsp.analysis.document import Document
from jax_lsp.analysis.external import imports_a_wrapper, with_answers
from jax_lsp.analysis.infer import (
    CallSite,
    ExternalFacts,
    ModuleFactsCache,
    call_sites,
    document_file,
    file_stamp,
    imported_bindings,
    local_external_facts,
)
from jax_lsp.analysis.model import ModuleModel
from jax_lsp.analysis.project import ProjectTraces, WorkspaceForeign
from jax_lsp.analysis.workspace import (
    Target,
    file_system_trusted,
    module_file,
    real_file,
    search_roots,
)

# What a question to jedi is cached under: (document path, call spelling, target, imported
# module file stamp). A new version of the imported module asks again.
AnswerKey = tuple[str | None, str, Target, tuple[int, int] | None]

# Lines of the project's modules whose parses a `check` run keeps (see `trust_files`).
_BATCH_MODEL_LINES = 120_000

__all__ = [
    "AnswerKey",
    "CallSite",
    "ExternalFacts",
    "TraceRounds",
    "Workspace",
    "file_system_trusted",  # for `check` (one run, whose files stay where they are)
]


class Workspace:
    """Cross-module facts for the documents of one workspace (the folder `root`; None: only
    the document's own folder is searched). `open_text` gives an open document's unsaved text
    (None: files are read from disk); `others_edited(path)`, a token that changes whenever an
    open document other than the file at `path` is opened, closed or edited (None: the
    project's traces confirm every open document at each keystroke). `asks_jedi`: the face
    asks jedi what the engine cannot answer, so the questions are worth computing.

    Engine thread only, except `remember`: the engine's caches are not shared between threads.
    """

    def __init__(
        self,
        root: str | None = None,
        open_text: Callable[[str], str | None] | None = None,
        asks_jedi: bool = False,
        others_edited: Callable[[str], Hashable] | None = None,
    ) -> None:
        self.asks_jedi = asks_jedi
        self._modules = ModuleFactsCache(open_text)
        self._answers: dict[AnswerKey, ExternalFacts | None] = {}
        self._traces = ProjectTraces(root, self._modules, self._foreign, others_edited)
        # The traces each file receives, from `check`'s rounds: None while they are found on
        # demand from the importers (the editor).
        self._given: TraceRounds | None = None

    @property
    def root(self) -> str | None:
        return self._traces.root

    @root.setter
    def root(self, root: str | None) -> None:
        # The editor learns its root after the workspace is made (`initialize`): the
        # project's traces read their importers from it as `check` does.
        self._traces.root = root

    def trust_files(self) -> None:
        """The workspace's files do not change while it is used (one `check` run): the
        project's file index is read once."""
        self._traces.fresh_seconds = float("inf")
        self._modules.model_lines = _BATCH_MODEL_LINES
        self._modules.trusted = True

    def files_changed(self, paths: list[str]) -> None:
        """The files at `paths` changed on disk, or were made or removed (the editor's file
        watcher says so): what was read from them, and which module imports which, is read
        again at the next ask."""
        self._modules.expire(paths)
        self._traces.files_changed()

    def incoming(self, document: Document, x64: bool) -> tuple[IncomingTrace, ...]:
        """The traces the project's other modules give the document's functions (their
        traced code calls or transforms them)."""
        if self._given is not None:
            path = document_file(document)
            return self._given.incoming(real_file(path)) if path is not None else ()
        return self._traces.incoming(document, x64)

    def drop_stale(self) -> list[str]:
        """The files whose traces, gathered from their importers, changed with what those
        read (`ProjectTraces.drop_stale`): to be analysed again."""
        return self._traces.drop_stale()

    def traces_known(self, path: str | None) -> bool:
        """Does `incoming` know the traces given to the file at `path` without reading the
        project (they were gathered before, or `check`'s rounds give them)?"""
        return path is None or self._given is not None or self._traces.gathered(path)

    def give(self, rounds: TraceRounds) -> None:
        """Answer `incoming` from `rounds` (`check`'s), instead of reading each module's
        importers."""
        self._given = rounds

    def given_to(self, path: str) -> tuple[IncomingTrace, ...]:
        """The traces `give`'s rounds give the file at `path` now."""
        return self._given.incoming(real_file(path)) if self._given is not None else ()

    def importers_first(self, files: list[str]) -> list[str]:
        """`files`, the modules of each top folder together, each module after its importers
        where the imports allow (see `ProjectTraces.importers_first`)."""
        return self._traces.importers_first(files)

    def linked_groups(self, files: list[str]) -> dict[str, int]:
        """Each of `files` -> the number of its group of files linked by imports (see
        `ProjectTraces.linked_groups`): `check` gives each worker whole groups."""
        return self._traces.linked_groups(files)

    def outgoing(self, model: ModuleModel) -> dict[str, tuple[IncomingTrace, ...]]:
        """The traces the module's traced code gives functions of other project modules, by
        their file."""
        document = model.document
        if not self._traces.may_trace(document.text, model.incoming) and not imports_a_wrapper(
            model.external
        ):
            return {}
        foreign = self._foreign(document, passed_in(model.incoming))
        if foreign is NO_FOREIGN:
            return {}  # it imports nothing of the project, nor is given objects of it
        return _by_file(model, foreign)

    def traces_given_by(self, path: str) -> dict[str, tuple[IncomingTrace, ...]]:
        """`outgoing` of the project module at `path`, from its model alone: no rule runs on
        it, and what its imports return is not read (the model its importers read facts from
        serves, unless it is traced itself). For the modules `check` reads for the traces
        they give, not for their findings."""
        file = Path(real_file(path))
        entry = self._modules.entry(file)
        if entry is None:
            return {}
        given = self._given.incoming(str(file)) if self._given is not None else ()
        if not self._traces.may_trace(self._modules.text(file, entry), given):
            document = self._modules.document(file, entry)
            if document is None or not self._traces.applies_imported_wrapper(document):
                return {}  # answered from its text and its imports' facts
        built = self._traces.model_given(str(file), entry, False, lambda _document: given)
        return _by_file(*built) if built is not None else {}

    def read_ahead(
        self, files: list[str], map_files: Callable[[Callable[[str], object], list[str]], list]
    ) -> None:
        """Read the project's import statements through `map_files` (`check`'s worker
        processes; see `ProjectTraces.read_ahead`)."""
        self._traces.read_ahead(files, map_files)

    def tracing_files(self, files: list[str]) -> list[str]:
        """The project files, other than `files`, whose traced code may reach them (see
        `ProjectTraces.tracing_files`)."""
        return self._traces.tracing_files(files)

    def _foreign(self, document: Document, passed_in: bool = False) -> ForeignDefinitions:
        """The definitions the document's imports name in the project's other modules.
        `passed_in`: its importers pass objects of the project's classes in (then it reads
        those classes, imported or not)."""
        path = document_file(document)
        roots = search_roots(self.root, path)
        if not roots:
            return NO_FOREIGN
        bindings = imported_bindings(document, path, roots, self._modules)
        if not bindings[0] and not bindings[1] and not passed_in:
            return NO_FOREIGN
        return WorkspaceForeign(bindings, roots, self._modules, self._traces.definitions)

    def facts(
        self, document: Document
    ) -> tuple[dict[str, ExternalFacts], dict[AnswerKey, CallSite]]:
        """Facts known now about the document's imported callables (the engine's, and jedi's
        cached answers), and what jedi should be asked: call sites by answer key (none unless
        `asks_jedi`)."""
        facts, unanswered = local_external_facts(document, self.root, self._modules)
        if not unanswered or not self.asks_jedi:
            return facts, {}
        path = document_file(document)
        roots = search_roots(self.root, path)
        pending: dict[AnswerKey, str] = {}
        answered: dict[str, ExternalFacts] = {}
        for spelling, target in unanswered.items():
            key = (path, spelling, target, file_stamp(module_file(target.module, roots)))
            if key in self._answers:
                answer = self._answers[key]
                if answer is not None:
                    answered[spelling] = answer
            else:
                pending[key] = spelling
        facts = with_answers(facts, answered)
        sites = call_sites(document, set(pending.values()))
        # A name never called (a bare decorator, `@override`) has no site to ask about.
        return facts, {key: sites[name] for key, name in pending.items() if name in sites}

    def parsed(self, path: str | None, text: str) -> Document | None:
        """A parse of `text` made for the module at `path` when another module imported it,
        if one is kept (see `ModuleFactsCache.parsed`): a `check` run analyses most modules
        it has read as an import already."""
        return self._modules.parsed(path, text)

    def analysed(self, model: ModuleModel) -> None:
        """The model an analysis built: kept in case a module checked later imports this one
        (`ModuleFactsCache.offer`)."""
        self._modules.offer(model)

    def remember(self, key: AnswerKey, answer: ExternalFacts | None) -> None:
        """jedi's answer to one question (None: it found no array), for every later version."""
        self._answers[key] = answer


def _by_file(
    model: ModuleModel, foreign: ForeignDefinitions
) -> dict[str, tuple[IncomingTrace, ...]]:
    found: dict[str, list[IncomingTrace]] = {}
    for function, seed in model.outgoing_traces(foreign):
        found.setdefault(function.file, []).append(seed)
    return {file: tuple(seeds) for file, seeds in found.items()}


# Rounds of `check` at most: a chain of modules each traced by the one before it is settled
# one module a round.
_MAX_ROUNDS = 24


class TraceRounds:
    """`check`'s project pass. Every module is analysed with the traces the others give it so
    far, and its analysis tells the traces its module gives the others (`record`). A module
    given other traces than it was analysed with is analysed again (`to_redo`), until none is:
    each module is modelled once, and again only when traces reach it late, instead of each
    module's importers being modelled for it on demand. A worker analyses with a `view` it
    records into as it goes: modules ordered importers first (`Workspace.importers_first`)
    then receive most of their traces in the first round."""

    def __init__(self) -> None:
        self._gives: dict[str, dict[str, tuple[IncomingTrace, ...]]] = {}
        self._sources: dict[str, set[str]] = {}  # target -> the files giving it traces
        self._analysed_with: dict[str, tuple[IncomingTrace, ...]] = {}
        self._names: dict[str, str] = {}  # each file as `record` was given it
        self.rounds = 0

    def incoming(self, file: str) -> tuple[IncomingTrace, ...]:
        """The traces the file (links resolved) receives: from each file giving some, in the
        order of their paths (as the editor's importers give them)."""
        sources = self._sources.get(file)
        if not sources:
            return ()
        return tuple(trace for source in sorted(sources) for trace in self._gives[source][file])

    def view(self) -> TraceRounds:
        """A copy to record into apart from this one (a worker's)."""
        copy = TraceRounds()
        copy._gives = dict(self._gives)
        copy._sources = {target: set(sources) for target, sources in self._sources.items()}
        return copy

    def record(
        self,
        name: str,
        gives: Mapping[str, tuple[IncomingTrace, ...]],
        analysed_with: tuple[IncomingTrace, ...],
    ) -> None:
        """The file `name` was analysed with the traces `analysed_with`, and gives `gives`
        (by file)."""
        file = real_file(name)
        self._names[file] = name
        self._analysed_with[file] = analysed_with
        for target in self._gives.get(file, ()):
            self._sources[target].discard(file)
        given = {real_file(target): traces for target, traces in gives.items()}
        given.pop(file, None)
        self._gives[file] = given
        for target in given:
            self._sources.setdefault(target, set()).add(file)

    def to_redo(self) -> list[str]:
        """The files analysed with other traces than they now receive, named as `record` was
        given them (none once the traces hold, or after `_MAX_ROUNDS`)."""
        self.rounds += 1
        if self.rounds >= _MAX_ROUNDS:
            return []
        return sorted(self._names[file] for file in self._analysed_with if self._stale(file))

    def receivers(self) -> list[str]:
        """The files, not analysed here, that analysed files pass objects of the classes of
        analysed files to (`IncomingTrace.param_classes`): what they do with those objects
        (`lax.scan(cell.step, ...)`) may trace the classes' methods, though they need not
        import their modules. `check` of some files only analyses these too, as the editor
        reads them for a module's traces (`ProjectTraces._gather`)."""
        analysed = self._analysed_with
        return sorted(
            target
            for target, sources in self._sources.items()
            if target not in analysed
            and any(
                real_file(origin) in analysed
                for source in sources
                for seed in self._gives[source][target]
                for _, origin, _ in seed.param_classes
            )
        )

    def stale(self, name: str) -> bool:
        """Was the file `name` analysed, here, with other traces than it now receives?"""
        file = real_file(name)
        return file in self._analysed_with and self._stale(file)

    def _stale(self, file: str) -> bool:
        return self.incoming(file) != self._analysed_with[file]

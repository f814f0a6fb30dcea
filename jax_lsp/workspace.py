"""The other modules of a workspace, as the engine sees them: what the functions a document
imports from them return (`jax_lsp.analysis.infer` reads the imported module and builds our own
model of it), and, for a face that can ask jedi, the questions the engine could not answer and
jedi's cached answers.

Every face keeps one `Workspace` and hands it to `jax_lsp.engine.check_source` with each text:
the CLI without jedi (`check` stays fast and deterministic), the server with jedi's answers
(asked by `jax_lsp.lsp.crossmodule`). Nothing here imports or runs the code it reads.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from jax_lsp.analysis.crossing import NO_FOREIGN, ForeignDefinitions, IncomingTrace
from jax_lsp.analysis.document import Document
from jax_lsp.analysis.external import with_answers
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
from jax_lsp.analysis.project import ProjectTraces, WorkspaceForeign
from jax_lsp.analysis.workspace import Target, module_file, search_roots

if TYPE_CHECKING:
    from jax_lsp.analysis.model import ModuleModel

# What a question to jedi is cached under: (document path, call spelling, target, imported
# module file stamp). A new version of the imported module asks again.
AnswerKey = tuple[str | None, str, Target, tuple[int, int] | None]

__all__ = ["AnswerKey", "CallSite", "ExternalFacts", "Workspace"]


class Workspace:
    """Cross-module facts for the documents of one workspace (the folder `root`; None: only
    the document's own folder is searched). `open_text` gives an open document's unsaved text
    (None: files are read from disk). `asks_jedi`: the face asks jedi what the engine cannot
    answer, so the questions are worth computing.

    Engine thread only, except `remember`: the engine's caches are not shared between threads.
    """

    def __init__(
        self,
        root: str | None = None,
        open_text: Callable[[str], str | None] | None = None,
        asks_jedi: bool = False,
    ) -> None:
        self.root = root
        self.asks_jedi = asks_jedi
        self._modules = ModuleFactsCache(open_text)
        self._answers: dict[AnswerKey, ExternalFacts | None] = {}
        self._traces = ProjectTraces(root, self._modules, self._inputs)

    def incoming(self, document: Document, x64: bool) -> tuple[IncomingTrace, ...]:
        """The traces the project's other modules give the document's functions (their
        traced code calls or transforms them)."""
        return self._traces.incoming(document, x64)

    def _foreign(self, document: Document) -> ForeignDefinitions:
        path = document_file(document)
        roots = search_roots(self.root, path)
        if not roots:
            return NO_FOREIGN
        bindings = imported_bindings(document, path, roots, self._modules)
        if not bindings[0] and not bindings[1]:
            return NO_FOREIGN
        return WorkspaceForeign(bindings, roots, self._modules)

    def _inputs(
        self, document: Document, x64: bool
    ) -> tuple[dict[str, ExternalFacts], tuple[IncomingTrace, ...], ForeignDefinitions]:
        """A project module's model inputs, as an analysis of it gathers them (without jedi)."""
        external, _ = local_external_facts(document, self.root, self._modules)
        return external, self.incoming(document, x64), self._foreign(document)

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
        return facts, {key: sites[spelling] for key, spelling in pending.items()}

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

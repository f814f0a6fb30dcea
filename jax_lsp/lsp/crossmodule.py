"""Cross-module facts for the server: functions imported from other workspace modules.

The engine's answers (it reads the imported module and builds our own model of it) cost a few
milliseconds and are computed with the analysis, on the engine thread. What the engine cannot
answer goes to jedi, on a thread of its own: the analysis waits for it at most `BUDGET`
seconds, then publishes without those facts and publishes again when jedi's answer arrives.
jedi's answers are cached per imported name and imported module file, so the next versions of
the document reuse them.
"""

from __future__ import annotations

import asyncio
import logging
from concurrent.futures import Future, ThreadPoolExecutor

from pygls.uris import from_fs_path

from jax_lsp.analysis.document import Document
from jax_lsp.analysis.infer import (
    CallSite,
    ExternalFacts,
    ModuleFactsCache,
    call_sites,
    document_file,
    file_stamp,
    local_external_facts,
)
from jax_lsp.analysis.jedi_oracle import JediOracle
from jax_lsp.analysis.workspace import Target, module_file, search_roots
from jax_lsp.lsp.documents import DocumentStore

log = logging.getLogger(__name__)

BUDGET = 0.3  # seconds an analysis waits for jedi per document version

# (document path, call spelling, target, imported module file stamp)
AnswerKey = tuple[str | None, str, Target, tuple[int, int] | None]


class CrossModuleFacts:
    def __init__(self, documents: DocumentStore) -> None:
        self._documents = documents
        # Engine thread only: the engine's caches are not shared between threads.
        self._modules = ModuleFactsCache(self._open_text)
        self._jedi = ThreadPoolExecutor(max_workers=1, thread_name_prefix="jax-lsp-jedi")
        self._oracles: dict[str | None, JediOracle] = {}
        self._answers: dict[AnswerKey, ExternalFacts | None] = {}
        self._warming: Future | None = None
        self._in_flight: dict[AnswerKey, asyncio.Future] = {}  # jedi jobs running or queued

    def _open_text(self, path: str) -> str | None:
        """An open document's current text (its unsaved edits count)."""
        document = self._documents.get(from_fs_path(path) or "")
        return document.text if document is not None else None

    def _oracle(self, root: str | None) -> JediOracle:
        if root not in self._oracles:
            self._oracles[root] = JediOracle(root)
        return self._oracles[root]

    def warm(self, root: str | None) -> None:
        """Start loading jedi in the background (it takes seconds when cold), once. The
        server calls this after the first analysis, or a moment after start-up: jedi's
        Python work shares the GIL, and the first diagnostics must not wait for it."""
        if self._warming is None:
            self._warming = self._jedi.submit(self._oracle(root).warm)

    # -- engine thread -------------------------------------------------------------------------
    def engine_side(
        self, document: Document, root: str | None
    ) -> tuple[dict[str, ExternalFacts], dict[AnswerKey, CallSite]]:
        """Facts known now (the engine's, and jedi's cached answers), and what jedi should be
        asked: call sites by answer key."""
        facts, unanswered = local_external_facts(document, root, self._modules)
        if not unanswered:
            return facts, {}
        path = document_file(document)
        roots = search_roots(root, path)
        pending: dict[AnswerKey, str] = {}
        for spelling, target in unanswered.items():
            key = (path, spelling, target, file_stamp(module_file(target.module, roots)))
            if key in self._answers:
                answer = self._answers[key]
                if answer is not None:
                    facts[spelling] = answer
            else:
                pending[key] = spelling
        sites = call_sites(document, set(pending.values()))
        return facts, {key: sites[spelling] for key, spelling in pending.items()}

    # -- jedi thread ---------------------------------------------------------------------------
    def ask_jedi(
        self, text: str, path: str | None, root: str | None, questions: dict[AnswerKey, CallSite]
    ) -> tuple[asyncio.Future, bool]:
        """Ask jedi in the background (event loop only). The future resolves to the facts
        found; every answer, negative ones too, is cached. A question already in flight (asked
        for an earlier version) is not asked again: then the bool is False, and waiting for
        it again would only delay this version's diagnostics."""
        oracle = self._oracle(root)
        fresh = {key: site for key, site in questions.items() if key not in self._in_flight}
        if fresh:
            sites = {key[1]: site for key, site in fresh.items()}

            def work() -> dict[str, ExternalFacts]:
                found = oracle.returns_array(text, path, sites)
                for key in fresh:
                    self._answers[key] = found.get(key[1])
                return found

            job = asyncio.wrap_future(self._jedi.submit(work))
            for key in fresh:
                self._in_flight[key] = job
            job.add_done_callback(lambda _: [self._in_flight.pop(key, None) for key in fresh])
        jobs = {id(job): job for job in (self._in_flight[key] for key in questions)}

        async def collect() -> dict[str, ExternalFacts]:
            found: dict[str, ExternalFacts] = {}
            for answer in await asyncio.gather(*jobs.values()):
                found.update(answer)
            return {key[1]: found[key[1]] for key in questions if key[1] in found}

        return asyncio.ensure_future(collect()), bool(fresh)

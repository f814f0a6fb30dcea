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
import os
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

from pygls.uris import from_fs_path

from jax_lsp.analysis.document import Document
from jax_lsp.analysis.infer import (
    CallSite,
    ExternalFacts,
    ModuleFactsCache,
    Target,
    call_sites,
    local_external_facts,
    module_file,
    search_roots,
)
from jax_lsp.analysis.jedi_oracle import JediOracle
from jax_lsp.lsp.documents import DocumentStore

log = logging.getLogger(__name__)

BUDGET = 0.3  # seconds an analysis waits for jedi per document version

# (document path, call spelling, target, imported module file stamp)
AnswerKey = tuple[str | None, str, Target, tuple[int, int] | None]


def _stamp(file: Path | None) -> tuple[int, int] | None:
    try:
        status = os.stat(file) if file else None
    except OSError:
        return None
    return (status.st_mtime_ns, status.st_size) if status else None


class CrossModuleFacts:
    def __init__(self, documents: DocumentStore) -> None:
        self._documents = documents
        # Engine thread only: the engine's caches are not shared between threads.
        self._modules = ModuleFactsCache(self._read_text)
        self._jedi = ThreadPoolExecutor(max_workers=1, thread_name_prefix="jax-lsp-jedi")
        self._oracles: dict[str | None, JediOracle] = {}
        self._answers: dict[AnswerKey, ExternalFacts | None] = {}

    def _read_text(self, path: str) -> str | None:
        """An open document's current text, else the file on disk."""
        document = self._documents.get(from_fs_path(path) or "")
        if document is not None:
            return document.text
        try:
            with open(path, encoding="utf-8") as handle:
                return handle.read()
        except (OSError, UnicodeDecodeError):
            return None

    def _oracle(self, root: str | None) -> JediOracle:
        if root not in self._oracles:
            self._oracles[root] = JediOracle(root)
        return self._oracles[root]

    def warm(self, root: str | None) -> Future:
        """Start loading jedi in the background (it takes seconds when cold)."""
        return self._jedi.submit(self._oracle(root).warm)

    # -- engine thread -------------------------------------------------------------------------
    def engine_side(
        self, document: Document, root: str | None
    ) -> tuple[dict[str, ExternalFacts], dict[AnswerKey, CallSite]]:
        """Facts known now (the engine's, and jedi's cached answers), and what jedi should be
        asked: call sites by answer key."""
        facts, unanswered = local_external_facts(document, root, self._modules)
        if not unanswered:
            return facts, {}
        path = document.path if os.path.isabs(document.path) else None
        roots = search_roots(root, path)
        pending: dict[AnswerKey, str] = {}
        for spelling, target in unanswered.items():
            key = (path, spelling, target, _stamp(module_file(target.module, roots)))
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
    ) -> asyncio.Future:
        """Ask jedi in the background; the future resolves to the facts found (and caches
        every answer, negative ones too)."""
        oracle = self._oracle(root)
        sites = {key[1]: site for key, site in questions.items()}

        def work() -> dict[str, ExternalFacts]:
            found = oracle.returns_array(text, path, sites)
            for key in questions:
                self._answers[key] = found.get(key[1])
            return found

        return asyncio.wrap_future(self._jedi.submit(work))

    def shutdown(self) -> None:
        self._jedi.shutdown(wait=False, cancel_futures=True)

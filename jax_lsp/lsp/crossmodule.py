"""Cross-module facts for the server: functions imported from other workspace modules.

The engine's answers (it reads the imported module and builds our own model of it) cost a few
milliseconds and are computed with the analysis, on the engine thread. What the engine cannot
answer goes to jedi, in a worker process of its own (`jedi_worker`: jedi is pure Python, and on
a thread its seconds of cold inference would hold the GIL and slow every keystroke): the analysis
waits for it at most `BUDGET` seconds, then publishes without those facts and publishes again
when jedi's answer arrives. jedi's answers are cached per imported name and imported module
file, so the next versions of the document reuse them.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import logging
import subprocess
import sys
import threading
from concurrent.futures import Future

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
from jax_lsp.analysis.workspace import Target, module_file, search_roots
from jax_lsp.lsp.documents import DocumentStore

log = logging.getLogger(__name__)

BUDGET = 0.3  # seconds an analysis waits for jedi per document version

# (document path, call spelling, target, imported module file stamp)
AnswerKey = tuple[str | None, str, Target, tuple[int, int] | None]


class JediWorker:
    """The jedi worker process (`jax_lsp.lsp.jedi_worker`), started on first use. Requests
    are answered in order; each returns a concurrent Future of the spellings found."""

    def __init__(self) -> None:
        self._process: subprocess.Popen | None = None
        self._lock = threading.Lock()
        self._waiting: dict[int, Future] = {}
        self._ids = itertools.count(1)

    def _start(self) -> subprocess.Popen:
        if self._process is None or self._process.poll() is not None:
            self._process = subprocess.Popen(
                [sys.executable, "-m", "jax_lsp.lsp.jedi_worker"],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                text=True,
                encoding="utf-8",
            )
            threading.Thread(
                target=self._read, args=(self._process,), name="jax-lsp-jedi", daemon=True
            ).start()
        return self._process

    def request(self, **payload) -> Future:
        future: Future = Future()
        with self._lock:
            try:
                process = self._start()
                number = next(self._ids)
                self._waiting[number] = future
                process.stdin.write(json.dumps({"id": number, **payload}) + "\n")
                process.stdin.flush()
            except OSError as error:
                future.set_exception(error)
        return future

    def _read(self, process: subprocess.Popen) -> None:
        for line in process.stdout:
            try:
                answer = json.loads(line)
            except json.JSONDecodeError:
                continue
            with self._lock:
                future = self._waiting.pop(answer.get("id"), None)
            if future is not None and not future.done():
                future.set_result(answer.get("arrays", []))
        with self._lock:  # the worker died: nobody answers what is still waiting
            waiting, self._waiting = self._waiting, {}
        for future in waiting.values():
            if not future.done():
                future.set_exception(RuntimeError("the jedi worker exited"))

    def close(self) -> None:
        with self._lock:
            process, self._process = self._process, None
        if process is not None and process.poll() is None:
            process.stdin.close()  # the worker exits on end of input
            try:
                process.wait(timeout=2)
            except subprocess.TimeoutExpired:
                process.kill()


class CrossModuleFacts:
    def __init__(self, documents: DocumentStore) -> None:
        self._documents = documents
        # Engine thread only: the engine's caches are not shared between threads.
        self._modules = ModuleFactsCache(self._open_text)
        self._jedi = JediWorker()  # started on first use
        self._answers: dict[AnswerKey, ExternalFacts | None] = {}
        self._warming: Future | None = None
        self._in_flight: dict[AnswerKey, asyncio.Future] = {}  # jedi jobs running or queued

    def _open_text(self, path: str) -> str | None:
        """An open document's current text (its unsaved edits count)."""
        document = self._documents.get(from_fs_path(path) or "")
        return document.text if document is not None else None

    def warm(self, root: str | None) -> None:
        """Start loading jedi in the background (it takes seconds when cold), once. The
        server calls this after the first analysis, or a moment after start-up: jedi's
        Python work shares the GIL, and the first diagnostics must not wait for it."""
        if self._warming is None:
            self._warming = self._jedi.request(op="warm", root=root)

    def close(self) -> None:
        """Stop the jedi worker (at shutdown)."""
        self._jedi.close()

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
        fresh = {key: site for key, site in questions.items() if key not in self._in_flight}
        if fresh:
            sites = {key[1]: site for key, site in fresh.items()}
            request = self._jedi.request(
                op="returns_array",
                root=root,
                text=text,
                path=path,
                sites={name: [site.line, site.column] for name, site in sites.items()},
            )
            job = asyncio.wrap_future(request)

            def remember(done: asyncio.Future) -> None:
                if not done.cancelled() and done.exception() is None:
                    arrays = set(done.result())
                    for key in fresh:
                        found = key[1] in arrays
                        self._answers[key] = ExternalFacts(True, origin="jedi") if found else None
                for key in fresh:
                    self._in_flight.pop(key, None)

            for key in fresh:
                self._in_flight[key] = job
            job.add_done_callback(remember)
        jobs = {id(job): job for job in (self._in_flight[key] for key in questions)}

        async def collect() -> dict[str, ExternalFacts]:
            found: dict[str, ExternalFacts] = {}
            for arrays in await asyncio.gather(*jobs.values(), return_exceptions=True):
                if isinstance(arrays, list):
                    found.update({name: ExternalFacts(True, origin="jedi") for name in arrays})
            return {key[1]: found[key[1]] for key in questions if key[1] in found}

        return asyncio.ensure_future(collect()), bool(fresh)

"""Cross-module facts for the server: functions imported from other workspace modules.

The engine's answers (it reads the imported module and builds our own model of it) cost a few
milliseconds and are computed with the analysis, on the engine thread (`jax_lsp.workspace`).
What the engine cannot answer goes to jedi, in a worker process of its own (`jedi_worker`: jedi
is pure Python, and on a thread its seconds of cold inference would hold the GIL and slow every
keystroke). The worker starts once the server's first diagnostics are out; once jedi is loaded
in it, an analysis waits for it at most `BUDGET` seconds, then publishes without those facts
and publishes again when jedi's answer arrives. jedi's answers are cached in the engine's
`Workspace` per imported name and imported module file, so the next versions of the document
reuse them.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import logging
import os
import queue
import subprocess
import threading
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass
from functools import partial

from pygls.uris import from_fs_path

from jax_lsp.import_path import module_command
from jax_lsp.lsp.documents import DocumentStore
from jax_lsp.workspace import AnswerKey, CallSite, ExternalFacts, Workspace

log = logging.getLogger(__name__)

BUDGET = 0.3  # seconds an analysis waits for jedi per document version
_MAX_URIS = 4096

Questions = dict[AnswerKey, CallSite]  # what an analysis left for jedi, by answer key


@dataclass(frozen=True)
class Asker:
    """What asked jedi: a document, or a notebook's code cells analyzed as one module."""

    path: str | None  # the file jedi reads the text as
    current: Callable[[], bool]  # the text asked about is still what is open
    answered: Callable[[], None]  # jedi's answer arrived after the analysis: analyze again


# How long the server, exiting, lets its jedi worker end by itself before killing it.
_EXIT_GRACE_SECONDS = 0.2


class JediWorker:
    """The jedi worker process (`jax_lsp.lsp.jedi_worker`), started on first use. Requests
    are answered in order; each returns a concurrent Future of the spellings found.

    Requests are written by a thread of their own: while the worker is busy (loading jedi takes
    seconds) a large document fills the pipe, and the event loop must never wait for that."""

    def __init__(self) -> None:
        self._process: subprocess.Popen | None = None
        self._outbox: queue.SimpleQueue[tuple[int, dict] | None] | None = None
        self._lock = threading.Lock()
        self._waiting: dict[int, Future] = {}
        self._ids = itertools.count(1)
        self._closed: subprocess.Popen | None = None  # closed without waiting: reaped later

    def _start(self) -> queue.SimpleQueue[tuple[int, dict] | None]:
        """The running worker's outbox (caller holds the lock)."""
        if self._process is None or self._process.poll() is not None:
            if self._outbox is not None:
                self._outbox.put(None)  # the dead worker's writer stops
            self._process = subprocess.Popen(
                # Not from the user's folder; it exits when this process is gone.
                [*module_command("jax_lsp.lsp.jedi_worker"), "--parent", str(os.getpid())],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                text=True,
                encoding="utf-8",
            )
            self._outbox = queue.SimpleQueue()
            for target, args in ((self._read, ()), (self._write, (self._outbox,))):
                threading.Thread(
                    target=target, args=(self._process, *args), name="jax-lsp-jedi", daemon=True
                ).start()
        return self._outbox

    def request(self, **payload) -> Future:
        future: Future = Future()
        with self._lock:
            try:
                outbox = self._start()
            except OSError as error:
                future.set_exception(error)
                return future
            number = next(self._ids)
            self._waiting[number] = future
            # Serialised by the writer: a request waiting its turn holds the document's text,
            # not a JSON copy of it (while jedi loads, every opened file's request waits).
            outbox.put((number, {"id": number, **payload}))
        return future

    def _write(self, process: subprocess.Popen, outbox: queue.SimpleQueue) -> None:
        while (item := outbox.get()) is not None:
            number, message = item
            try:
                process.stdin.write(json.dumps(message) + "\n")
                process.stdin.flush()
            except (OSError, ValueError, TypeError):  # the worker died, its input is closed (or
                # the payload is not JSON: answered as a failure, not the writer stopped)
                self._fail([number])
        with contextlib.suppress(OSError):
            process.stdin.close()  # the worker exits on end of input

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
        self._fail(None)  # the worker exited: nobody answers what is still waiting

    def _fail(self, numbers: list[int] | None) -> None:
        """Fail the requests `numbers` (None: all waiting) with an exception."""
        with self._lock:
            if numbers is None:
                failed, self._waiting = list(self._waiting.values()), {}
            else:
                failed = [self._waiting.pop(n) for n in numbers if n in self._waiting]
        for future in failed:
            if not future.done():
                future.set_exception(RuntimeError("the jedi worker exited"))

    def close(self, wait: bool = True) -> None:
        """Stop the worker: it exits at the end of its input. `wait` (at exit): a moment, then
        kill it, since it holds nothing to save and one still loading jedi reads no input for
        seconds; the editor must not wait for it. A `shutdown` request does not wait at all."""
        with self._lock:
            process, self._process = self._process, None
            outbox, self._outbox = self._outbox, None
        if outbox is not None:
            outbox.put(None)  # the writer closes the worker's input after what is queued
        if not wait:
            self._closed = process
            return
        process = process or self._closed
        if process is not None and process.poll() is None:
            try:
                process.wait(timeout=_EXIT_GRACE_SECONDS)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


class CrossModuleFacts:
    """The server's cross-module facts: the engine's `Workspace` (open documents' unsaved text
    counts) and the jedi worker that answers what the engine cannot."""

    def __init__(self, documents: DocumentStore) -> None:
        self._documents = documents
        # Analyses that had questions for jedi before it was started: (asker, text, root,
        # questions), asked once the first diagnostics are out.
        self._backlog: list[tuple[Asker, str, str | None, Questions]] = []
        # Handed to the engine with every analysis (engine thread only, but for `remember`).
        self.workspace = Workspace(
            open_text=self._open_text, asks_jedi=True, others_edited=self._others_edited
        )
        self._uris: dict[str, str] = {}  # module file -> its uri (`_open_text`)
        self._jedi = JediWorker()  # started on first use
        self._warming: Future | None = None
        self._in_flight: dict[AnswerKey, asyncio.Future] = {}  # jedi jobs running or queued

    def _uri(self, path: str) -> str:
        uri = self._uris.get(path)
        if uri is None:  # asked for each imported module at every keystroke
            if len(self._uris) > _MAX_URIS:
                self._uris.clear()
            uri = self._uris[path] = from_fs_path(path) or ""
        return uri

    def _open_text(self, path: str) -> str | None:
        """An open document's current text (its unsaved edits count)."""
        document = self._documents.get(self._uri(path))
        return document.text if document is not None else None

    def _others_edited(self, path: str) -> int:
        """Grows whenever an open document other than the file at `path` changes."""
        return self._documents.changes_besides(self._uri(path))

    def warm(self, root: str | None) -> None:
        """Start the jedi worker and load jedi in it (seconds when cold), once. The server
        calls this once its first diagnostics are out (or when idle after start-up): on a
        loaded machine the worker's start-up would compete with them for a core."""
        if self._warming is None:
            self._warming = self._jedi.request(op="warm", root=root)

    @property
    def started(self) -> bool:
        """`warm` was called: jedi may be asked."""
        return self._warming is not None

    @property
    def warm_done(self) -> bool:
        """jedi is loaded: it answers within tens of milliseconds, worth waiting for."""
        return self._warming is not None and self._warming.done()

    def close(self, wait: bool = True) -> None:
        """Stop the jedi worker (at shutdown without waiting, at exit waiting for it)."""
        self._jedi.close(wait)

    # -- event loop ----------------------------------------------------------------------------
    async def jedi_within_budget(
        self, asker: Asker, text: str, root: str | None, questions: Questions
    ) -> dict[str, ExternalFacts]:
        """jedi's facts if they arrive within the budget; otherwise none now, and
        `asker.answered()` when they arrive, if `text` is still what is open. Until jedi is
        loaded it cannot answer within the budget: no wait; until it is started (after the
        first diagnostics are out) it is not even asked yet."""
        if not self.started:
            self._backlog.append((asker, text, root, questions))
            return {}
        answers, fresh = self.ask_jedi(text, asker.path, root, questions)
        try:
            budget = BUDGET if fresh and self.warm_done else 0
            return await asyncio.wait_for(asyncio.shield(answers), budget)
        except TimeoutError:
            answers.add_done_callback(partial(self._arrived, asker))
            return {}

    def start_jedi(self, root: str | None) -> None:
        """Start jedi (once) and ask it what the analyses so far left for it."""
        if self.started:
            return
        self.warm(root)
        backlog, self._backlog = self._backlog, []
        for asker, text, asked_root, questions in backlog:
            if asker.current():
                answers, _ = self.ask_jedi(text, asker.path, asked_root, questions)
                answers.add_done_callback(partial(self._arrived, asker))

    @staticmethod
    def _arrived(asker: Asker, answers: asyncio.Future) -> None:
        if answers.cancelled() or answers.exception() is not None or not answers.result():
            return
        if not asker.current():
            return  # a newer version is analyzed with the cached answers
        asker.answered()

    def ask_jedi(
        self, text: str, path: str | None, root: str | None, questions: Questions
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
                        answer = ExternalFacts(True, origin="jedi") if found else None
                        self.workspace.remember(key, answer)
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

"""The server's way into the engine: one worker thread (the engine's caches are not shared
between threads) that the event loop hands work to, and the state only that thread touches.

Every face calls the engine the same way (`jax_lsp.engine.check_source`); what the server adds
is where it runs, the last analysis of each document (the next version re-splits only the units
an edit touched; the hints of the same version read its model), and one analysis per document
state however many requests ask for it.

A keystroke's analysis is usually a few milliseconds, and two hops between threads (there and
back, each a wake-up the operating system schedules) cost a good part of that, far more on a
busy machine. So an analysis expected to be quick runs on the event loop itself when the engine
thread is idle: the loop waits for it as long as it would have waited for the thread's answer,
and the engine's state is still touched by one thread at a time (`_idle` is held by whichever
runs engine work).
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from jax_lsp.config import Settings
from jax_lsp.engine import Analysis, check_source
from jax_lsp.workspace import ExternalFacts, Workspace

_REMEMBERED_ANALYSES = 16  # documents whose last analysis is kept (incremental re-splitting)
# An analysis runs on the event loop when the last one of the same document took less than
# this (and the text did not grow much): the loop is never held up longer than a keystroke's
# analysis would keep its answer waiting anyway. CPU seconds of the thread that ran it: on a
# busy machine the wall-clock time of a 3 ms analysis passed this, and every keystroke then
# paid the two hops between threads, each a wake-up the loaded machine delays further.
INLINE_SECONDS = 0.025
_INLINE_GROWTH = 1.25

_Result = TypeVar("_Result")


class EngineThread:
    def __init__(self, workspace: Workspace) -> None:
        self.workspace = workspace
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="jax-lsp-engine")
        self.jobs = 0  # calls in flight
        # The last analysis of the documents analyzed most recently, and its settings (engine
        # thread only): its parse is where the next version starts, its model what the inlay
        # hints and code lenses of the same version read (settings None: an analysis without
        # the project's traces, whose parse is reused but which `latest` does not give).
        self._last: OrderedDict[str, tuple[Settings | None, Analysis]] = OrderedDict()
        # uri -> (the state analyzed, its analysis): one analysis per state however many ask
        self._analyzing: dict[str, tuple[tuple, asyncio.Future]] = {}
        # Held by whoever runs engine work (the thread, or the loop inline): one at a time.
        self._idle = threading.Lock()
        # uri -> (seconds, text length) of its last check: whether the next may run inline.
        self._cost: dict[str, tuple[float, int]] = {}

    async def run(
        self, function: Callable[..., _Result], *args: Any, inline: bool = False
    ) -> _Result:
        """`function(*args)` on the engine thread (event loop only); with `inline`, on the loop
        itself if the engine thread is idle (for work `quick` expects to be short)."""
        if inline and self._idle.acquire(False):
            try:
                return function(*args)
            finally:
                self._idle.release()
        self.jobs += 1
        try:
            return await asyncio.get_running_loop().run_in_executor(
                self._executor, self._exclusive, function, *args
            )
        finally:
            self.jobs -= 1

    def _exclusive(self, function: Callable[..., _Result], *args: Any) -> _Result:
        with self._idle:
            return function(*args)

    def quick(self, uri: str, text: str) -> bool:
        """Is a check of `text`, the version of `uri` now, expected to be quick? Yes when the
        last one took little time and the text has not grown much since (a paste)."""
        cost = self._cost.get(uri)
        return (
            cost is not None
            and cost[0] < INLINE_SECONDS
            and len(text) <= _INLINE_GROWTH * cost[1] + 1000
        )

    def check(
        self,
        uri: str,
        text: str,
        path: str | None,
        settings: Settings,
        answers: Mapping[str, ExternalFacts] | None = None,
        known_lines: list[str] | None = None,
        project_traces: bool = True,
    ) -> Analysis:
        """The engine's analysis of `text`, the version of `uri` now (engine thread only), with
        the workspace's cross-module facts and jedi's `answers` (`project_traces`: see
        `check_source`)."""
        last = self._last.pop(uri, None)
        previous = last[1].document if last is not None else None
        started = time.thread_time()
        analysis = check_source(
            text,
            path,
            settings,
            self.workspace,
            answers=answers,
            previous=previous,
            known_lines=known_lines,
            project_traces=project_traces,
        )
        if project_traces:  # without them, no measure of the next check's cost (`quick`)
            self._cost[uri] = (time.thread_time() - started, len(text))
        if analysis.document is not None:
            self._last[uri] = (settings if project_traces else None, analysis)
        if len(self._last) > _REMEMBERED_ANALYSES:
            forgotten, _ = self._last.popitem(last=False)
            self._cost.pop(forgotten, None)
        return analysis

    def check_unopened(self, text: str, path: str, settings: Settings) -> Analysis:
        """The engine's analysis of a file that is not open (engine thread only): kept
        nowhere, so the open documents keep their last analyses; its unit findings are not
        kept for a next version either (a file on disk seldom has one)."""
        return check_source(text, path, settings, self.workspace, reuse_findings=False)

    def latest(self, uri: str, text: str, path: str | None, settings: Settings) -> Analysis:
        """The last analysis of `uri` if it was of `text` under `settings` (the diagnostics'
        own, jedi's answers included), else a new one (engine thread only)."""
        last = self._last.get(uri)
        if last is not None and last[0] == settings and last[1].document.text == text:
            return last[1]
        return self.check(uri, text, path, settings)

    def last(self, uri: str) -> Analysis | None:
        """The last analysis of `uri`, of whatever text (engine thread only)."""
        last = self._last.get(uri)
        return last[1] if last is not None else None

    def forget(self, uri: str) -> None:
        """`uri` was closed: drop its last parse (on the engine thread, whose state it is)."""
        self._cost.pop(uri, None)
        self._executor.submit(self._exclusive, self._last.pop, uri, None)

    async def once(self, uri: str, key: tuple, analysis: Callable[[], Awaitable[Any]]) -> Any:
        """`analysis()` of `uri` in state `key`, run once however many ask for it meanwhile
        (a publication, a code action, a hover on the same version)."""
        running = self._analyzing.get(uri)
        if running is None or running[0] != key:
            running = (key, _Shared(analysis()))
            self._analyzing[uri] = running
            running[1].finished.append(lambda started=running: self._forget(uri, started))
        # A future of the caller's own: a caller cancelled by a newer edit leaves the analysis
        # to the others.
        return await running[1].outcome()

    def _forget(self, uri: str, started: tuple[tuple, _Shared]) -> None:
        if self._analyzing.get(uri) is started:
            del self._analyzing[uri]

    def invalidate(self, uri: str) -> None:
        """The analysis of `uri` running now is out of date (new facts): the next caller
        starts another."""
        self._analyzing.pop(uri, None)


class _Shared:
    """A coroutine run as one task whose outcome every caller awaits on a future of its own,
    handed to each in the task's last step: one loop iteration sooner than a shielded task's
    done callbacks pass it on (then the caller wakes one iteration later still)."""

    def __init__(self, coroutine: Awaitable[Any]) -> None:
        self._waiting: list[asyncio.Future] = []
        # (result, error) once known; error is a CancelledError if the task was cancelled
        self._outcome: tuple[Any, BaseException | None] | None = None
        self.finished: list[Callable[[], None]] = []  # called first, when the outcome is known
        self._task = asyncio.ensure_future(self._run(coroutine))

    async def _run(self, coroutine: Awaitable[Any]) -> None:
        try:
            self._outcome = (await coroutine, None)
        except (Exception, asyncio.CancelledError) as error:
            self._outcome = (None, error)
        # Dropped once called: a callback holds what refers to this object (`once` passes the
        # entry holding it), a cycle that would keep the analysis it outlived, and all its
        # model reaches, until the cycle collector runs (held off while diagnostics are
        # pending: a burst of opened files kept every one of them).
        finished, self.finished = self.finished, []
        for callback in finished:
            callback()
        result, error = self._outcome
        for waiter in self._waiting:
            if waiter.done():  # its caller was cancelled
                continue
            if isinstance(error, asyncio.CancelledError):
                waiter.cancel()
            elif error is not None:
                waiter.set_exception(error)
            else:
                waiter.set_result(result)
        self._waiting.clear()
        if isinstance(error, asyncio.CancelledError):
            raise error

    async def outcome(self) -> Any:
        if self._outcome is not None:
            result, error = self._outcome
            if error is not None:
                raise error
            return result
        waiter = asyncio.get_running_loop().create_future()
        self._waiting.append(waiter)
        return await waiter

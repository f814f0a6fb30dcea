"""The diagnostics of the project's files that are not open, for a client that pulls them
(LSP 3.17 `workspace/diagnostic`; VS Code's language client does): a helper in `utils.py`
traced by a jitted step in `train.py` shows its findings while only `train.py` is open, and
they go when its `@jax.jit` is removed.

Which files: the Python files under the workspace folders that `jax-lsp check` would check
there (`jax_lsp.files.iter_python_files`: the same excludes and ignore files), at most
`MAX_FILES`, less the open documents (their diagnostics are pulled per document). The list is
read off the event loop and trusted for `LISTING_SECONDS`.

What it costs: a file is analyzed again only when its own file changed on disk (its mtime and
size), the settings changed, or a module it may import or that may import it changed (the
words `Dependents` reads, following the trace graph a few hops further); every other pull
answers `unchanged` from the cache. The analyses run one file at a time on the engine thread,
so an edit's analysis never waits for more than one of them; a pull waits for them at most
`PULL_BUDGET` seconds and the rest follow. When analyses made after an edit (or after a pull
answered without them) change what the client was given, it is asked to pull again
(`workspace/diagnostic/refresh`), if it can be.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from lsprotocol import types
from pygls.uris import from_fs_path, to_fs_path

from jax_lsp.config import Settings
from jax_lsp.files import UnreadableFile, iter_python_files, read_file
from jax_lsp.lsp.conversion import analysis_diagnostics, diagnostic_json
from jax_lsp.lsp.dependents import ModuleWords

if TYPE_CHECKING:
    from jax_lsp.lsp.server_view import ServerView

log = logging.getLogger(__name__)

MAX_FILES = 1000  # files a workspace pull reports at most (the first ones found)
LISTING_SECONDS = 10.0  # how long the list of the project's files is trusted
PULL_BUDGET = 1.0  # seconds a pull waits for analyses; the others are reported later
# Hops through the import graph, past the modules next to a changed one, along which a change
# may still reach a file (a jitted step, the helper it calls, the helper that one calls).
_TRACE_HOPS = 2

Stamp = tuple[int, int] | None  # (mtime in ns, size) of a file; None: it cannot be read


@dataclass(frozen=True)
class _Report:
    """One analysis of a file on disk."""

    stamp: Stamp  # of the file read
    generation: int  # the settings' generation it was analyzed under
    change: int  # how many times a module it may depend on had changed then
    items: list[types.Diagnostic]
    result_id: str  # the same diagnostics, the same id: a pull of them again is `unchanged`
    words: ModuleWords


def _stamp(path: str) -> Stamp:
    try:
        status = os.stat(path)
    except OSError:
        return None
    return status.st_mtime_ns, status.st_size


def _result_id(items: list[types.Diagnostic]) -> str:
    import hashlib  # when the workspace's diagnostics are pulled, not at start-up

    data = json.dumps([diagnostic_json(item) for item in items], sort_keys=True)
    return hashlib.sha1(data.encode("utf-8")).hexdigest()[:20]


def project_files(folders: list[tuple[str, Settings]]) -> tuple[list[str], bool]:
    """The Python files `check` would check under each folder (with its settings), the first
    `MAX_FILES` of them; True if there were more."""
    found: list[str] = []
    seen: set[str] = set()
    for folder, settings in folders:
        for file in iter_python_files([Path(folder)], settings):
            path = str(file)
            if file.suffix not in (".py", ".pyi") or path in seen:
                continue
            if len(found) == MAX_FILES:
                return found, True
            seen.add(path)
            found.append(path)
    return found, False


def reached_files(
    words: Mapping[str, ModuleWords], paths: set[str], names: set[str], imported: set[str]
) -> set[str]:
    """The files whose findings a change of modules may reach: the changed files (`paths`;
    one just closed is reported from disk now), the files (`words`: what each imports and
    defines) that may import a changed module (`names`) or that one may import (`imported`:
    the words of its import statements), and, `_TRACE_HOPS` further, what those import in
    turn (a jitted step, the helper it calls, the helper that one calls)."""
    reached = set(paths)
    frontier = {path for path, known in words.items() if known.reached_by(names, imported)}
    for _ in range(_TRACE_HOPS + 1):
        frontier -= reached
        if not frontier:
            break
        reached |= frontier
        imports = set().union(*(words[path].imports for path in frontier))
        frontier = {path for path, known in words.items() if known.reached_by(set(), imports)}
    return reached


class WorkspaceDiagnostics:
    """Reads and uses the server's state (`ls`: documents, settings, engine, publisher)."""

    def __init__(self, ls: ServerView) -> None:
        self._ls = ls
        self.pulled = False  # the client pulled workspace diagnostics: keep them current
        self._listing: tuple[float, tuple, list[str]] | None = None  # (when, of what, files)
        self._listed: set[str] = set()  # the files of the last listing
        self._told_cut = False
        self._reports: dict[str, _Report] = {}  # file -> its last analysis
        self._changes: dict[str, int] = {}  # file -> how many changes may have reached it
        self._seen: dict[str, Stamp] = {}  # file -> its stamp when last pulled
        self._reported: dict[str, str] = {}  # uri -> the result id the client was given
        self._queued: dict[str, asyncio.Future] = {}  # files to analyze, in order
        self._worker: asyncio.Task | None = None

    # -- the pull -------------------------------------------------------------------------
    async def pull(
        self, params: types.WorkspaceDiagnosticParams
    ) -> types.WorkspaceDiagnosticReport:
        self.pulled = True
        previous = {given.uri: given.value for given in params.previous_result_ids}
        files = await self._files()
        open_paths = {d.path for d in self._ls.documents if d.notebook is None and d.path}
        closed = [path for path in files if path not in open_paths]
        stamps = dict(zip(closed, await asyncio.to_thread(list, map(_stamp, closed)), strict=True))
        # A file changed on disk (saved, a checkout): what may depend on it may change too.
        # Once: a pull that comes before its new analysis sees the same change.
        moved = {path for path in closed if path in self._reports}
        moved = {
            path
            for path in moved
            if stamps[path] != self._seen.get(path, self._reports[path].stamp)
        }
        self._seen.update(stamps)
        if moved:
            words = [self._reports[path].words for path in moved]
            names = set().union(*(w.names for w in words))
            self.changed(moved, names, set().union(*(w.imports for w in words)))
        waiting = {path: self._want(path) for path in closed if not self._valid(path, stamps[path])}
        if waiting:
            await asyncio.wait(waiting.values(), timeout=PULL_BUDGET)
        items: list[types.WorkspaceDocumentDiagnosticReport] = []
        listed: set[str] = set()
        for path in closed:
            uri = from_fs_path(path) or Path(path).as_uri()
            listed.add(uri)
            report = self._reports.get(path)
            if report is None or (path in waiting and not waiting[path].done()):
                continue  # not analyzed yet (or again): a later pull reports it
            self._reported[uri] = report.result_id
            if previous.get(uri) == report.result_id:
                items.append(
                    types.WorkspaceUnchangedDocumentDiagnosticReport(
                        uri=uri, version=None, result_id=report.result_id
                    )
                )
            else:
                items.append(
                    types.WorkspaceFullDocumentDiagnosticReport(
                        uri=uri, version=None, items=report.items, result_id=report.result_id
                    )
                )
        # What the client holds of a file no longer listed (deleted, excluded) goes, unless
        # the file is open: then its own pulls say.
        open_uris = {d.uri for d in self._ls.documents}
        for uri in previous.keys() - listed - open_uris:
            self._reported.pop(uri, None)
            items.append(
                types.WorkspaceFullDocumentDiagnosticReport(uri=uri, version=None, items=[])
            )
        return types.WorkspaceDiagnosticReport(items=items)

    async def _files(self) -> list[str]:
        """The project's files under the workspace folders (read off the event loop)."""
        folders = [to_fs_path(f.uri) for f in self._ls.workspace.folders.values()]
        folders = [folder for folder in folders if folder] or [self._ls.settings.root or ""]
        of = (tuple(folders), self._ls.settings.generation)
        listing = self._listing
        if (
            listing is not None
            and listing[1] == of
            and time.monotonic() - listing[0] < LISTING_SECONDS
        ):
            return listing[2]
        # Each folder's settings as `check` run there takes them (its pyproject.toml).
        chosen = [
            (folder, self._ls.settings.for_path(os.path.join(folder, "pyproject.toml")))
            for folder in folders
            if folder and os.path.isdir(folder)
        ]
        files, cut = await asyncio.to_thread(project_files, chosen)
        if cut and not self._told_cut:
            self._told_cut = True
            self._ls.log_to_client(
                f"jax-lsp: the workspace has more than {MAX_FILES} Python files; the "
                f"diagnostics of the first {MAX_FILES} found are shown for files not open",
                types.MessageType.Info,
            )
        self._listing = (time.monotonic(), of, files)
        self._listed = set(files)
        return files

    def _valid(self, path: str, stamp: Stamp) -> bool:
        report = self._reports.get(path)
        return (
            report is not None
            and report.stamp == stamp
            and report.generation == self._ls.settings.generation
            and report.change == self._changes.get(path, 0)
        )

    # -- changes --------------------------------------------------------------------------
    def files_changed(self, made_or_removed: bool) -> None:
        """Python files changed on disk: when some were made or removed, the project's files
        are listed again at the next pull."""
        if made_or_removed:
            self._listing = None

    def changed(self, paths: set[str], names: set[str], imported: set[str]) -> None:
        """Modules changed (their files `paths`, their `names`, the words of their import
        statements): the files they may reach are analyzed again, now if the client pulls
        workspace diagnostics (and asked to pull again if that changes them)."""
        words = {path: report.words for path, report in self._reports.items()}
        reached = reached_files(words, paths, names, imported)
        open_paths = {d.path for d in self._ls.documents if d.path}
        for path in reached:
            self._changes[path] = self._changes.get(path, 0) + 1
            if self.pulled and path in self._listed and path not in open_paths:
                self._want(path)

    # -- analysis -------------------------------------------------------------------------
    def _want(self, path: str) -> asyncio.Future:
        """The analysis of `path`, queued (once) for the worker."""
        future = self._queued.get(path)
        if future is None:
            future = self._queued[path] = asyncio.get_running_loop().create_future()
        if self._worker is None or self._worker.done():
            self._worker = asyncio.ensure_future(self._work())
        return future

    async def _work(self) -> None:
        """Analyze the queued files one by one; then ask the client to pull again if what it
        was given is out of date."""
        while self._queued:
            path = next(iter(self._queued))
            future = self._queued.pop(path)
            try:
                await self._analyze(path)
            except Exception:  # an engine bug: the other files are still analyzed
                log.exception("analysis of %s failed", path)
            if not future.done():
                future.set_result(None)
        open_paths = {d.path for d in self._ls.documents if d.path}
        for path, report in self._reports.items():
            if path in open_paths:
                continue
            given = self._reported.get(from_fs_path(path) or Path(path).as_uri())
            if given != report.result_id and (given is not None or report.items):
                self._ls.publisher.refresh_pulled()
                return

    async def _analyze(self, path: str) -> None:
        settings = self._ls.settings.for_path(path)
        generation, change = self._ls.settings.generation, self._changes.get(path, 0)
        encoding, uri = self._ls.client.encoding, from_fs_path(path) or Path(path).as_uri()
        excluded = self._ls.analyzer.excluded(path, settings)  # by a pyproject.toml nearer it

        def work() -> _Report:
            stamp = _stamp(path)  # before reading: a write meanwhile is read again next time
            try:
                text = read_file(Path(path)).text
            except UnreadableFile:
                text = ""
            words = ModuleWords.of(text, path)
            if excluded or not text:
                return _Report(stamp, generation, change, [], _result_id([]), words)
            analysis = self._ls.engine.check_unopened(text, path, settings)
            items = analysis_diagnostics(analysis, encoding, None, uri)
            return _Report(stamp, generation, change, items, _result_id(items), words)

        self._reports[path] = await self._ls.engine.run(work)

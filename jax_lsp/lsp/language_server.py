"""The server's state (open documents, settings, what the client supports) and its analysis
loop: when each document is analyzed, on the engine thread (`engine_thread`), and when its
diagnostics are published or pulled; notebooks' cells analyzed together; jedi's answers
waited for within a budget, or asked for after the first diagnostics are out.

Analysis never blocks the event loop. Every result is tagged with the document version and the
settings generation it was computed from; a result that is no longer current is dropped, never
published. The handlers live in `handlers`, `action_handlers`, `hover` and `hints`; protocol
conversion in `conversion`. Which settings apply is documented in `jax_lsp.lsp.settings`.
"""

from __future__ import annotations

import asyncio
import logging
from functools import partial
from typing import Any

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path

from jax_lsp import __version__
from jax_lsp.config import Settings
from jax_lsp.engine import Analysis, TracedFunction
from jax_lsp.lsp import notebook_cells
from jax_lsp.lsp.conversion import to_diagnostic, workspace_edit
from jax_lsp.lsp.crossmodule import CrossModuleFacts
from jax_lsp.lsp.documents import AnalysisResult, DocumentStore, OpenDocument
from jax_lsp.lsp.engine_thread import EngineThread
from jax_lsp.lsp.positions import UTF16
from jax_lsp.lsp.protocol import JaxLspProtocol
from jax_lsp.lsp.settings import SettingsStore
from jax_lsp.workspace import ExternalFacts

log = logging.getLogger(__name__)

# No wait: a burst of edits still coalesces (one analysis runs, the latest waits).
DEBOUNCE_SECONDS = 0.0


def _has(capabilities: Any, *path: str) -> Any:
    for name in path:
        capabilities = getattr(capabilities, name, None)
        if capabilities is None:
            return None
    return capabilities


class JaxLanguageServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__(
            "jax-lsp",
            __version__,
            protocol_cls=JaxLspProtocol,
            text_document_sync_kind=types.TextDocumentSyncKind.Incremental,
            notebook_document_sync=types.NotebookDocumentSyncOptions(
                notebook_selector=[
                    types.NotebookDocumentFilterWithCells(
                        cells=[types.NotebookCellLanguage(language="python")], notebook="*"
                    )
                ],
                save=True,
            ),
        )
        self.documents = DocumentStore()
        self.settings = SettingsStore()
        self.encoding: str = UTF16
        self.pull = False  # the client pulls diagnostics: never push to it
        # The client pulled a notebook cell's diagnostics. Until then cells are pushed to even
        # in pull mode: vscode-languageclient 9 pulls text documents but never cells.
        self.pulls_cells = False
        self.shut_down = False  # `shutdown` received: exit with status 0
        self._pending: dict[str, asyncio.Task] = {}
        self._reported_failures: set[tuple[str, str]] = set()
        self.cross = CrossModuleFacts(self.documents, self._new_facts)
        self.engine = EngineThread(self.cross.workspace)
        # notebook uri -> ((cell uri, version) of its code cells, traced functions, cell
        # slices): the inlay hints and code lenses of its cells (`hints`)
        self.notebook_traced: dict[str, tuple[tuple, list[TracedFunction], list]] = {}

    # -- capabilities -------------------------------------------------------------------------
    def supports(self, *path: str) -> bool:
        return bool(_has(self.client_capabilities, *path))

    # -- messages -----------------------------------------------------------------------------
    def log_to_client(self, message: str, kind=types.MessageType.Warning) -> None:
        log.warning("%s", message)
        self.window_log_message(types.LogMessageParams(type=kind, message=message))

    def report_settings_errors(self) -> None:
        for message in self.settings.take_errors():
            self.log_to_client(message, types.MessageType.Error)

    def _report_failures(self, analysis: Analysis, path: str | None) -> None:
        for failure in analysis.failures:
            key = (failure.code, path or "")
            if key in self._reported_failures:
                continue
            self._reported_failures.add(key)
            self.log_to_client(
                f"jax-lsp: rule {failure.code} failed on {path or 'an unsaved file'} "
                f"(line {failure.line + 1}): {failure.error}. Its findings in this file may be "
                "incomplete; the other rules still ran."
            )

    # -- analysis -----------------------------------------------------------------------------
    def excluded(self, path: str | None, settings: Settings) -> bool:
        """Whether the editor's file is excluded by the settings: no findings, no fixes (a file
        named on the `check` command line is checked all the same; one opened here is not)."""
        return bool(path and settings.root and settings.is_excluded(path))

    async def analyze(self, document: OpenDocument) -> AnalysisResult:
        """Analyze the document as it is now; store the result if it is still current."""
        text, version, generation = document.text, document.version, self.settings.generation
        known_lines = document.split_already()  # kept up to date edit by edit: no re-split
        uri = document.uri
        path, encoding = document.path, self.encoding
        settings = self.settings.for_path(path)
        self.report_settings_errors()

        def work(answers: dict[str, ExternalFacts] | None = None):
            """The analysis and its diagnostics, with jedi's `answers` if any."""
            if self.excluded(path, settings):
                return Analysis([], []), []
            analysis = self.engine.check(uri, text, path, settings, answers, known_lines)
            # The parse's lines, not the open document's: those are split only when a request
            # needs them (most open files are never edited).
            lines = analysis.document.lines
            diagnostics = [
                to_diagnostic(f, lines, encoding, version, uri) for f in analysis.findings
            ]
            return analysis, diagnostics

        analysis, diagnostics = await self.engine.run(work)
        if analysis.questions:
            root = self.settings.root
            found = await self.cross.jedi_within_budget(
                document, version, text, root, analysis.questions
            )
            if found:
                analysis, diagnostics = await self.engine.run(work, found)
        self._report_failures(analysis, path)
        result = AnalysisResult(version, generation, analysis.findings, diagnostics)
        if document.version == version and self.settings.generation == generation:
            document.result = result
        return result

    def start_jedi(self) -> None:
        """Start jedi (once) and ask it what the analyses so far left for it."""
        self.cross.start_jedi(self.settings.root)

    def start_jedi_when_idle(self, retry: float) -> None:
        """Start jedi now unless an analysis is pending (its diagnostics will start it), in
        which case look again in `retry` seconds."""
        if self.cross.started:
            return
        if any(not task.done() for task in self._pending.values()) or self.engine.jobs:
            asyncio.get_running_loop().call_later(retry, self.start_jedi_when_idle, retry)
        else:
            self.start_jedi()

    def _new_facts(self, document: OpenDocument) -> None:
        """jedi answered about the current version of `document`: analyze it again."""
        document.result = None
        self.engine.invalidate(document.uri)  # not even the analysis running now will do
        if self.pull:
            if self.supports("workspace", "diagnostics", "refresh_support"):
                self.workspace_diagnostic_refresh(None)
        else:
            self.schedule(document, 0)

    def pushes_to(self, document: OpenDocument) -> bool:
        """Whether `document`'s diagnostics are pushed (the client does not pull them)."""
        return not self.pull or (document.notebook is not None and not self.pulls_cells)

    def cells_pulled(self) -> None:
        """The client pulls cells after all: withdraw what was pushed to them (push and pull
        diagnostics are shown side by side, so both would show twice)."""
        if self.pulls_cells:
            return
        self.pulls_cells = True
        log.info("the client pulls notebook cell diagnostics: no longer pushed")
        for document in self.documents:
            if document.notebook is not None:
                self.cancel_pending(document.notebook)
                self.publish(document.uri, [])

    def _code_cells(self, notebook_uri: str) -> list[str]:
        notebook = self.workspace.get_notebook_document(notebook_uri=notebook_uri)
        cells = notebook.cells if notebook is not None else []
        return [cell.document for cell in cells if cell.kind == types.NotebookCellKind.Code]

    def open_code_cells(self, notebook_uri: str) -> list[OpenDocument]:
        """The notebook's code cells, in order."""
        return [doc for doc in map(self.documents.get, self._code_cells(notebook_uri)) if doc]

    async def analyze_notebook(self, notebook_uri: str) -> bool:
        """Analyze a notebook's code cells as one module; store each cell's part if the notebook
        is unchanged meanwhile (then True)."""
        code_cells = self._code_cells(notebook_uri)
        cells = self.open_code_cells(notebook_uri)
        text, slices = notebook_cells.combine([(c.uri, c.version, c.text) for c in cells])
        generation, encoding = self.settings.generation, self.encoding
        path = to_fs_path(notebook_uri)
        settings = self.settings.for_path(path)
        self.report_settings_errors()

        def work() -> Analysis:
            if self.excluded(path, settings):
                return Analysis([], [])
            return self.engine.check(notebook_uri, text, path, settings)

        analysis = await self.engine.run(work)
        self._report_failures(analysis, path)
        if (
            self.settings.generation != generation
            or code_cells != self._code_cells(notebook_uri)
            or any(
                self.documents.get(cell.uri) is not cell or cell.version != piece.version
                for cell, piece in zip(cells, slices, strict=True)
            )
        ):
            return False
        by_cell = notebook_cells.findings_by_cell(analysis.findings, slices)
        for cell in cells:
            findings = by_cell[cell.uri]
            diagnostics = [
                to_diagnostic(f, cell.lines, encoding, cell.version, cell.uri) for f in findings
            ]
            cell.result = AnalysisResult(cell.version, generation, findings, diagnostics)
        return True

    async def current_result(self, document: OpenDocument) -> AnalysisResult:
        """The analysis of the current version; if the engine crashes, the last good one."""
        current = document.current(self.settings.generation)
        if current is not None:
            return current
        try:
            if document.notebook:
                await self.analyze_notebook_once(document.notebook)
                return document.current(self.settings.generation) or _empty(document)
            key = (document.version, self.settings.generation)
            return await self.engine.once(document.uri, key, partial(self.analyze, document))
        except Exception as error:  # an engine bug: keep serving the last good result
            log.exception("analysis of %s failed", document.uri)
            key = ("engine", document.uri)
            if key not in self._reported_failures:
                self._reported_failures.add(key)
                self.log_to_client(
                    f"jax-lsp: analyzing {document.path or document.uri} failed: "
                    f"{type(error).__name__}: {error}",
                    types.MessageType.Error,
                )
            return document.result or _empty(document)

    async def analyze_notebook_once(self, notebook_uri: str) -> bool:
        """`analyze_notebook`, shared by every caller asking about the same cell versions."""
        cells = tuple((cell.uri, cell.version) for cell in self.open_code_cells(notebook_uri))
        key = (cells, self.settings.generation)
        return await self.engine.once(
            notebook_uri, key, partial(self.analyze_notebook, notebook_uri)
        )

    def forget_notebook(self, uri: str) -> None:
        self.cancel_pending(uri)
        self.notebook_traced.pop(uri, None)

    def cancel_pending(self, uri: str) -> None:
        pending = self._pending.pop(uri, None)
        if pending is not None:
            pending.cancel()

    def schedule(self, document: OpenDocument, delay: float = DEBOUNCE_SECONDS) -> None:
        """Analyze and publish soon; a newer call for the document replaces this one."""
        if document.notebook:
            self.schedule_notebook(document.notebook, delay)
            return
        self.cancel_pending(document.uri)
        if self.pull:
            return  # the client asks when it wants them
        self._pending[document.uri] = asyncio.ensure_future(self._publish_later(document, delay))

    async def _publish_later(self, document: OpenDocument, delay: float) -> None:
        await asyncio.sleep(delay)
        result = await self.current_result(document)
        if self.documents.get(document.uri) is not document:
            return  # closed meanwhile
        if document.current(self.settings.generation) is not result:
            return  # edited or reconfigured meanwhile: a newer analysis is on its way
        self._pending.pop(document.uri, None)
        self.publish(document.uri, result.diagnostics, result.version)

    def schedule_notebook(self, uri: str, delay: float = DEBOUNCE_SECONDS) -> None:
        self.cancel_pending(uri)
        if not self.pull or not self.pulls_cells:
            self._pending[uri] = asyncio.ensure_future(self._publish_notebook_later(uri, delay))

    async def _publish_notebook_later(self, uri: str, delay: float) -> None:
        await asyncio.sleep(delay)
        try:
            if not await self.analyze_notebook_once(uri):
                return  # changed meanwhile: a newer analysis is on its way
        except Exception as error:  # an engine bug: keep what is shown
            log.exception("analysis of %s failed", uri)
            self.log_to_client(f"jax-lsp: analyzing {uri} failed: {error}", types.MessageType.Error)
            return
        self._pending.pop(uri, None)
        if self.pull and self.pulls_cells:
            return  # the client started pulling meanwhile
        for cell in self.documents:
            if cell.notebook == uri and cell.result is not None:
                self.publish(cell.uri, cell.result.diagnostics, cell.result.version)

    def publish(
        self, uri: str, diagnostics: list[types.Diagnostic], version: int | None = None
    ) -> None:
        self.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=uri, diagnostics=diagnostics, version=version)
        )
        self.start_jedi()  # once: the first diagnostics are out

    def close(self, uri: str) -> None:
        """Forget a document (or cell) and, if pushed to, clear its diagnostics."""
        self.cancel_pending(uri)
        document = self.documents.close(uri)
        self.engine.forget(uri)
        if document is not None and self.pushes_to(document):
            self.publish(uri, [])

    def refresh_all(self) -> None:
        """Settings changed: every open document's diagnostics may have changed."""
        if self.pull and self.supports("workspace", "diagnostics", "refresh_support"):
            self.workspace_diagnostic_refresh(None)
        # The lens and hint switches may have changed too.
        if self.supports("workspace", "code_lens", "refresh_support"):
            self.workspace_code_lens_refresh(None)
        if self.supports("workspace", "inlay_hint", "refresh_support"):
            self.workspace_inlay_hint_refresh(None)
        for document in self.documents:
            if self.pushes_to(document):
                self.schedule(document, 0)

    # -- edits --------------------------------------------------------------------------------
    def workspace_edits(
        self, edits: list[tuple[OpenDocument, list[types.TextEdit]]]
    ) -> types.WorkspaceEdit:
        """Edits of several documents (a notebook's cells) as one workspace edit, in the form
        the client takes."""
        versioned = self.supports("workspace", "workspace_edit", "document_changes")
        return workspace_edit(
            [(d.uri, d.version, text_edits) for d, text_edits in edits], versioned
        )

    def workspace_edit(
        self, document: OpenDocument, text_edits: list[types.TextEdit]
    ) -> types.WorkspaceEdit:
        return self.workspace_edits([(document, text_edits)])

    def lazy_edits(self) -> bool:
        """The client resolves code action edits lazily (`codeAction/resolve`)."""
        properties = _has(self.client_capabilities, "text_document", "code_action")
        properties = _has(properties, "resolve_support", "properties") or []
        return "edit" in properties


def _empty(document: OpenDocument) -> AnalysisResult:
    return AnalysisResult(document.version, -1, [], [])

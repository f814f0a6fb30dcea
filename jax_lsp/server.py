"""The language server: document sync, diagnostics (push or pull), code actions, hover, settings.

Analysis runs on one worker thread (the engine's caches are not shared between threads) and
never blocks the event loop. Every result is tagged with the document version and the settings
generation it was computed from; a result that is no longer current is dropped, never published.
Which settings apply is documented in `jax_lsp.lsp.settings`.
"""

from __future__ import annotations

import asyncio
import logging
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol
from pygls.protocol.language_server import lsp_method
from pygls.uris import to_fs_path

from jax_lsp import __version__
from jax_lsp.analysis.document import Document
from jax_lsp.config import Settings
from jax_lsp.engine import Analysis, analyze
from jax_lsp.fixes import fix_text
from jax_lsp.lsp import actions, edits, notebooks
from jax_lsp.lsp.diagnostics import to_diagnostic, version_of
from jax_lsp.lsp.documents import AnalysisResult, DocumentStore, OpenDocument
from jax_lsp.lsp.hover import findings_at, hover_markdown
from jax_lsp.lsp.positions import (
    UTF16,
    choose_encoding,
    from_lsp_position,
    to_lsp_position,
    to_lsp_range,
)
from jax_lsp.lsp.settings import SECTION, SettingsStore
from jax_lsp.lsp.tracing import TracedFunction, traced_functions

log = logging.getLogger(__name__)

DEBOUNCE_SECONDS = 0.01  # coalesces a burst of keystrokes; stale results are dropped anyway
_FIX_ALL_TITLE = f"{SECTION}: Fix all auto-fixable problems"
_DEBUG_NANS_TITLE = f"{SECTION}: Enable jax_debug_nans (raise at the first NaN)"
_HINT_TOOLTIPS = {
    "traced": "Traced ({via}): an abstract tracer inside, not a concrete value",
    "static": "Static ({via}): a concrete Python value; a new value recompiles",
}


class JaxLspProtocol(LanguageServerProtocol):
    @lsp_method(types.INITIALIZE)
    def lsp_initialize(self, params: types.InitializeParams):
        # pygls takes the client's first preference; we want UTF-8 whenever it is offered.
        general = params.capabilities.general
        if general is not None and general.position_encodings:
            general.position_encodings = [choose_encoding(general.position_encodings)]
        return (yield from super().lsp_initialize(params))

    # Text documents live in our DocumentStore only: pygls's own copy would cost a second,
    # line-by-line pass per keystroke and the memory of every open file twice.
    def _user_handler(self, method: str, params: Any):
        if (handler := self.fm.features.get(method)) is not None:
            yield handler, (params,), None

    @lsp_method(types.TEXT_DOCUMENT_DID_OPEN)
    def lsp_text_document__did_open(self, params: types.DidOpenTextDocumentParams):
        yield from self._user_handler(types.TEXT_DOCUMENT_DID_OPEN, params)

    @lsp_method(types.TEXT_DOCUMENT_DID_CHANGE)
    def lsp_text_document__did_change(self, params: types.DidChangeTextDocumentParams):
        yield from self._user_handler(types.TEXT_DOCUMENT_DID_CHANGE, params)

    @lsp_method(types.TEXT_DOCUMENT_DID_CLOSE)
    def lsp_text_document__did_close(self, params: types.DidCloseTextDocumentParams):
        yield from self._user_handler(types.TEXT_DOCUMENT_DID_CLOSE, params)


def _has(capabilities: Any, *path: str) -> Any:
    for name in path:
        capabilities = getattr(capabilities, name, None)
        if capabilities is None:
            return None
    return capabilities


def _analyse(text: str, path: str | None, settings: Settings) -> Analysis:
    if path and settings.root and settings.is_excluded(path):
        return Analysis([], [])
    return analyze(Document(text, path), settings.rules_for(path), settings.severities())


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
        self._pending: dict[str, asyncio.Task] = {}
        self._engine = ThreadPoolExecutor(max_workers=1, thread_name_prefix="jax-lsp-engine")
        self._reported_failures: set[tuple[str, str]] = set()

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
                f"(line {failure.line + 1}): {failure.error}. Its other findings in this file "
                "are missing; the other rules still ran."
            )

    # -- analysis -----------------------------------------------------------------------------
    async def run_engine(self, function, *args):
        return await asyncio.get_running_loop().run_in_executor(self._engine, function, *args)

    async def analyse(self, document: OpenDocument) -> AnalysisResult:
        """Analyse the document as it is now; store the result if it is still current."""
        text, version, generation = document.text, document.version, self.settings.generation
        lines, path, encoding = document.lines, document.path, self.encoding
        settings = self.settings.for_path(path)
        self.report_settings_errors()

        def work() -> tuple[Analysis, list[types.Diagnostic]]:
            analysis = _analyse(text, path, settings)
            diagnostics = [to_diagnostic(f, lines, encoding, version) for f in analysis.findings]
            return analysis, diagnostics

        analysis, diagnostics = await self.run_engine(work)
        self._report_failures(analysis, path)
        result = AnalysisResult(version, generation, analysis.findings, diagnostics)
        if document.version == version and self.settings.generation == generation:
            document.result = result
        return result

    async def analyse_notebook(self, notebook_uri: str) -> bool:
        """Analyse a notebook's code cells as one module; store each cell's part if the notebook
        is unchanged meanwhile (then True)."""
        notebook = self.workspace.get_notebook_document(notebook_uri=notebook_uri)
        if notebook is None:
            return False
        code_cells = [c.document for c in notebook.cells if c.kind == types.NotebookCellKind.Code]
        cells = [doc for doc in map(self.documents.get, code_cells) if doc is not None]
        text, slices = notebooks.combine([(c.uri, c.version, c.text) for c in cells])
        generation, encoding = self.settings.generation, self.encoding
        settings = self.settings.for_path(to_fs_path(notebook_uri))
        self.report_settings_errors()
        analysis = await self.run_engine(_analyse, text, to_fs_path(notebook_uri), settings)
        self._report_failures(analysis, to_fs_path(notebook_uri))
        if self.settings.generation != generation or any(
            self.documents.get(cell.uri) is not cell or cell.version != piece.version
            for cell, piece in zip(cells, slices, strict=True)
        ):
            return False
        by_cell = notebooks.findings_by_cell(analysis.findings, slices)
        for cell in cells:
            findings = by_cell[cell.uri]
            diagnostics = [to_diagnostic(f, cell.lines, encoding, cell.version) for f in findings]
            cell.result = AnalysisResult(cell.version, generation, findings, diagnostics)
        return True

    async def current_result(self, document: OpenDocument) -> AnalysisResult:
        """The analysis of the current version; if the engine crashes, the last good one."""
        current = document.current(self.settings.generation)
        if current is not None:
            return current
        try:
            if document.notebook:
                await self.analyse_notebook(document.notebook)
                return document.current(self.settings.generation) or _empty(document)
            return await self.analyse(document)
        except Exception as error:  # an engine bug: keep serving the last good result
            log.exception("analysis of %s failed", document.uri)
            key = ("engine", document.uri)
            if key not in self._reported_failures:
                self._reported_failures.add(key)
                self.log_to_client(
                    f"jax-lsp: analysing {document.path or document.uri} failed: "
                    f"{type(error).__name__}: {error}",
                    types.MessageType.Error,
                )
            return document.result or _empty(document)

    def cancel_pending(self, uri: str) -> None:
        pending = self._pending.pop(uri, None)
        if pending is not None:
            pending.cancel()

    def schedule(self, document: OpenDocument, delay: float = DEBOUNCE_SECONDS) -> None:
        """Analyse and publish soon; a newer call for the document replaces this one."""
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
        if not self.pull:
            self._pending[uri] = asyncio.ensure_future(self._publish_notebook_later(uri, delay))

    async def _publish_notebook_later(self, uri: str, delay: float) -> None:
        await asyncio.sleep(delay)
        try:
            if not await self.analyse_notebook(uri):
                return  # changed meanwhile: a newer analysis is on its way
        except Exception as error:  # an engine bug: keep what is shown
            log.exception("analysis of %s failed", uri)
            self.log_to_client(f"jax-lsp: analysing {uri} failed: {error}", types.MessageType.Error)
            return
        self._pending.pop(uri, None)
        for cell in self.documents:
            if cell.notebook == uri and cell.result is not None:
                self.publish(cell.uri, cell.result.diagnostics, cell.result.version)

    def publish(
        self, uri: str, diagnostics: list[types.Diagnostic], version: int | None = None
    ) -> None:
        self.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=uri, diagnostics=diagnostics, version=version)
        )

    def close(self, uri: str) -> None:
        """Forget a document (or cell) and, in push mode, clear its diagnostics."""
        self.cancel_pending(uri)
        self.documents.close(uri)
        if not self.pull:
            self.publish(uri, [])

    def refresh_all(self) -> None:
        """Settings changed: every open document's diagnostics may have changed."""
        if self.pull:
            if self.supports("workspace", "diagnostics", "refresh_support"):
                self.workspace_diagnostic_refresh(None)
            return
        for document in self.documents:
            self.schedule(document, 0)

    async def traced(self, document: OpenDocument) -> list[TracedFunction]:
        """The traced functions of the current version (for inlay hints and code lenses)."""
        if document.traced is None or document.traced[0] != document.version:
            version = document.version
            found = await self.run_engine(traced_functions, document.text, document.path)
            if document.version != version:
                return found
            document.traced = (version, found)
        return document.traced[1]

    # -- settings -----------------------------------------------------------------------------
    async def fetch_configuration(self) -> None:
        if not self.supports("workspace", "configuration"):
            return
        try:
            values = await self.workspace_configuration_async(
                types.ConfigurationParams(items=[types.ConfigurationItem(section=SECTION)])
            )
        except Exception as error:  # a client bug must not stop the server
            self.log_to_client(f"jax-lsp: could not read the editor settings: {error}")
            return
        if values:
            self.settings.set_editor(values[0] or {})
        self.report_settings_errors()

    async def register_pyproject_watcher(self) -> None:
        if not self.supports("workspace", "did_change_watched_files", "dynamic_registration"):
            return
        options = types.DidChangeWatchedFilesRegistrationOptions(
            watchers=[types.FileSystemWatcher(glob_pattern="**/pyproject.toml")]
        )
        registration = types.Registration(
            id="jax-lsp-pyproject",
            method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
            register_options=options,
        )
        try:
            await self.client_register_capability_async(
                types.RegistrationParams(registrations=[registration])
            )
        except Exception as error:
            log.warning("could not watch pyproject.toml files: %s", error)

    # -- code actions -------------------------------------------------------------------------
    def workspace_edit(
        self, document: OpenDocument, text_edits: list[types.TextEdit]
    ) -> types.WorkspaceEdit:
        if self.supports("workspace", "workspace_edit", "document_changes"):
            identifier = types.OptionalVersionedTextDocumentIdentifier(
                uri=document.uri, version=document.version
            )
            return types.WorkspaceEdit(
                document_changes=[
                    types.TextDocumentEdit(text_document=identifier, edits=text_edits)
                ]
            )
        return types.WorkspaceEdit(changes={document.uri: text_edits})

    def _lazy(self) -> bool:
        properties = _has(self.client_capabilities, "text_document", "code_action")
        properties = _has(properties, "resolve_support", "properties") or []
        return "edit" in properties

    async def source_edit(self, document: OpenDocument, kind: str) -> list[types.TextEdit]:
        """The edits of a source action on `document`, a snapshot the client cannot change."""
        encoding = self.encoding
        if kind == actions.DEBUG_NANS:
            edit = await self.run_engine(edits.debug_nans_edit, document, encoding)
            return [edit] if edit else []
        settings = self.settings.for_path(document.path)
        path, text = document.path, document.text

        def fix_all() -> str:
            def findings(source: str):
                return _analyse(source, path, settings).findings

            return fix_text(text, findings, settings.unsafe_fixes)[0]

        fixed = await self.run_engine(fix_all)
        if fixed == document.text:
            return []
        return [edits.replacement_edit(document, fixed, encoding)]

    async def source_action(self, document: OpenDocument, kind: str) -> types.CodeAction:
        document = document.snapshot()
        title = _FIX_ALL_TITLE if kind == actions.FIX_ALL else _DEBUG_NANS_TITLE
        action = types.CodeAction(
            title=title, kind=kind, data={"uri": document.uri, "version": document.version}
        )
        if not self._lazy():
            action.edit = self.workspace_edit(document, await self.source_edit(document, kind))
        return action

    async def code_actions(self, params: types.CodeActionParams) -> list[types.CodeAction] | None:
        document = self.documents.get(params.text_document.uri)
        if document is None:
            return None
        diagnostics = self._with_data(document, actions.ours(params.context.diagnostics))
        if any(version_of(d) != document.version for d in diagnostics):
            log.info("refused code actions computed for an older version of %s", document.uri)
            return None
        if not params.context.diagnostics:  # some clients send none: use ours at the range
            result = document.current(self.settings.generation)
            diagnostics = [
                d for d in (result.diagnostics if result else []) if _touches(d.range, params.range)
            ]
        only = params.context.only
        found: list[types.CodeAction] = []
        if actions.wanted(actions.QUICKFIX, only):
            found += self._quickfixes(document, diagnostics)
        if document.notebook:
            return found or None  # source actions work on files, not on single cells
        settings = self.settings.for_path(document.path)
        if (
            settings.fix_all
            and actions.wanted(actions.FIX_ALL, only)
            and _fixable(document, settings, self.settings.generation)
        ):
            found.append(await self.source_action(document, actions.FIX_ALL))
        if "jax_debug_nans" not in document.text and actions.wanted(actions.DEBUG_NANS, only):
            found.append(await self.source_action(document, actions.DEBUG_NANS))
        return found or None

    def _with_data(
        self, document: OpenDocument, diagnostics: list[types.Diagnostic]
    ) -> list[types.Diagnostic]:
        """Diagnostics as we published them: a client that drops `data` gets ours back."""
        result = document.current(self.settings.generation)
        published = {
            (d.range.start.line, d.range.start.character, d.code): d
            for d in (result.diagnostics if result else [])
        }
        restored = []
        for diagnostic in diagnostics:
            if not isinstance(diagnostic.data, dict):
                key = (
                    diagnostic.range.start.line,
                    diagnostic.range.start.character,
                    diagnostic.code,
                )
                diagnostic = published.get(key)
            if diagnostic is not None:
                restored.append(diagnostic)
        return restored

    def _quickfixes(
        self, document: OpenDocument, diagnostics: list[types.Diagnostic]
    ) -> list[types.CodeAction]:
        found: list[types.CodeAction] = []
        silenced: set[tuple[int, str]] = set()
        for diagnostic in diagnostics:
            found += actions.quickfixes(
                diagnostic, lambda text_edits: self.workspace_edit(document, text_edits)
            )
        for diagnostic in diagnostics:
            key = (diagnostic.range.start.line, str(diagnostic.code))
            if key in silenced or key[0] >= len(document.lines):
                continue
            silenced.add(key)
            edit = edits.noqa_edit(document, key[0], key[1], self.encoding)
            found.append(
                types.CodeAction(
                    title=f"Disable {key[1]} for this line",
                    kind=actions.QUICKFIX,
                    diagnostics=[diagnostic],
                    edit=self.workspace_edit(document, [edit]),
                )
            )
        return found

    async def resolve(self, action: types.CodeAction) -> types.CodeAction:
        data = action.data if isinstance(action.data, dict) else {}
        document = self.documents.get(data.get("uri", ""))
        if document is None or document.version != data.get("version") or action.edit:
            return action  # stale or already complete: no edit for an older text
        document = document.snapshot()
        action.edit = self.workspace_edit(document, await self.source_edit(document, action.kind))
        return action


def _fixable(document: OpenDocument, settings: Settings, generation: int) -> bool:
    """Whether fix-all may change the document (True when not analysed yet): spares clients
    that ask for code actions at every cursor move a fix-all run per request."""
    result = document.current(generation)
    if result is None:
        return True
    return any(
        f.fix is not None and (f.fix.is_safe or settings.unsafe_fixes) for f in result.findings
    )


def _empty(document: OpenDocument) -> AnalysisResult:
    return AnalysisResult(document.version, -1, [], [])


def _touches(a: types.Range, b: types.Range) -> bool:
    def key(position: types.Position) -> tuple[int, int]:
        return position.line, position.character

    return key(a.start) <= key(b.end) and key(b.start) <= key(a.end)


def build_server() -> JaxLanguageServer:
    server = JaxLanguageServer()

    @server.feature(types.INITIALIZE)
    def initialize(ls: JaxLanguageServer, params: types.InitializeParams) -> None:
        encoding = ls.workspace.position_encoding or UTF16
        ls.encoding = getattr(encoding, "value", encoding)  # a plain "utf-16", not the enum
        ls.pull = ls.supports("text_document", "diagnostic")
        if params.root_uri:
            ls.settings.root = to_fs_path(params.root_uri)
        ls.settings.set_editor(params.initialization_options or {})

    @server.feature(types.INITIALIZED)
    async def initialized(ls: JaxLanguageServer, params: types.InitializedParams) -> None:
        log.info(
            "jax-lsp %s initialized (%s, %s diagnostics)",
            __version__,
            ls.encoding,
            "pull" if ls.pull else "push",
        )
        generation = ls.settings.generation
        await ls.fetch_configuration()
        await ls.register_pyproject_watcher()
        if ls.settings.generation != generation:
            ls.refresh_all()

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: JaxLanguageServer, params: types.DidOpenTextDocumentParams) -> None:
        ls.schedule(ls.documents.open(params.text_document), 0)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: JaxLanguageServer, params: types.DidChangeTextDocumentParams) -> None:
        document = ls.documents.get(params.text_document.uri)
        if document is None:
            return
        document.apply(params.content_changes, params.text_document.version, ls.encoding)
        ls.schedule(document)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: JaxLanguageServer, params: types.DidSaveTextDocumentParams) -> None:
        document = ls.documents.get(params.text_document.uri)
        if document is not None:
            ls.schedule(document, 0)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: JaxLanguageServer, params: types.DidCloseTextDocumentParams) -> None:
        ls.close(params.text_document.uri)

    @server.feature(types.NOTEBOOK_DOCUMENT_DID_OPEN)
    def notebook_open(ls: JaxLanguageServer, params: types.DidOpenNotebookDocumentParams) -> None:
        uri = params.notebook_document.uri
        for item in params.cell_text_documents:
            ls.documents.open(item, notebook=uri)
        ls.schedule_notebook(uri, 0)

    @server.feature(types.NOTEBOOK_DOCUMENT_DID_CHANGE)
    def notebook_change(
        ls: JaxLanguageServer, params: types.DidChangeNotebookDocumentParams
    ) -> None:
        uri = params.notebook_document.uri
        cells = params.change.cells
        if cells and cells.structure:
            for item in cells.structure.did_open or []:
                ls.documents.open(item, notebook=uri)
            for closed in cells.structure.did_close or []:
                ls.close(closed.uri)
        for content in (cells.text_content if cells else None) or []:
            cell = ls.documents.get(content.document.uri)
            if cell is not None:
                cell.apply(content.changes, content.document.version, ls.encoding)
        ls.schedule_notebook(uri)

    @server.feature(types.NOTEBOOK_DOCUMENT_DID_SAVE)
    def notebook_save(ls: JaxLanguageServer, params: types.DidSaveNotebookDocumentParams) -> None:
        ls.schedule_notebook(params.notebook_document.uri, 0)

    @server.feature(types.NOTEBOOK_DOCUMENT_DID_CLOSE)
    def notebook_close(ls: JaxLanguageServer, params: types.DidCloseNotebookDocumentParams) -> None:
        ls.cancel_pending(params.notebook_document.uri)
        for cell in params.cell_text_documents:
            ls.close(cell.uri)

    @server.feature(
        types.TEXT_DOCUMENT_DIAGNOSTIC,
        types.DiagnosticOptions(
            identifier=SECTION, inter_file_dependencies=False, workspace_diagnostics=False
        ),
    )
    async def pull_diagnostics(
        ls: JaxLanguageServer, params: types.DocumentDiagnosticParams
    ) -> types.DocumentDiagnosticReport:
        document = ls.documents.get(params.text_document.uri)
        if document is None:
            return types.RelatedFullDocumentDiagnosticReport(items=[])
        result = await ls.current_result(document)
        result_id = f"{result.version}:{result.generation}"
        if params.previous_result_id == result_id:
            return types.RelatedUnchangedDocumentDiagnosticReport(result_id=result_id)
        return types.RelatedFullDocumentDiagnosticReport(
            items=result.diagnostics, result_id=result_id
        )

    @server.feature(
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.CodeActionOptions(
            code_action_kinds=[actions.QUICKFIX, actions.FIX_ALL, actions.DEBUG_NANS],
            resolve_provider=True,
        ),
    )
    async def code_action(
        ls: JaxLanguageServer, params: types.CodeActionParams
    ) -> list[types.CodeAction] | None:
        return await ls.code_actions(params)

    @server.feature(types.CODE_ACTION_RESOLVE)
    async def code_action_resolve(
        ls: JaxLanguageServer, params: types.CodeAction
    ) -> types.CodeAction:
        return await ls.resolve(params)

    @server.feature(types.TEXT_DOCUMENT_HOVER)
    async def hover(ls: JaxLanguageServer, params: types.HoverParams) -> types.Hover | None:
        document = ls.documents.get(params.text_document.uri)
        if document is None:
            return None
        result = await ls.current_result(document)
        position = from_lsp_position(document.lines, params.position, ls.encoding)
        found = findings_at(result.findings, position)
        if not found:
            return None
        return types.Hover(
            contents=types.MarkupContent(
                kind=types.MarkupKind.Markdown,
                value="\n\n---\n\n".join(hover_markdown(f) for f in found),
            ),
            range=to_lsp_range(document.lines, found[0].span, ls.encoding),
        )

    @server.feature(types.TEXT_DOCUMENT_INLAY_HINT)
    async def inlay_hints(
        ls: JaxLanguageServer, params: types.InlayHintParams
    ) -> list[types.InlayHint] | None:
        document = ls.documents.get(params.text_document.uri)
        if document is None or document.notebook:
            return None
        lines, encoding = document.lines, ls.encoding
        first, last = params.range.start.line, params.range.end.line
        return [
            types.InlayHint(
                position=to_lsp_position(lines, param.end, encoding),
                label=param.kind,
                kind=types.InlayHintKind.Parameter,
                padding_left=True,
                tooltip=_HINT_TOOLTIPS[param.kind].format(via=function.via),
            )
            for function in await ls.traced(document)
            for param in function.params
            if first <= param.end.line <= last and param.end.line < len(lines)
        ]

    @server.feature(types.TEXT_DOCUMENT_CODE_LENS)
    async def code_lens(
        ls: JaxLanguageServer, params: types.CodeLensParams
    ) -> list[types.CodeLens] | None:
        document = ls.documents.get(params.text_document.uri)
        if document is None or document.notebook:
            return None
        return [
            types.CodeLens(
                range=to_lsp_range(document.lines, function.name_span, ls.encoding),
                command=types.Command(title=function.summary(), command=""),
            )
            for function in await ls.traced(document)
        ]

    @server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    async def did_change_configuration(
        ls: JaxLanguageServer, params: types.DidChangeConfigurationParams
    ) -> None:
        generation = ls.settings.generation
        if ls.supports("workspace", "configuration"):
            await ls.fetch_configuration()
        elif params.settings:
            ls.settings.set_editor(params.settings)
            ls.report_settings_errors()
        if ls.settings.generation != generation:
            ls.refresh_all()

    @server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    def did_change_watched_files(
        ls: JaxLanguageServer, params: types.DidChangeWatchedFilesParams
    ) -> None:
        if any(change.uri.endswith("pyproject.toml") for change in params.changes):
            ls.settings.reload_projects()
            ls.refresh_all()

    return server


def serve(tcp: str | None = None, log_file: str | None = None) -> int:
    if log_file:
        logging.basicConfig(
            filename=log_file,
            level=logging.INFO,
            format="%(asctime)s %(levelname)s %(name)s: %(message)s",
        )
        logging.getLogger("pygls").setLevel(logging.WARNING)  # it logs every message at INFO
    server = build_server()
    if tcp:
        host, _, port = tcp.rpartition(":")
        server.start_tcp(host or "127.0.0.1", int(port))
    else:
        server.start_io()
    return 0

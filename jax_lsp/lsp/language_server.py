"""The server's state: open documents, settings, what the client supports, the engine thread
and jedi, and the collaborators that act on them: `analyzer` (when and how a document is
analyzed), `scheduler` (when its diagnostics are published), `publisher` (publishing and
refresh requests), `workspace_diagnostics` (the files not open, for a client that pulls them),
`jedi` (when jedi starts, what its late answers trigger) and `client` (the client's
capabilities).

Analysis never blocks the event loop. Every result is tagged with the document version and the
settings generation it was computed from; a result that is no longer current is dropped, never
published. The handlers live in `handlers`, `action_handlers`, `hover` and `hints`; protocol
conversion in `conversion`. Which settings apply is documented in `jax_lsp.lsp.settings`.
"""

from __future__ import annotations

import logging

from lsprotocol import types
from pygls.lsp.server import LanguageServer

from jax_lsp import __version__
from jax_lsp.engine import TracedFunction
from jax_lsp.lsp.analyzer import Analyzer
from jax_lsp.lsp.client import ClientFeatures
from jax_lsp.lsp.conversion import in_document_newlines, workspace_edit
from jax_lsp.lsp.crossmodule import CrossModuleFacts
from jax_lsp.lsp.dependents import Dependents
from jax_lsp.lsp.documents import DocumentStore, OpenDocument
from jax_lsp.lsp.engine_thread import EngineThread
from jax_lsp.lsp.hints import TracedShown
from jax_lsp.lsp.jedi_backlog import JediBacklog
from jax_lsp.lsp.protocol import JaxLspProtocol
from jax_lsp.lsp.publisher import Publisher
from jax_lsp.lsp.scheduler import Scheduler
from jax_lsp.lsp.settings import SettingsStore
from jax_lsp.lsp.workspace_diagnostics import WorkspaceDiagnostics

log = logging.getLogger(__name__)


class JaxLanguageServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__(
            "jax-lsp",
            __version__,
            protocol_cls=JaxLspProtocol,
            text_document_sync_kind=types.TextDocumentSyncKind.Incremental,
            notebook_document_sync=types.NotebookDocumentSyncOptions(
                # Markdown cells too, though never analyzed: a cell is named by its place
                # among all the notebook's cells, as VS Code counts them ("Cell 3 of 7").
                notebook_selector=[
                    types.NotebookDocumentFilterWithCells(
                        cells=[
                            types.NotebookCellLanguage(language="python"),
                            types.NotebookCellLanguage(language="markdown"),
                        ],
                        notebook="*",
                    )
                ],
                save=True,
            ),
        )
        self.documents = DocumentStore()
        self.settings = SettingsStore()
        self.client = ClientFeatures(lambda: self.client_capabilities)
        self.shut_down = False  # `shutdown` received: exit with status 0
        self.cross = CrossModuleFacts(self.documents)
        self.engine = EngineThread(self.cross.workspace)
        # notebook uri -> ((cell uri, version) of its code cells, traced functions, cell
        # slices): the inlay hints and code lenses of its cells (`hints`)
        self.notebook_traced: dict[str, tuple[tuple, list[TracedFunction], list]] = {}
        self.traced_shown = TracedShown()  # what each cell's lenses and hints said
        self.analyzer = Analyzer(self)
        self.publisher = Publisher(self, self.client, lambda: self.jedi.start())
        self.scheduler = Scheduler(
            self.documents,
            self.client,
            self.publisher,
            self.analyzer.current_result,
            self.analyzer.analyze_notebook_once,
            lambda: self.settings.generation,
            self.log_to_client,
            self.analyzer.first_pass,
        )
        self.jedi = JediBacklog(
            self.cross,
            self.documents,
            self.engine,
            self.client,
            self.publisher,
            self.scheduler,
            lambda: self.settings.root,
        )
        # The diagnostics of the files that are not open, for a client that pulls them.
        self.workspace_diagnostics = WorkspaceDiagnostics(self)
        # Files importing an edited module: analyzed again as after a late jedi answer.
        self.dependents = Dependents(
            self.documents,
            self.jedi.answered,
            self.jedi.notebook_answered,
            self.workspace_diagnostics.changed,
            lambda: self.engine.run(self.engine.workspace.drop_stale),
        )

    # -- messages -----------------------------------------------------------------------------
    def notify_json(self, method: str, params: dict) -> None:
        self.protocol.notify_json(method, params)

    def log_to_client(self, message: str, kind=types.MessageType.Warning) -> None:
        log.warning("%s", message)
        self.window_log_message(types.LogMessageParams(type=kind, message=message))

    def report_settings_errors(self) -> None:
        for message in self.settings.take_errors():
            self.log_to_client(message, types.MessageType.Error)

    # -- documents ----------------------------------------------------------------------------
    def close(self, uri: str) -> None:
        """Forget a document (or cell) and, if pushed to, clear its diagnostics."""
        self.scheduler.cancel(uri)
        document = self.documents.close(uri)
        self.engine.forget(uri)
        self.traced_shown.forget(uri)
        if document is not None and self.client.pushes_to(document):
            self.publisher.publish(uri, [])
        self.publisher.forget(uri)

    def forget_notebook(self, uri: str) -> None:
        self.scheduler.cancel(uri)
        self.notebook_traced.pop(uri, None)

    # -- edits --------------------------------------------------------------------------------
    def workspace_edits(
        self, edits: list[tuple[OpenDocument, list[types.TextEdit]]]
    ) -> types.WorkspaceEdit:
        """Edits of several documents (a notebook's cells) as one workspace edit, in the form
        the client takes."""
        return workspace_edit(
            [(d.uri, d.version, in_document_newlines(found, d.text)) for d, found in edits],
            self.client.versioned_edits(),
        )

    def workspace_edit(
        self, document: OpenDocument, text_edits: list[types.TextEdit]
    ) -> types.WorkspaceEdit:
        return self.workspace_edits([(document, text_edits)])

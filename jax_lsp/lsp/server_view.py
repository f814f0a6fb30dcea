"""What the server's collaborators (the analyzer, the hints, the workspace diagnostics) reach of
the server: they are built by it and given it, so they name its parts here, not its class."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from lsprotocol import types
    from pygls.workspace import Workspace

    from jax_lsp.config import Settings
    from jax_lsp.engine import TracedFunction
    from jax_lsp.lsp.client import ClientFeatures
    from jax_lsp.lsp.crossmodule import CrossModuleFacts
    from jax_lsp.lsp.documents import DocumentStore, OpenDocument
    from jax_lsp.lsp.engine_thread import EngineThread
    from jax_lsp.lsp.jedi_backlog import JediBacklog
    from jax_lsp.lsp.notebook_cells import CellSlice
    from jax_lsp.lsp.publisher import Publisher
    from jax_lsp.lsp.settings import SettingsStore


class NotebookAnalyzer(Protocol):
    """What is asked of the server's analyzer (`lsp/analyzer.py`)."""

    def open_code_cells(self, notebook_uri: str) -> list[OpenDocument]: ...

    def excluded(self, path: str | None, settings: Settings) -> bool: ...


class ShownLenses(Protocol):
    """What the notebook cells' lenses and hints said (`hints.TracedShown`)."""

    def served(self, cell: OpenDocument, functions: list[TracedFunction]) -> None: ...

    def outdated(
        self, cells: list[OpenDocument], functions: list[TracedFunction], slices: list[CellSlice]
    ) -> bool: ...


class ServerView(Protocol):
    """The parts of `language_server.JaxLanguageServer` its collaborators use."""

    analyzer: NotebookAnalyzer
    client: ClientFeatures
    cross: CrossModuleFacts
    documents: DocumentStore
    engine: EngineThread
    jedi: JediBacklog
    publisher: Publisher
    settings: SettingsStore
    traced_shown: ShownLenses
    # notebook uri -> ((cell uri, version) of its code cells, traced functions, cell slices)
    notebook_traced: dict[str, tuple[tuple, list[TracedFunction], list]]

    @property
    def workspace(self) -> Workspace: ...

    def log_to_client(self, message: str, kind: types.MessageType = ...) -> None: ...

    def report_settings_errors(self) -> None: ...

"""When jedi starts, and what its late answers trigger. jedi's worker starts once the first
diagnostics are out, or when the server is idle after start-up (`start_when_idle`); the
questions analyses left for it before then wait in `CrossModuleFacts`'s backlog, asked at
start. An answer that arrives after its analysis published makes the document's diagnostics
stale: a pushing client gets them again, a pulling one is asked to pull again."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from jax_lsp.lsp.client import ClientFeatures
from jax_lsp.lsp.crossmodule import CrossModuleFacts
from jax_lsp.lsp.documents import DocumentStore, OpenDocument
from jax_lsp.lsp.engine_thread import EngineThread
from jax_lsp.lsp.publisher import Publisher
from jax_lsp.lsp.scheduler import Scheduler


class JediBacklog:
    """`root()`: the workspace root jedi searches from (the settings' root, once known)."""

    def __init__(
        self,
        cross: CrossModuleFacts,
        documents: DocumentStore,
        engine: EngineThread,
        client: ClientFeatures,
        publisher: Publisher,
        scheduler: Scheduler,
        root: Callable[[], str | None],
    ) -> None:
        self._cross = cross
        self._documents = documents
        self._engine = engine
        self._client = client
        self._publisher = publisher
        self._scheduler = scheduler
        self._root = root

    def start(self) -> None:
        """Start jedi (once) and ask it what the analyses so far left for it."""
        self._cross.start_jedi(self._root())

    def start_when_idle(self, retry: float) -> None:
        """Start jedi now unless an analysis is pending (its diagnostics will start it), in
        which case look again in `retry` seconds."""
        if self._cross.started:
            return
        if self._scheduler.busy() or self._engine.jobs:
            asyncio.get_running_loop().call_later(retry, self.start_when_idle, retry)
        else:
            self.start()

    def answered(self, document: OpenDocument) -> None:
        """jedi answered about the current version of `document` (or a module it imports
        changed: `Dependents`): analyze it again."""
        document.result = None
        self._engine.invalidate(document.uri)  # not even the analysis running now will do
        if self._client.pull:
            self._publisher.refresh_pulled()
        else:
            self._scheduler.schedule(document, 0)

    def notebook_answered(self, notebook_uri: str) -> None:
        """jedi answered about the notebook's current cells (or a module they import changed):
        analyze them again."""
        for cell in self._documents:
            if cell.notebook == notebook_uri:
                cell.result = None
        self._engine.invalidate(notebook_uri)
        if self._client.pushes_notebooks():
            self._scheduler.schedule_notebook(notebook_uri, 0)
        else:
            self._publisher.refresh_pulled()

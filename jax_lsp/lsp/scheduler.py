"""When documents are analyzed and their diagnostics published: one pending publication per
document (or notebook), a newer request replacing it; nothing scheduled for what the client
pulls. A result that is no longer current when it is ready (the document was edited, closed or
reconfigured meanwhile) is never published: a newer one is on its way."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

from lsprotocol import types

from jax_lsp.lsp.client import ClientFeatures
from jax_lsp.lsp.documents import AnalysisResult, DocumentStore, OpenDocument
from jax_lsp.lsp.gc_pause import COLLECTION_PAUSE
from jax_lsp.lsp.publisher import Publisher

log = logging.getLogger(__name__)

# No wait: a burst of edits still coalesces (one analysis runs, the latest waits).
DEBOUNCE_SECONDS = 0.0


class Scheduler:
    """`result(document)`: the analysis of its current version (run once however many ask);
    `analyze_notebook(uri)`: the notebook's cells analyzed, True if still current;
    `generation()`: the settings' generation now; `first_pass(document)`: the diagnostics of
    its first analysis without the project's traces, or None (`Analyzer.first_pass`)."""

    def __init__(
        self,
        documents: DocumentStore,
        client: ClientFeatures,
        publisher: Publisher,
        result: Callable[[OpenDocument], Awaitable[AnalysisResult]],
        analyze_notebook: Callable[[str], Awaitable[bool]],
        generation: Callable[[], int],
        log_to_client: Callable[[str, types.MessageType], None],
        first_pass: Callable[[OpenDocument], Awaitable[list[types.Diagnostic] | None]],
    ) -> None:
        self._documents = documents
        self._client = client
        self._publisher = publisher
        self._result = result
        self._analyze_notebook = analyze_notebook
        self._generation = generation
        self._log_to_client = log_to_client
        self._first_pass = first_pass
        self._pending: dict[str, asyncio.Task] = {}

    def busy(self) -> bool:
        """A publication is pending."""
        return any(not task.done() for task in self._pending.values())

    def cancel(self, uri: str) -> None:
        pending = self._pending.pop(uri, None)
        if pending is not None:
            pending.cancel()

    def schedule(self, document: OpenDocument, delay: float = DEBOUNCE_SECONDS) -> None:
        """Analyze and publish soon; a newer call for the document replaces this one."""
        if document.notebook:
            self.schedule_notebook(document.notebook, delay)
            return
        self.cancel(document.uri)
        if self._client.pull:
            return  # the client asks when it wants them
        self._pending[document.uri] = asyncio.ensure_future(self._publish_later(document, delay))

    async def _publish_later(self, document: OpenDocument, delay: float) -> None:
        with COLLECTION_PAUSE.held():  # garbage is collected once the diagnostics are out
            if delay:  # none: the task starts once the messages read with this one are handled
                await asyncio.sleep(delay)
            if document.result is None:
                await self._publish_first_pass(document)
            result = await self._result(document)
            if self._documents.get(document.uri) is not document:
                return  # closed meanwhile
            if document.current(self._generation()) is not result:
                return  # edited or reconfigured meanwhile: a newer analysis is on its way
            self._pending.pop(document.uri, None)
            self._publisher.publish(document.uri, result.diagnostics, result.version)

    async def _publish_first_pass(self, document: OpenDocument) -> None:
        """A document never analysed: its diagnostics without the project's traces first,
        if those are not known yet; the full ones are published after them if they differ
        (the findings a module gets from its importers' traced code come a moment later)."""
        version = document.version
        try:
            diagnostics = await self._first_pass(document)
        except Exception:  # an engine bug: the full analysis reports it, and what it can
            log.exception("first analysis of %s failed", document.uri)
            return
        if (
            diagnostics is not None
            and self._documents.get(document.uri) is document
            and document.version == version
            and document.result is None
        ):
            self._publisher.publish(document.uri, diagnostics, version)

    def schedule_notebook(self, uri: str, delay: float = DEBOUNCE_SECONDS) -> None:
        """Analyze and publish soon; to a client pulling the cells, nothing is published but
        the notebook is analyzed all the same: a cell it does not pull again (not edited) may
        have new diagnostics, lenses or hints, which the analysis asks it to refresh."""
        self.cancel(uri)
        self._pending[uri] = asyncio.ensure_future(self._publish_notebook_later(uri, delay))

    async def _publish_notebook_later(self, uri: str, delay: float) -> None:
        with COLLECTION_PAUSE.held():  # garbage is collected once the diagnostics are out
            await asyncio.sleep(delay)
            try:
                if not await self._analyze_notebook(uri):
                    return  # changed meanwhile: a newer analysis is on its way
            except Exception as error:  # an engine bug: keep what is shown
                log.exception("analysis of %s failed", uri)
                self._log_to_client(
                    f"jax-lsp: analyzing {uri} failed: {error}", types.MessageType.Error
                )
                return
            self._pending.pop(uri, None)
            if not self._client.pushes_notebooks():
                return  # the client pulls the cells (it was asked to refresh if need be)
            for cell in self._documents:
                if cell.notebook == uri and cell.result is not None:
                    self._publisher.publish(cell.uri, cell.result.diagnostics, cell.result.version)

    def cells_pulled(self) -> None:
        """The client pulls cells after all: withdraw what was pushed to them (push and pull
        diagnostics are shown side by side, so both would show twice)."""
        if not self._client.cells_pulled():
            return
        for document in self._documents:
            if document.notebook is not None:
                self.cancel(document.notebook)
                self._publisher.publish(document.uri, [])

    def refresh_all(self) -> None:
        """Settings changed: every open document's diagnostics may have changed."""
        self._publisher.refresh_pulled()
        self._publisher.refresh_views()  # the lens and hint switches may have changed too
        for document in self._documents:
            if self._client.pushes_to(document):
                self.schedule(document, 0)

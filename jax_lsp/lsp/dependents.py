"""Open documents that may import a module whose text just changed. What they know of its
functions (what they return, which keys they draw) may have changed with it: they are analyzed
again once the module's edits pause, or at once when it is saved, and their diagnostics are
published again (a pulling client is asked to pull again). Without this, renaming a helper left
the stale finding of the open file that imports it until that file was edited.

Which documents: those whose text names the module as a word (an import of it must name it);
one named by chance is only analyzed once more, from its caches.
"""

from __future__ import annotations

import asyncio
import os
import re

from jax_lsp.lsp.client import ClientFeatures
from jax_lsp.lsp.documents import DocumentStore, OpenDocument
from jax_lsp.lsp.engine_thread import EngineThread
from jax_lsp.lsp.publisher import Publisher
from jax_lsp.lsp.scheduler import Scheduler

# Seconds without edits of a module before the documents importing it are analyzed again:
# typing in one file must not analyze every other open file at each keystroke.
SETTLE_SECONDS = 0.5


def module_name(path: str | None) -> str | None:
    """The name an import of the Python file `path` spells last (`pkg/data.py`: data; a
    package's `__init__.py`: the package)."""
    if not path or not path.endswith((".py", ".pyi")):
        return None
    folder, file = os.path.split(path)
    stem = file.rpartition(".")[0]
    return os.path.basename(folder) if stem == "__init__" else stem


class Dependents:
    def __init__(
        self,
        documents: DocumentStore,
        engine: EngineThread,
        client: ClientFeatures,
        publisher: Publisher,
        scheduler: Scheduler,
    ) -> None:
        self._documents = documents
        self._engine = engine
        self._client = client
        self._publisher = publisher
        self._scheduler = scheduler
        self._changed: dict[str, str] = {}  # uri of a changed module -> its name
        self._timer: asyncio.TimerHandle | None = None

    def changed(self, document: OpenDocument, delay: float = SETTLE_SECONDS) -> None:
        """`document` (a module file, not a notebook cell) changed: refresh the documents that
        may import it after `delay` seconds without another change."""
        name = module_name(document.path) if document.notebook is None else None
        if name is None or not name.isidentifier():
            return
        self._changed[document.uri] = name
        if self._timer is not None:
            self._timer.cancel()
        self._timer = asyncio.get_running_loop().call_later(delay, self._refresh)

    def _refresh(self) -> None:
        changed, self._changed, self._timer = self._changed, {}, None
        # The names as words (not inside a longer identifier).
        alternatives = "|".join(map(re.escape, sorted(set(changed.values()))))
        named = re.compile(rf"\b(?:{alternatives})\b")
        stale_notebooks: set[str] = set()
        stale = False
        for document in list(self._documents):
            if document.uri in changed or document.notebook in stale_notebooks:
                continue
            if named.search(document.text) is None:
                continue
            stale = True
            if document.notebook is not None:
                stale_notebooks.add(document.notebook)
                continue
            document.result = None
            self._engine.invalidate(document.uri)
            if self._client.pushes_to(document):
                self._scheduler.schedule(document, 0)
        for notebook in stale_notebooks:
            for cell in self._documents:
                if cell.notebook == notebook:
                    cell.result = None
            self._engine.invalidate(notebook)
            self._scheduler.schedule_notebook(notebook, 0)
        if stale and self._client.pull:
            self._publisher.refresh_pulled()

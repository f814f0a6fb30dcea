"""Open documents that may import a module whose text just changed, or that it may import.
What they know of its functions (what they return, which keys they draw) may have changed with
it, and so may what it traces of theirs (a helper called from a jitted step there): they are
analyzed again once the module's edits pause, or at once when it is saved, and their
diagnostics are published again (a pulling client is asked to pull again). Without this,
renaming a helper left the stale finding of the open file that imports it until that file was
edited, and removing a `@jax.jit` left the findings of the helpers it traced in other files.

Which documents: those whose text names the module as a word (an import of it must name it),
and those whose module name or top-level definitions the changed module's import statements
name; one named by chance is only analyzed once more, from its caches. The files that are not
open are told too (`others`: the workspace diagnostics a client pulls), with the same words.
Then those whose traces, gathered from their importers, no longer hold (`stale_traces`): a
wrapper of a third module that stopped jitting, or what the edited module itself tells its
importers, which its own keystrokes leave out.
"""

from __future__ import annotations

import asyncio
import logging
import os
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from pygls.uris import to_fs_path as uri_to_path

from jax_lsp.lsp.documents import DocumentStore, OpenDocument

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


@dataclass(frozen=True)
class ModuleWords:
    """What tells whether a change of another module may reach a module's findings: the words
    of its import statements, and the words an import of it spells (its module name, its
    top-level definitions)."""

    imports: frozenset[str]
    names: frozenset[str]

    @classmethod
    def of(cls, text: str, path: str) -> ModuleWords:
        name = module_name(path)
        names = {*_DEFINITION.findall(text), *([name] if name else [])}
        return cls(frozenset(_import_words(text)), frozenset(names))

    def reached_by(self, changed: set[str], imported: set[str]) -> bool:
        """Whether it may import a changed module (`changed`: their names), or a changed
        module may import it (`imported`: the words of their import statements)."""
        return not self.imports.isdisjoint(changed) or not self.names.isdisjoint(imported)


# Told of the modules that changed: their files, their names, the words of their imports.
OthersChanged = Callable[[set[str], set[str], set[str]], None]
# The files whose gathered traces went stale (real paths), dropped by the engine.
StaleTraces = Callable[[], Awaitable[list[str]]]

log = logging.getLogger(__name__)


class Dependents:
    """`renew(document)` / `renew_notebook(uri)`: forget a document's (a notebook's) analysis
    and have it analyzed and shown again, as a late jedi answer does (`JediBacklog`);
    `others`: told the same about the files that are not open."""

    def __init__(
        self,
        documents: DocumentStore,
        renew: Callable[[OpenDocument], None],
        renew_notebook: Callable[[str], None],
        others: OthersChanged | None = None,
        stale_traces: StaleTraces | None = None,
    ) -> None:
        self._documents = documents
        self._renew = renew
        self._renew_notebook = renew_notebook
        self._others = others
        self._stale_traces = stale_traces
        self._renewals: set[asyncio.Future] = set()  # held until done (a task is weakly held)
        self._paths: dict[str, str] = {}  # uri of a changed module -> its file
        self._changed: dict[str, str] = {}  # uri of a changed module -> its name
        # The changed modules' texts before their edits: an import an edit removed still
        # names a module whose functions the changed one traced.
        self._before: dict[str, str] = {}
        self._timer: asyncio.TimerHandle | None = None

    def changed(self, document: OpenDocument, delay: float = SETTLE_SECONDS) -> None:
        """`document` (a module file, not a notebook cell) changed: refresh the documents that
        may import it after `delay` seconds without another change."""
        name = module_name(document.path) if document.notebook is None else None
        if name is None or not name.isidentifier():
            return
        self._changed[document.uri] = name
        if document.path is not None:
            self._paths[document.uri] = document.path
        self._before.setdefault(document.uri, document.text)  # a closed one is gone then
        if self._timer is not None:
            self._timer.cancel()
        self._timer = asyncio.get_running_loop().call_later(delay, self._refresh)

    def changed_on_disk(self, files: dict[str, str | None]) -> None:
        """Files that are not open changed on disk, or were made or removed (uri -> its
        text now, None if gone): refresh the documents that may import them, at once."""
        for uri, text in files.items():
            path = uri_to_path(uri)
            name = module_name(path)
            if name is None or not name.isidentifier():
                continue
            self._changed[uri] = name
            self._paths[uri] = path
            if text is not None:
                self._before.setdefault(uri, text)  # its imports name what it traces
        if self._timer is not None:
            self._timer.cancel()
        self._timer = asyncio.get_running_loop().call_later(0, self._refresh)

    def seen(self, document: OpenDocument) -> None:
        """`document` is about to change: what its import statements name now counts too."""
        if document.notebook is None:
            self._before.setdefault(document.uri, document.text)

    def _refresh(self) -> None:
        changed, self._changed, self._timer = self._changed, {}, None
        before, self._before = self._before, {}
        paths, self._paths = self._paths, {}
        texts = [*before.values()]
        texts += [d.text for d in self._documents if d.uri in changed and d.notebook is None]
        imported = set().union(*map(_import_words, texts))
        if self._others is not None:
            self._others(set(paths.values()), set(changed.values()), imported)
        # The names as words (not inside a longer identifier).
        alternatives = "|".join(map(re.escape, sorted(set(changed.values()))))
        named = re.compile(rf"\b(?:{alternatives})\b")
        notebooks: set[str] = set()
        for document in list(self._documents):
            if document.uri in changed:
                continue
            if named.search(document.text) is None and not _named_by(document, imported):
                continue
            self._renew_one(document, notebooks)
        if self._stale_traces is not None:
            renewal = asyncio.ensure_future(self._renew_stale_traces(self._stale_traces))
            self._renewals.add(renewal)
            renewal.add_done_callback(self._renewals.discard)

    def _renew_one(self, document: OpenDocument, notebooks: set[str]) -> None:
        if document.notebook is None:
            self._renew(document)
        elif document.notebook not in notebooks:
            notebooks.add(document.notebook)
            self._renew_notebook(document.notebook)

    async def _renew_stale_traces(self, stale_traces: StaleTraces) -> None:
        """Renew the open documents whose gathered traces the engine dropped as stale."""
        try:
            stale = set(await stale_traces())
        except Exception:  # an engine bug: the documents keep what they show
            log.exception("checking the gathered traces failed")
            return
        notebooks: set[str] = set()
        for document in list(self._documents):
            if document.path is not None and os.path.realpath(document.path) in stale:
                self._renew_one(document, notebooks)


_IMPORT_LINE = re.compile(r"^[ \t]*(?:from[ \t]+[\w.]+[ \t]+)?import\b.*$", re.MULTILINE)
_WORD = re.compile(r"\w+")
_DEFINITION = re.compile(r"^(?:async[ \t]+)?(?:def|class)[ \t]+(\w+)", re.MULTILINE)


def _import_words(text: str) -> set[str]:
    """The words of the text's import lines (a superset of what they import: the modules,
    their packages, the names)."""
    return {word for line in _IMPORT_LINE.findall(text) for word in _WORD.findall(line)}


def _named_by(document: OpenDocument, words: set[str]) -> bool:
    """Whether `words` name the document's module or one of its top-level definitions."""
    if not words or document.notebook is not None:
        return False
    name = module_name(document.path)
    if name is not None and name in words:
        return True
    return any(found in words for found in _DEFINITION.findall(document.text))

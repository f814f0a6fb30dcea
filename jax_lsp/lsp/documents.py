"""Open documents: text kept in sync with the client's incremental edits.

Our own store rather than pygls's workspace copy, so that lines split exactly where the
engine and LSP split them (\\r\\n, \\r, \\n; not form feeds or U+2028).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property
from itertools import accumulate, count

from lsprotocol import types
from pygls.uris import to_fs_path

from jax_lsp.files import notebook_of_virtual_document
from jax_lsp.findings import Position
from jax_lsp.lsp.positions import from_lsp_position
from jax_lsp.text import split_lines

_NEWLINE = re.compile(r"\r\n|\r|\n")
_ANALYSES = count()
# How many times an open document's text changed, or one was opened or closed (in any store):
# see `DocumentStore.changes_besides`.
_CHANGES = [0]


@dataclass
class AnalysisResult:
    """What one analysis of one document version produced, ready for every feature."""

    version: int | None
    generation: int  # settings generation it was computed under
    findings: list  # list[Finding]
    diagnostics: list[types.Diagnostic]
    # Which analysis this is: a document analyzed again at the same version (a module it
    # imports changed, jedi answered late) gets another, so a pulling client's previous result
    # id no longer matches and it is given the new diagnostics, not "unchanged".
    serial: int = field(default_factory=lambda: next(_ANALYSES))

    @property
    def result_id(self) -> str:
        """The pull diagnostics report id of this result."""
        return f"{self.version}:{self.generation}:{self.serial}"


@dataclass
class OpenDocument:
    uri: str
    text: str
    version: int | None
    result: AnalysisResult | None = field(default=None, repr=False)
    traced: tuple[int | None, list] | None = field(default=None, repr=False)  # (version, facts)
    notebook: str | None = None  # the notebook's uri, for a notebook cell
    edits: int = field(default=0, repr=False, compare=False)  # its text's changes since opened

    @cached_property
    def _has_cr(self) -> bool:
        return "\r" in self.text

    @cached_property
    def lines(self) -> list[str]:
        # str.split is ~4x faster than the regex split; equal when there is no \r.
        return split_lines(self.text) if self._has_cr else self.text.split("\n")

    def split_already(self) -> list[str] | None:
        """`lines` if they were needed already (edited documents), without splitting now."""
        return self.__dict__.get("lines")

    @cached_property
    def line_starts(self) -> list[int]:
        if self._has_cr:
            return [0, *(match.end() for match in _NEWLINE.finditer(self.text))]
        return list(accumulate((len(line) + 1 for line in self.lines[:-1]), initial=0))

    @cached_property
    def path(self) -> str | None:
        """The file the document stands for: its own, or for jupyterlab-lsp's joined cells
        (`.virtual_documents/nb.ipynb`, under a root of its own) the notebook's, so that the
        notebook's folder gives its sibling modules, its `pyproject.toml` and jedi's paths."""
        # Asked on every keystroke (the analysis, the dependents): the uri never changes.
        if not self.uri.startswith("file:"):
            return None
        path = to_fs_path(self.uri)
        return notebook_of_virtual_document(path) or path

    @property
    def newline(self) -> str:
        match = _NEWLINE.search(self.text)
        return match.group() if match else "\n"

    def offset(self, position: types.Position, encoding: str) -> int:
        """A client position as an index into `text`."""
        return self._offset(from_lsp_position(self.lines, position, encoding))

    def _offset(self, point: Position) -> int:
        if self._has_cr:
            return self.line_starts[point.line] + point.column
        # The lines are the text cut at each "\n": their lengths give the offset, without
        # the start of every line (a keystroke needs one or two offsets), counted from the
        # nearer end of the text.
        lines, line = self.lines, point.line
        if 2 * line <= len(lines):
            return sum(map(len, lines[:line])) + line + point.column
        after = sum(map(len, lines[line:])) + len(lines) - 1 - line
        return len(self.text) - after + point.column

    def current(self, generation: int) -> AnalysisResult | None:
        """The analysis of exactly this version under the current settings, if there is one."""
        result = self.result
        if result and result.version == self.version and result.generation == generation:
            return result
        return None

    def snapshot(self) -> OpenDocument:
        """A frozen copy for work that outlives the current message (edits keep arriving)."""
        return OpenDocument(self.uri, self.text, self.version, self.result, notebook=self.notebook)

    def set_text(self, text: str, version: int | None, lines: list[str] | None = None) -> None:
        """`lines`: the text's lines, when known and the text has no "\r"."""
        self.text = text
        self.version = version
        self.edits += 1
        _CHANGES[0] += 1
        for cached in ("_has_cr", "lines", "line_starts"):
            self.__dict__.pop(cached, None)
        if lines is not None:
            self.__dict__["_has_cr"] = False
            self.__dict__["lines"] = lines

    def apply(
        self,
        changes: list[types.TextDocumentContentChangeEvent],
        version: int | None,
        encoding: str,
    ) -> None:
        for change in changes:
            if not isinstance(change, types.TextDocumentContentChangePartial):
                self.set_text(change.text, version)
                continue
            start = from_lsp_position(self.lines, change.range.start, encoding)
            end = from_lsp_position(self.lines, change.range.end, encoding)
            start_offset = self._offset(start)
            # A change within one line (a keystroke's) needs no second count of the lines
            # before it.
            if end.line == start.line:
                end_offset = start_offset + end.column - start.column
            else:
                end_offset = self._offset(end)
            if end_offset < start_offset:
                end, end_offset = start, start_offset
            text = self.text[:start_offset] + change.text + self.text[end_offset:]
            lines = None
            if not self._has_cr and "\r" not in change.text:
                # Only the lines the change touches are cut anew; the others are kept (the
                # engine finds the edited lines among unchanged ones by identity).
                edited = self.lines[start.line][: start.column] + change.text
                edited += self.lines[end.line][end.column :]
                lines = [
                    *self.lines[: start.line],
                    *edited.split("\n"),
                    *self.lines[end.line + 1 :],
                ]
            self.set_text(text, version, lines)


class DocumentStore:
    def __init__(self) -> None:
        self._documents: dict[str, OpenDocument] = {}

    def open(self, item: types.TextDocumentItem, notebook: str | None = None) -> OpenDocument:
        document = OpenDocument(item.uri, item.text, item.version, notebook=notebook)
        self._documents[item.uri] = document
        _CHANGES[0] += 1
        return document

    def get(self, uri: str) -> OpenDocument | None:
        return self._documents.get(uri)

    def close(self, uri: str) -> OpenDocument | None:
        _CHANGES[0] += 1
        return self._documents.pop(uri, None)

    def changes_besides(self, uri: str) -> int:
        """A count that grows whenever a document other than `uri` is opened, closed or
        edited (the edits of `uri` itself, typed into, are left out)."""
        document = self._documents.get(uri)
        return _CHANGES[0] - (document.edits if document is not None else 0)

    def __iter__(self):
        return iter(list(self._documents.values()))

"""Inlay hints (`traced` / `static` after each parameter of a traced function) and code lenses
(`jit · traced: x, y · static: n` on the function's name), each on or off by the editor's
`inlayHints` / `codeLens` settings (by default lenses only: both would say the same twice)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types
from pygls.uris import to_fs_path

from jax_lsp.engine import TracedFunction, traced_functions
from jax_lsp.lsp import notebook_cells
from jax_lsp.lsp.documents import OpenDocument
from jax_lsp.lsp.positions import to_lsp_position, to_lsp_range

if TYPE_CHECKING:
    from jax_lsp.lsp.language_server import JaxLanguageServer

_TOOLTIPS = {
    "traced": "Traced ({via}): an abstract tracer inside, not a concrete value",
    "static": "Static ({via}): a concrete Python value; a new value recompiles",
}


async def _traced(
    ls: JaxLanguageServer, uri: str
) -> tuple[OpenDocument | None, list[TracedFunction]]:
    document = ls.documents.get(uri)
    if document is None:
        return None, []
    return document, await traced_functions_of(ls, document)


async def inlay_hints(
    ls: JaxLanguageServer, params: types.InlayHintParams
) -> list[types.InlayHint] | None:
    if not ls.settings.inlay_hints:
        return []
    document, functions = await _traced(ls, params.text_document.uri)
    if document is None:
        return None
    first, last = params.range.start.line, params.range.end.line
    return [
        types.InlayHint(
            position=to_lsp_position(document.lines, param.end, ls.client.encoding),
            label=param.kind,
            kind=types.InlayHintKind.Parameter,
            padding_left=True,
            tooltip=_TOOLTIPS[param.kind].format(via=function.via),
        )
        for function in functions
        for param in function.params
        if first <= param.end.line <= last and param.end.line < len(document.lines)
    ]


async def code_lenses(
    ls: JaxLanguageServer, params: types.CodeLensParams
) -> list[types.CodeLens] | None:
    if not ls.settings.code_lens:
        return []
    document, functions = await _traced(ls, params.text_document.uri)
    if document is None:
        return None
    return [
        types.CodeLens(
            range=to_lsp_range(document.lines, function.name_span, ls.client.encoding),
            command=types.Command(title=function.summary(), command=""),
        )
        for function in functions
    ]


async def _traced_functions(
    ls: JaxLanguageServer, uri: str, text: str, path: str | None
) -> list[TracedFunction]:
    """The traced functions of `text`, from the engine's analysis the diagnostics of this
    version came from (a new one with the same inputs if it is gone: hints do not wait for
    jedi)."""
    settings = ls.settings.for_path(path)
    return await ls.engine.run(
        lambda: traced_functions(ls.engine.latest(uri, text, path, settings))
    )


async def traced_functions_of(
    ls: JaxLanguageServer, document: OpenDocument
) -> list[TracedFunction]:
    """The traced functions of the current version (for inlay hints and code lenses); a
    notebook cell's are found in the whole notebook (earlier cells' imports count)."""
    if document.notebook:
        return await _traced_in_cell(ls, document, document.notebook)
    if document.traced is None or document.traced[0] != document.version:
        version = document.version
        found = await _traced_functions(ls, document.uri, document.text, document.path)
        if document.version != version:
            return found
        document.traced = (version, found)
    return document.traced[1]


class TracedShown:
    """What the lenses and hints served to each notebook cell said, by cell version: an edit
    of another cell may change them (a function no longer jitted), and the client asks again
    only about the cell edited unless the server asks it to refresh."""

    def __init__(self) -> None:
        self._shown: dict[str, tuple[int | None, list[TracedFunction]]] = {}

    def served(self, cell: OpenDocument, functions: list[TracedFunction]) -> None:
        self._shown[cell.uri] = (cell.version, functions)

    def forget(self, uri: str) -> None:
        self._shown.pop(uri, None)

    def outdated(
        self,
        cells: list[OpenDocument],
        functions: list[TracedFunction],
        slices: list[notebook_cells.CellSlice],
    ) -> bool:
        """Whether a cell, unchanged since its lenses were served, now has other ones (taken
        as served: the client asked to refresh gets them)."""
        pieces = {piece.uri: piece for piece in slices}
        outdated = False
        for cell in cells:
            shown = self._shown.get(cell.uri)
            piece = pieces.get(cell.uri)
            if shown is None or piece is None or shown[0] != cell.version:
                continue  # never shown, or edited since: the client asks again itself
            now = notebook_cells.traced_in_cell(functions, piece)
            if now != shown[1]:
                self._shown[cell.uri] = (cell.version, now)
                outdated = True
        return outdated


async def _traced_in_cell(
    ls: JaxLanguageServer, cell: OpenDocument, notebook_uri: str
) -> list[TracedFunction]:
    cells = ls.analyzer.open_code_cells(notebook_uri)
    key = tuple((doc.uri, doc.version) for doc in cells)
    known = ls.notebook_traced.get(notebook_uri)
    if known is None or known[0] != key:
        text, slices = notebook_cells.combine([(c.uri, c.version, c.text) for c in cells])
        found = await _traced_functions(ls, notebook_uri, text, to_fs_path(notebook_uri))
        known = (key, found, slices)
        if key == tuple((doc.uri, doc.version) for doc in cells):
            ls.notebook_traced[notebook_uri] = known
    piece = next((piece for piece in known[2] if piece.uri == cell.uri), None)
    found = notebook_cells.traced_in_cell(known[1], piece) if piece else []
    ls.traced_shown.served(cell, found)
    return found

"""Inlay hints (`traced` / `static` after each parameter of a traced function) and code lenses
(`jit · traced: x, y · static: n` on the function's name), each on or off by the editor's
`inlayHints` / `codeLens` settings (by default lenses only: both would say the same twice).

A function traced from another module of the project names the site there (`traced by jax.jit
in train.py:6 through step`): the lens opens it (`SHOW_TRACE_SITE`, when the client can be
asked to show a document: `handlers.show_trace_site`), a hint's label links to it."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from lsprotocol import types
from pygls.uris import to_fs_path

from jax_lsp.engine import TracedFunction, traced_functions
from jax_lsp.lsp import notebook_cells
from jax_lsp.lsp.conversion import location_elsewhere
from jax_lsp.lsp.documents import OpenDocument
from jax_lsp.lsp.positions import to_lsp_position, to_lsp_range

if TYPE_CHECKING:
    from jax_lsp.lsp.server_view import ServerView

_TOOLTIPS = {
    "traced": "Traced ({via}): an abstract tracer inside, not a concrete value",
    "static": "Static ({via}): a concrete Python value; a new value recompiles",
}

# The code lens command that shows where another module traces the function: arguments, the
# uri and the range of the site.
SHOW_TRACE_SITE = "jax-lsp.showTraceSite"


def traced_elsewhere(
    function: TracedFunction, root: str | None
) -> tuple[str, types.Location] | None:
    """`traced by jax.jit in train.py:6 through step` and the place of that `jax.jit`, for a
    function traced by code in another module (None otherwise). The transformation's module
    is named relative to the workspace root; the functions it goes through, from the one it
    traces to the caller of this one."""
    steps = function.elsewhere
    if not steps:
        return None
    site = next((step for step in reversed(steps) if step.label), steps[-1])
    shown = os.path.basename(site.file)
    if root:
        try:
            relative = os.path.relpath(site.file, root)
        except ValueError:  # another drive
            relative = os.pardir
        if not relative.startswith(os.pardir):
            shown = relative.replace(os.sep, "/")
    said = f"traced by {site.label or 'traced code'} in {shown}:{site.span.start.line + 1}"
    callers = [step.caller for step in reversed(steps) if step.caller]
    if callers:
        said += f" through {' → '.join(callers)}"
    return said, location_elsewhere(site.file, site.span)


async def _traced(ls: ServerView, uri: str) -> tuple[OpenDocument | None, list[TracedFunction]]:
    document = ls.documents.get(uri)
    if document is None:
        return None, []
    return document, await traced_functions_of(ls, document)


async def inlay_hints(
    ls: ServerView, params: types.InlayHintParams
) -> list[types.InlayHint] | None:
    if not ls.settings.inlay_hints:
        return []
    document, functions = await _traced(ls, params.text_document.uri)
    if document is None:
        return None
    first, last = params.range.start.line, params.range.end.line
    hints = []
    for function in functions:
        elsewhere = traced_elsewhere(function, ls.settings.root)
        # "Traced (by jax.jit in train.py:6 through step)"
        via = elsewhere[0].removeprefix("traced ") if elsewhere else function.via
        for param in function.params:
            if not first <= param.end.line <= last or param.end.line >= len(document.lines):
                continue
            tooltip = _TOOLTIPS[param.kind].format(via=via)
            label: str | list[types.InlayHintLabelPart] = param.kind
            if elsewhere:  # the label links to the site in the other module
                label = [
                    types.InlayHintLabelPart(
                        value=param.kind, tooltip=tooltip, location=elsewhere[1]
                    )
                ]
            hints.append(
                types.InlayHint(
                    position=to_lsp_position(document.lines, param.end, ls.client.encoding),
                    label=label,
                    kind=types.InlayHintKind.Parameter,
                    padding_left=True,
                    tooltip=tooltip,
                )
            )
    return hints


async def code_lenses(ls: ServerView, params: types.CodeLensParams) -> list[types.CodeLens] | None:
    if not ls.settings.code_lens:
        return []
    document, functions = await _traced(ls, params.text_document.uri)
    if document is None:
        return None
    opens = ls.client.supports("window", "show_document", "support")
    lenses = []
    for function in functions:
        command = types.Command(title=function.summary(), command="")
        elsewhere = traced_elsewhere(function, ls.settings.root)
        if elsewhere:
            command.title = function.summary(elsewhere[0])
            if opens:
                location = elsewhere[1]
                command.command = SHOW_TRACE_SITE
                command.arguments = [location.uri, location.range]
        lenses.append(
            types.CodeLens(
                range=to_lsp_range(document.lines, function.name_span, ls.client.encoding),
                command=command,
            )
        )
    return lenses


async def _traced_functions(
    ls: ServerView, uri: str, text: str, path: str | None
) -> list[TracedFunction]:
    """The traced functions of `text`, from the engine's analysis the diagnostics of this
    version came from (a new one with the same inputs if it is gone: hints do not wait for
    jedi)."""
    settings = ls.settings.for_path(path)
    return await ls.engine.run(
        lambda: traced_functions(ls.engine.latest(uri, text, path, settings))
    )


async def traced_functions_of(ls: ServerView, document: OpenDocument) -> list[TracedFunction]:
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
    ls: ServerView, cell: OpenDocument, notebook_uri: str
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

"""Inlay hints (`traced` / `static` after each parameter of a traced function) and code lenses
(`jit · traced: x, y · static: n` on the function's name), each on or off by the editor's
`inlayHints` / `codeLens` settings (by default lenses only: both would say the same twice)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types

from jax_lsp.engine import TracedFunction
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
    return document, await ls.traced(document)


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
            position=to_lsp_position(document.lines, param.end, ls.encoding),
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
            range=to_lsp_range(document.lines, function.name_span, ls.encoding),
            command=types.Command(title=function.summary(), command=""),
        )
        for function in functions
    ]

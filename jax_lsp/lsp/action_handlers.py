"""The code action handlers (`textDocument/codeAction`, `codeAction/resolve`): per-diagnostic
quickfixes and noqa, and the source actions fix-all and enable-debug-NaNs (the edits
themselves are built by the engine and `jax_lsp.codeactions`). Quickfix edits come from the
diagnostic's `data`; source actions may be resolved lazily (`codeAction/resolve`). In a
notebook cell, a source action edits the whole notebook (its cells joined, as a file)."""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any

from lsprotocol import types
from pygls.uris import to_fs_path

from jax_lsp.codeactions import build_deferred
from jax_lsp.config import Settings
from jax_lsp.engine import enable_debug_nans, fix_source
from jax_lsp.findings import SYNTAX_ERROR
from jax_lsp.ipynb import NotebookError
from jax_lsp.lsp import edits, notebook_cells
from jax_lsp.lsp.conversion import (
    SOURCE,
    cell_edits,
    cell_fix_data,
    deferred_of,
    fix_data,
    fixes_of,
    text_edits,
    version_of,
)
from jax_lsp.lsp.documents import OpenDocument

if TYPE_CHECKING:
    from jax_lsp.lsp.language_server import JaxLanguageServer

log = logging.getLogger(__name__)

QUICKFIX = types.CodeActionKind.QuickFix
FIX_ALL = f"{types.CodeActionKind.SourceFixAll.value}.{SOURCE}"  # source.fixAll.jax-lsp
DEBUG_NANS = f"{types.CodeActionKind.Source.value}.{SOURCE}.enableDebugNans"
_FIX_ALL_TITLE = f"{SOURCE}: Fix all auto-fixable problems"
_DEBUG_NANS_TITLE = f"{SOURCE}: Enable jax_debug_nans (raise at the first NaN)"


def wanted(kind: str, only: Sequence[str] | None) -> bool:
    """Whether an action of `kind` answers a request limited to `only` (kinds are hierarchical)."""
    if not only:
        return True
    return any(kind == prefix or kind.startswith(f"{prefix}.") for prefix in only)


def ours(diagnostics: Sequence[types.Diagnostic]) -> list[types.Diagnostic]:
    return [d for d in diagnostics if d.source == SOURCE and isinstance(d.code, str)]


def quickfixes(
    diagnostic: types.Diagnostic,
    make_edit: Callable[[dict[str, Any]], types.WorkspaceEdit | None],
    built: Sequence[dict[str, Any]] = (),
) -> list[types.CodeAction]:
    """One action per fix in the diagnostic's data (then per `built` deferred fix) that
    `make_edit` can still make; the first safe one is preferred."""
    actions = []
    preferred_taken = False
    for fix in [*fixes_of(diagnostic), *built]:
        edit = make_edit(fix)
        if edit is None:
            continue
        preferred = bool(fix.get("safe")) and not preferred_taken
        preferred_taken = preferred_taken or preferred
        actions.append(
            types.CodeAction(
                title=f"{SOURCE} ({diagnostic.code}): {fix['title']}"
                + ("" if fix.get("safe") else " (unsafe)"),
                kind=QUICKFIX,
                diagnostics=[diagnostic],
                is_preferred=preferred,
                edit=edit,
            )
        )
    return actions


def _rewrite(ls: JaxLanguageServer, uri: str, path: str | None, kind: str) -> Callable[[str], str]:
    """The source action `kind` as a rewrite of a module's text (`uri`'s): a file's, or a
    notebook's code cells joined (as `check` reads an .ipynb), so every document gets the same
    actions. Run on the engine thread."""
    if kind == DEBUG_NANS:
        # The last analysis's parse, when it is of this text: asked with every code action
        # request, the action parsed the whole module again.
        return lambda text: enable_debug_nans(text, ls.engine.last(uri))
    settings = ls.settings.for_path(path)

    def fix_all(text: str) -> str:
        if ls.analyzer.excluded(path, settings):
            return text
        # The workspace facts the diagnostics were computed with.
        return fix_source(text, path, settings, ls.cross.workspace, settings.unsafe_fixes)[0]

    return fix_all


async def source_edit(
    ls: JaxLanguageServer, document: OpenDocument, kind: str
) -> list[types.TextEdit]:
    """The edits of a source action on `document`, a snapshot the client cannot change."""
    rewrite = _rewrite(ls, document.uri, document.path, kind)
    # Enabling debug NaNs reads the analysis's parse: as quick as the analysis, it runs on
    # the event loop as the analysis does (no hop to the engine thread and back).
    quick = kind == DEBUG_NANS and ls.engine.quick(document.uri, document.text)
    fixed = await ls.engine.run(rewrite, document.text, inline=quick)
    if fixed == document.text:
        return []
    return [edits.replacement_edit(document, fixed, ls.client.encoding)]


async def notebook_source_edit(
    ls: JaxLanguageServer, notebook_uri: str, kind: str
) -> types.WorkspaceEdit:
    """A source action on the whole notebook (as `check --fix` fixes an .ipynb): run on its
    code cells joined, the result split back into the cells it changes (an insertion after
    the imports lands in the cell holding them)."""
    cells = [cell.snapshot() for cell in ls.analyzer.open_code_cells(notebook_uri)]
    rewrite = _rewrite(ls, notebook_uri, to_fs_path(notebook_uri), kind)
    encoding = ls.client.encoding

    def rewrite_cells() -> list[str]:
        return notebook_cells.fix_cells([cell.text for cell in cells], rewrite)

    try:
        fixed = await ls.engine.run(rewrite_cells)
    except NotebookError as error:  # the rewritten module no longer splits into the cells
        log.warning("%s of %s not offered: %s", kind, notebook_uri, error)
        fixed = [cell.text for cell in cells]
    return ls.workspace_edits(
        [
            (cell, [edits.replacement_edit(cell, text, encoding)])
            for cell, text in zip(cells, fixed, strict=True)
            if text != cell.text
        ]
    )


async def source_workspace_edit(
    ls: JaxLanguageServer, document: OpenDocument, kind: str
) -> types.WorkspaceEdit:
    if document.notebook:
        return await notebook_source_edit(ls, document.notebook, kind)
    return ls.workspace_edit(document, await source_edit(ls, document, kind))


async def source_action(
    ls: JaxLanguageServer, document: OpenDocument, kind: str
) -> types.CodeAction:
    document = document.snapshot()
    title = _FIX_ALL_TITLE if kind == FIX_ALL else _DEBUG_NANS_TITLE
    action = types.CodeAction(
        title=title, kind=kind, data={"uri": document.uri, "version": document.version}
    )
    if not ls.client.lazy_edits():
        action.edit = await source_workspace_edit(ls, document, kind)
    return action


async def code_actions(
    ls: JaxLanguageServer, params: types.CodeActionParams
) -> list[types.CodeAction] | None:
    document = ls.documents.get(params.text_document.uri)
    if document is None:
        return None
    only = params.context.only
    # Analyzed now if it was not yet (a pull client that has not pulled this version, a cell
    # just edited): the quick fixes are those of the text the client shows. Source actions
    # alone (Fix All) need no analysis: their edits are computed on the text as it is when
    # applied (or resolved). Answered at once, a Fix All invoked right after an edit is not
    # dropped by VS Code, which cancels a manual request still pending 500 ms after the new
    # diagnostics re-trigger its automatic one.
    if wanted(QUICKFIX, only):
        await ls.analyzer.current_result(document)
    sent = ours(params.context.diagnostics)
    diagnostics = _with_data(ls, document, sent)
    # The client's markers may be of an older text: Ctrl+. right after an edit or an undo,
    # before the new version's diagnostics arrived (an editor then shows "No code actions
    # available" on a marked line). Their fixes' edits would land in the wrong place, but the
    # request's range is in the current text: the current version's findings there (awaited
    # above) answer it, as they do for a client that sends no markers.
    if len(diagnostics) < len(sent) or any(version_of(d) != document.version for d in diagnostics):
        log.info("answered with the current findings for older markers in %s", document.uri)
        diagnostics = []
    if not diagnostics:
        result = document.current(ls.settings.generation)
        diagnostics = [
            d for d in (result.diagnostics if result else []) if _touches(d.range, params.range)
        ]
    found: list[types.CodeAction] = []
    if wanted(QUICKFIX, only):
        found += await _quickfixes(ls, document, diagnostics)
    settings = ls.settings.for_path(
        to_fs_path(document.notebook) if document.notebook else document.path
    )
    if settings.fix_all and wanted(FIX_ALL, only) and _fixable(ls, document, settings):
        found.append(await source_action(ls, document, FIX_ALL))
    if wanted(DEBUG_NANS, only) and not any(
        "jax_debug_nans" in text for text in _module_texts(ls, document)
    ):
        found.append(await source_action(ls, document, DEBUG_NANS))
    return found or None


def _module_texts(ls: JaxLanguageServer, document: OpenDocument) -> list[str]:
    """The texts making up the document's module: a file's own, or every code cell's."""
    if document.notebook:
        return [cell.text for cell in ls.analyzer.open_code_cells(document.notebook)]
    return [document.text]


def _with_data(
    ls: JaxLanguageServer, document: OpenDocument, diagnostics: list[types.Diagnostic]
) -> list[types.Diagnostic]:
    """Diagnostics as we published them: a client that drops `data` gets ours back."""
    result = document.current(ls.settings.generation)
    published = {
        (d.range.start.line, d.range.start.character, d.code): d
        for d in (result.diagnostics if result else [])
    }
    restored = []
    for diagnostic in diagnostics:
        if not isinstance(diagnostic.data, dict):
            key = (
                diagnostic.range.start.line,
                diagnostic.range.start.character,
                diagnostic.code,
            )
            diagnostic = published.get(key)
        if diagnostic is not None:
            restored.append(diagnostic)
    return restored


async def _built_fixes(
    ls: JaxLanguageServer, document: OpenDocument, diagnostic: types.Diagnostic
) -> list[dict[str, Any]]:
    """The diagnostic's deferred codemod fixes, built now on the current text (as data)."""
    deferred = deferred_of(diagnostic)
    if not deferred:
        return []
    snapshot, encoding = document.snapshot(), ls.client.encoding
    if document.notebook:  # built on the notebook's module, split back into its cells
        cells = {
            cell.uri: cell.snapshot() for cell in ls.analyzer.open_code_cells(document.notebook)
        }
        texts = [(cell.uri, cell.version, cell.text) for cell in cells.values()]

        def build_in_cells() -> list[dict[str, Any]]:
            return [
                cell_fix_data(fix, snapshot, cells, encoding)
                for fix in notebook_cells.built_fixes(deferred, snapshot.uri, texts)
            ]

        return await ls.engine.run(build_in_cells)

    def build() -> list[dict[str, Any]]:
        return [
            fix_data(fix, snapshot.lines, encoding)
            for item in deferred
            for fix in build_deferred(item, snapshot.text)
        ]

    return await ls.engine.run(build)


async def _quickfixes(
    ls: JaxLanguageServer, document: OpenDocument, diagnostics: list[types.Diagnostic]
) -> list[types.CodeAction]:
    found: list[types.CodeAction] = []
    silenced: set[tuple[int, str]] = set()
    for diagnostic in diagnostics:
        built = await _built_fixes(ls, document, diagnostic)
        found += quickfixes(diagnostic, partial(_fix_edit, ls, document), built)
    for diagnostic in diagnostics:
        key = (diagnostic.range.start.line, str(diagnostic.code))
        # A syntax error is no rule's finding: a noqa comment does not silence it.
        if key in silenced or key[0] >= len(document.lines) or key[1] == SYNTAX_ERROR:
            continue
        silenced.add(key)
        edit = edits.noqa_edit(document, key[0], key[1], ls.client.encoding)
        found.append(
            types.CodeAction(
                title=f"{SOURCE} ({key[1]}): Disable for this line",
                kind=QUICKFIX,
                diagnostics=[diagnostic],
                edit=ls.workspace_edit(document, [edit]),
            )
        )
    return found


def _fix_edit(
    ls: JaxLanguageServer, document: OpenDocument, fix: dict[str, Any]
) -> types.WorkspaceEdit | None:
    """The fix's edits of the document and, for a notebook fix, of the other cells it edits;
    None when one of those cells changed since (its edits are for an older text)."""
    parts = [(document, text_edits(fix))]
    for uri, version, cell_text_edits in cell_edits(fix):
        cell = ls.documents.get(uri)
        if cell is None or cell.version != version:
            return None
        parts.append((cell, cell_text_edits))
    return ls.workspace_edits([(doc, found) for doc, found in parts if found])


async def resolve(ls: JaxLanguageServer, action: types.CodeAction) -> types.CodeAction:
    data = action.data if isinstance(action.data, dict) else {}
    document = ls.documents.get(data.get("uri", ""))
    if document is None or document.version != data.get("version") or action.edit:
        return action  # stale or already complete: no edit for an older text
    action.edit = await source_workspace_edit(ls, document.snapshot(), action.kind)
    return action


def _fixable(ls: JaxLanguageServer, document: OpenDocument, settings: Settings) -> bool:
    """Whether fix-all may change the document, or for a cell the notebook (True when not
    analyzed yet): spares clients that ask for code actions at every cursor move a fix-all
    run per request. A cell's findings lack the fixes that edit other cells: any finding
    there counts."""
    if document.notebook:
        cells = ls.analyzer.open_code_cells(document.notebook)
        results = [cell.current(ls.settings.generation) for cell in cells]
        return any(result is None or result.findings for result in results)
    result = document.current(ls.settings.generation)
    if result is None:
        return True
    return any(
        bool(f.deferred) or (f.fix is not None and (f.fix.is_safe or settings.unsafe_fixes))
        for f in result.findings
    )


def _touches(a: types.Range, b: types.Range) -> bool:
    def key(position: types.Position) -> tuple[int, int]:
        return position.line, position.character

    return key(a.start) <= key(b.end) and key(b.start) <= key(a.end)

"""An edit of one notebook cell that changes what another cell means (the cell jitting its
function deleted): that cell's diagnostics, code lens and inlay hints follow. The client asks
again only about the cell edited, so the server asks it to refresh its lenses and hints (and,
if it pulls the cells' diagnostics, those) — and does not when nothing else changed."""

from __future__ import annotations

from lsprotocol import types

from tests.e2e.conftest import apply_edits, capabilities, codes, diagnostics_for, wait_for
from tests.e2e.test_notebooks import _text_change, change_cells, fix_all_params, open_notebook

CELLS = [
    (types.NotebookCellKind.Code, "import jax\n"),
    (types.NotebookCellKind.Code, "def show(v):\n    print(v)\n    return v\n"),
    (types.NotebookCellKind.Code, "shown = jax.jit(show)\n"),
]


async def _start(client, pull: bool = False) -> dict[str, int]:
    """Initialized with lens, hint (and diagnostic) refresh support; the refreshes counted."""
    refreshes = {types.WORKSPACE_CODE_LENS_REFRESH: 0, types.WORKSPACE_INLAY_HINT_REFRESH: 0}

    def counter(method: str):
        def count(*_received: object) -> None:
            refreshes[method] += 1

        return count

    for method in refreshes:
        client.feature(method)(counter(method))
    supported = capabilities(pull=pull)
    supported.workspace.code_lens = types.CodeLensWorkspaceClientCapabilities(refresh_support=True)
    supported.workspace.inlay_hint = types.InlayHintWorkspaceClientCapabilities(
        refresh_support=True
    )
    await client.initialize_session(
        types.InitializeParams(
            capabilities=supported,
            initialization_options={"inlayHints": True, "codeLens": True},
        )
    )
    return refreshes


async def _lenses(client, uri: str) -> list[str]:
    found = await client.text_document_code_lens_async(
        types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    return [lens.command.title for lens in found or []]


async def _hints(client, uri: str) -> list[str]:
    found = await client.text_document_inlay_hint_async(
        types.InlayHintParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=types.Range(types.Position(0, 0), types.Position(9, 0)),
        )
    )
    return [str(hint.label) for hint in found or []]


def _delete_cell(client, notebook_uri: str, index: int, uri: str) -> None:
    change_cells(
        client,
        notebook_uri,
        types.NotebookDocumentCellChanges(
            structure=types.NotebookDocumentCellChangeStructure(
                array=types.NotebookCellArrayChange(start=index, delete_count=1),
                did_close=[types.TextDocumentIdentifier(uri=uri)],
            )
        ),
    )


async def _pulled(client, uri: str) -> list[str]:
    report = await client.text_document_diagnostic_async(
        types.DocumentDiagnosticParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    return [str(d.code) for d in report.items]


async def test_deleting_the_jitting_cell_refreshes_the_other_cells_lens_and_hints(client, tmp_path):
    refreshes = await _start(client)
    notebook_uri, cells = open_notebook(client, tmp_path, CELLS)
    await diagnostics_for(client, cells[1], lambda found: [d.code for d in found] == ["JAX101"])
    assert await _lenses(client, cells[1]) == ["jit · traced: v"]
    assert await _hints(client, cells[1]) == ["traced"]
    assert refreshes == {
        types.WORKSPACE_CODE_LENS_REFRESH: 0,
        types.WORKSPACE_INLAY_HINT_REFRESH: 0,
    }

    _delete_cell(client, notebook_uri, 2, cells[2])
    await diagnostics_for(client, cells[1], lambda found: found == [])  # nothing traces `show`
    await wait_for(lambda: all(refreshes.values()))
    assert await _lenses(client, cells[1]) == []
    assert await _hints(client, cells[1]) == []


async def test_an_edit_changing_no_other_cell_asks_for_no_refresh(client, tmp_path):
    refreshes = await _start(client)
    notebook_uri, cells = open_notebook(client, tmp_path, CELLS)
    await diagnostics_for(client, cells[1], bool)
    assert await _lenses(client, cells[1]) == ["jit · traced: v"]
    gotcha = "x = jax.numpy.zeros(3)\nx[0] = 1.0\n"
    change_cells(client, notebook_uri, _text_change(cells[2], 2, (1, 0), gotcha))
    # Published once the edit is analyzed (a refresh would have been asked for before).
    await diagnostics_for(client, cells[2], lambda found: codes(found) == ["JAX201"])
    assert await _lenses(client, cells[1]) == ["jit · traced: v"]
    assert refreshes == {
        types.WORKSPACE_CODE_LENS_REFRESH: 0,
        types.WORKSPACE_INLAY_HINT_REFRESH: 0,
    }


async def test_a_client_pulling_cells_is_asked_to_pull_the_other_cells_again(client, tmp_path):
    await _start(client, pull=True)
    notebook_uri, cells = open_notebook(client, tmp_path, CELLS)
    assert await _pulled(client, cells[1]) == ["JAX101"]
    before = client.diagnostic_refresh_count
    _delete_cell(client, notebook_uri, 2, cells[2])
    await wait_for(lambda: client.diagnostic_refresh_count > before)
    assert await _pulled(client, cells[1]) == []


async def test_fix_all_right_after_a_cell_edit_fixes_the_text_as_edited(client, tmp_path):
    """Answered without waiting for the edit's analysis: the action is resolved on the cells
    as they are then, the edit included."""
    await client.initialize_session(
        types.InitializeParams(capabilities=capabilities(resolve=True, document_changes=True))
    )
    notebook_uri, cells = open_notebook(client, tmp_path, CELLS)
    await diagnostics_for(client, cells[1], bool)
    gotcha = "x = jax.numpy.zeros(3)\nx[0] = 1.0\n"
    change_cells(client, notebook_uri, _text_change(cells[2], 2, (1, 0), gotcha))
    (action,) = await client.text_document_code_action_async(fix_all_params(cells[2]))
    resolved = await client.code_action_resolve_async(action)
    (edit,) = resolved.edit.document_changes
    assert edit.text_document.uri == cells[2] and edit.text_document.version == 2
    assert apply_edits(CELLS[2][1] + gotcha, edit.edits, "utf-16") == (
        "shown = jax.jit(show)\nx = jax.numpy.zeros(3)\nx = x.at[0].set(1.0)\n"
    )

"""Notebooks: code cells analysed as one module, diagnostics on the right cell and line."""

from __future__ import annotations

from lsprotocol import types

from tests.e2e.conftest import codes, diagnostics_for, start

CELLS = [
    (types.NotebookCellKind.Code, "%matplotlib inline\nimport jax.numpy as jnp\n"),
    (types.NotebookCellKind.Markup, "# Updating arrays\n"),
    (types.NotebookCellKind.Code, "x = jnp.arange(5.0)\n\nx[1] += 5.0"),
    (types.NotebookCellKind.Code, "y = x\ny.at[0].set(1.0)\n"),
]


def open_notebook(client, tmp_path):
    notebook_uri = (tmp_path / "demo.ipynb").as_uri()
    cell_uris = [f"{notebook_uri}#cell{index}" for index in range(len(CELLS))]
    client.notebook_document_did_open(
        types.DidOpenNotebookDocumentParams(
            notebook_document=types.NotebookDocument(
                uri=notebook_uri,
                notebook_type="jupyter-notebook",
                version=1,
                cells=[
                    types.NotebookCell(kind=kind, document=uri)
                    for (kind, _), uri in zip(CELLS, cell_uris, strict=True)
                ],
            ),
            cell_text_documents=[
                types.TextDocumentItem(
                    uri=uri,
                    language_id="python" if kind == types.NotebookCellKind.Code else "markdown",
                    version=1,
                    text=text,
                )
                for (kind, text), uri in zip(CELLS, cell_uris, strict=True)
            ],
        )
    )
    return notebook_uri, cell_uris


def change_cells(client, notebook_uri: str, cells: types.NotebookDocumentCellChanges) -> None:
    client.notebook_document_did_change(
        types.DidChangeNotebookDocumentParams(
            notebook_document=types.VersionedNotebookDocumentIdentifier(
                uri=notebook_uri, version=2
            ),
            change=types.NotebookDocumentChangeEvent(cells=cells),
        )
    )


async def test_cells_analysed_together(client, tmp_path):
    await start(client)
    notebook_uri, cells = open_notebook(client, tmp_path)
    third = await diagnostics_for(client, cells[2], bool)
    assert codes(third) == ["JAX202"]
    assert third[0].range == types.Range(types.Position(2, 0), types.Position(2, 4))
    assert third[0].data["fixes"][0]["edits"][0]["range"]["start"] == {"line": 2, "character": 0}
    fourth = await diagnostics_for(client, cells[3], bool)
    assert codes(fourth) == ["JAX203"]
    assert fourth[0].range.start == types.Position(1, 0)
    assert list(client.diagnostics[cells[0]]) == []  # the magic line costs nothing

    # Edit the third cell: the fix goes away there, the fourth cell keeps its finding.
    edit = types.TextDocumentContentChangePartial(
        range=types.Range(types.Position(2, 0), types.Position(2, 11)), text="x = x.at[1].add(5.0)"
    )
    change_cells(
        client,
        notebook_uri,
        types.NotebookDocumentCellChanges(
            text_content=[
                types.NotebookDocumentCellContentChanges(
                    document=types.VersionedTextDocumentIdentifier(uri=cells[2], version=2),
                    changes=[edit],
                )
            ]
        ),
    )
    await diagnostics_for(client, cells[2], lambda found: found == [])
    assert codes(client.diagnostics[cells[3]]) == ["JAX203"]

    hover = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=cells[3]),
            position=types.Position(1, 2),
        )
    )
    assert hover is not None and "JAX203" in hover.contents.value

    client.notebook_document_did_close(
        types.DidCloseNotebookDocumentParams(
            notebook_document=types.NotebookDocumentIdentifier(uri=notebook_uri),
            cell_text_documents=[types.TextDocumentIdentifier(uri=uri) for uri in cells],
        )
    )
    await diagnostics_for(client, cells[3], lambda found: found == [])


async def test_cells_pulled(client, tmp_path):
    await start(client, pull=True)
    _, cells = open_notebook(client, tmp_path)
    report = await client.text_document_diagnostic_async(
        types.DocumentDiagnosticParams(text_document=types.TextDocumentIdentifier(uri=cells[2]))
    )
    assert codes(report.items) == ["JAX202"]
    assert cells[2] not in client.diagnostics  # pull clients are never pushed to


async def test_removing_the_import_cell(client, tmp_path):
    await start(client)
    notebook_uri, cells = open_notebook(client, tmp_path)
    await diagnostics_for(client, cells[2], bool)
    change_cells(
        client,
        notebook_uri,
        types.NotebookDocumentCellChanges(
            structure=types.NotebookDocumentCellChangeStructure(
                array=types.NotebookCellArrayChange(start=0, delete_count=1),
                did_close=[types.TextDocumentIdentifier(uri=cells[0])],
            )
        ),
    )
    # Without the import cell `jnp` is unknown: `x[1] += 5.0` is no longer known to be wrong.
    await diagnostics_for(client, cells[2], lambda found: found == [])
    await diagnostics_for(client, cells[0], lambda found: found == [])  # closed: cleared
    assert codes(client.diagnostics[cells[3]]) == ["JAX203"]

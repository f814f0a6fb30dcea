"""Notebooks: code cells analyzed as one module, diagnostics on the right cell and line,
pushed to clients that pull text documents but not cells; quick fixes right after a cell edit,
fix-all of the whole notebook, inlay hints and code lenses in cells."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys

import pytest
from lsprotocol import types

from tests.e2e.conftest import (
    apply_edits,
    codes,
    diagnostics_for,
    edits_of,
    start,
    wait_for,
)

CELLS = [
    (types.NotebookCellKind.Code, "%matplotlib inline\nimport jax.numpy as jnp\n"),
    (types.NotebookCellKind.Markup, "# Updating arrays\n"),
    (types.NotebookCellKind.Code, "x = jnp.arange(5.0)\n\nx[1] += 5.0"),
    # Not the cell's last expression, which the cell would display: its result is discarded.
    (types.NotebookCellKind.Code, "y = x\ny.at[0].set(1.0)\ny\n"),
]


def open_notebook(client, tmp_path, cells=CELLS):
    notebook_uri = (tmp_path / "demo.ipynb").as_uri()
    cell_uris = [f"{notebook_uri}#cell{index}" for index in range(len(cells))]
    client.notebook_document_did_open(
        types.DidOpenNotebookDocumentParams(
            notebook_document=types.NotebookDocument(
                uri=notebook_uri,
                notebook_type="jupyter-notebook",
                version=1,
                cells=[
                    types.NotebookCell(kind=kind, document=uri)
                    for (kind, _), uri in zip(cells, cell_uris, strict=True)
                ],
            ),
            cell_text_documents=[
                types.TextDocumentItem(
                    uri=uri,
                    language_id="python" if kind == types.NotebookCellKind.Code else "markdown",
                    version=1,
                    text=text,
                )
                for (kind, text), uri in zip(cells, cell_uris, strict=True)
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


async def test_cells_analyzed_together(client, tmp_path):
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
    _update_third_cell(client, notebook_uri, cells)
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


async def test_cells_pushed_to_a_client_that_pulls_only_files(client, tmp_path):
    """vscode-languageclient 9 pulls a file's diagnostics but never a cell's: cells are pushed."""
    await start(client, pull=True)
    _, cells = open_notebook(client, tmp_path)
    assert codes(await diagnostics_for(client, cells[2], bool)) == ["JAX202"]
    assert codes(await diagnostics_for(client, cells[3], bool)) == ["JAX203"]


DISPLAYED_CELLS = [
    (types.NotebookCellKind.Code, "import jax.numpy as jnp\nw = jnp.zeros(3)"),
    (types.NotebookCellKind.Code, "w.at[0].set(5.0)"),
    (types.NotebookCellKind.Code, "w.at[1].add(1.0)\nw"),
]


async def test_a_cells_displayed_last_expression_is_no_discarded_update(client, tmp_path):
    """The cell shows the value of its last expression (IPython's `last_expr`), as `check`
    reads an .ipynb's cells (tests/test_ipynb.py): only the third cell's first line loses its
    update."""
    await start(client)
    _, cells = open_notebook(client, tmp_path, DISPLAYED_CELLS)
    (third,) = await diagnostics_for(client, cells[2], bool)
    assert third.code == "JAX203" and third.range.start == types.Position(0, 0)
    assert list(client.diagnostics[cells[1]]) == []


async def test_cells_pulled(client, tmp_path):
    """A client that pulls cells gets them pulled only: what was pushed is withdrawn."""
    await start(client, pull=True)
    notebook_uri, cells = open_notebook(client, tmp_path)
    report = await client.text_document_diagnostic_async(
        types.DocumentDiagnosticParams(text_document=types.TextDocumentIdentifier(uri=cells[2]))
    )
    assert codes(report.items) == ["JAX202"]
    await diagnostics_for(client, cells[2], lambda found: found == [])
    await diagnostics_for(client, cells[3], lambda found: found == [])
    change_cells(client, notebook_uri, _text_change(cells[3], 2, (1, 0), "z = 1\n"))
    await asyncio.sleep(1.0)  # time for a push that must not come
    assert list(client.diagnostics[cells[3]]) == []


def _text_change(
    uri: str, version: int, at: tuple[int, int], text: str, end: tuple[int, int] | None = None
):
    """`text` put in the cell at `at` (replacing what lies up to `end`, if given)."""
    edit = types.TextDocumentContentChangePartial(
        range=types.Range(types.Position(*at), types.Position(*(end or at))), text=text
    )
    return types.NotebookDocumentCellChanges(
        text_content=[
            types.NotebookDocumentCellContentChanges(
                document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
                changes=[edit],
            )
        ]
    )


def _update_third_cell(client, notebook_uri: str, cells: list[str]) -> None:
    """The third cell's `x[1] += 5.0` rewritten as the update JAX takes (no finding left)."""
    change = _text_change(cells[2], 2, (2, 0), "x = x.at[1].add(5.0)", end=(2, 11))
    change_cells(client, notebook_uri, change)


TRACED_CELLS = [
    (types.NotebookCellKind.Code, "import jax\nimport jax.numpy as jnp\n"),
    (types.NotebookCellKind.Markup, "# Steps\n"),
    (types.NotebookCellKind.Code, "x = jnp.arange(5.0)\n\nx[1] += 5.0"),
    (types.NotebookCellKind.Code, "@jax.jit\ndef step(v, n):\n    return v * n\n"),
    (types.NotebookCellKind.Code, "y = x\ny.at[0].set(1.0)\ny\n"),
]


@pytest.mark.parametrize("pull", [False, True])
async def test_quick_fix_right_after_a_cell_edit(client, tmp_path, pull):
    """Ctrl+. straight after typing: the client's markers are of the old text (none here), the
    server answers from the cell as it is now."""
    await start(client, pull=pull)
    notebook_uri, cells = open_notebook(client, tmp_path, TRACED_CELLS)
    await diagnostics_for(client, cells[2], bool)
    change_cells(client, notebook_uri, _text_change(cells[4], 2, (2, 0), "x[2] = 0.0\n"))
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=cells[4]),
            range=types.Range(types.Position(2, 1), types.Position(2, 1)),
            context=types.CodeActionContext(diagnostics=[], only=[types.CodeActionKind.QuickFix]),
        )
    )
    fixes = [action for action in actions or [] if action.is_preferred]
    assert len(fixes) == 1 and "JAX201" in fixes[0].title
    fixed = apply_edits(
        "y = x\ny.at[0].set(1.0)\nx[2] = 0.0\ny\n", edits_of(fixes[0].edit, cells[4]), "utf-16"
    )
    assert fixed == "y = x\ny.at[0].set(1.0)\nx = x.at[2].set(0.0)\ny\n"


def fix_all_params(uri: str) -> types.CodeActionParams:
    """A Fix All request (`source.fixAll`) in `uri`."""
    return types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=uri),
        range=types.Range(types.Position(0, 0), types.Position(0, 0)),
        context=types.CodeActionContext(diagnostics=[], only=[types.CodeActionKind.SourceFixAll]),
    )


@pytest.mark.parametrize("lazy", [False, True])
async def test_fix_all_fixes_every_cell(client, tmp_path, lazy):
    await start(client, resolve=lazy, document_changes=True)
    _, cells = open_notebook(client, tmp_path, TRACED_CELLS)
    await diagnostics_for(client, cells[4], bool)
    (action,) = await client.text_document_code_action_async(fix_all_params(cells[3]))
    assert action.kind == "source.fixAll.jax-lsp"
    if lazy:
        action = await client.code_action_resolve_async(action)
    changed = {edit.text_document.uri: edit for edit in action.edit.document_changes}
    assert set(changed) == {cells[2], cells[4]}  # only the cells that change
    assert changed[cells[2]].text_document.version == 1
    texts = {uri: text for (_, text), uri in zip(TRACED_CELLS, cells, strict=True)}
    assert apply_edits(texts[cells[2]], changed[cells[2]].edits, "utf-16") == (
        "x = jnp.arange(5.0)\n\nx = x.at[1].add(5.0)"
    )
    assert apply_edits(texts[cells[4]], changed[cells[4]].edits, "utf-16") == (
        "y = x\ny = y.at[0].set(1.0)\ny\n"
    )


async def test_hints_and_lenses_in_a_cell(client, tmp_path):
    """`jax` comes from the first cell: the jitted function in the fourth is known traced."""
    await start(client, options={"inlayHints": True})
    _, cells = open_notebook(client, tmp_path, TRACED_CELLS)
    cell = types.TextDocumentIdentifier(uri=cells[3])
    lenses = await client.text_document_code_lens_async(types.CodeLensParams(text_document=cell))
    assert [(lens.range.start, lens.command.title) for lens in lenses] == [
        (types.Position(1, 4), "jit · traced: v, n")
    ]
    other = types.TextDocumentIdentifier(uri=cells[2])
    assert not await client.text_document_code_lens_async(types.CodeLensParams(text_document=other))
    hints = await client.text_document_inlay_hint_async(
        types.InlayHintParams(
            text_document=cell, range=types.Range(types.Position(0, 0), types.Position(5, 0))
        )
    )
    assert [(hint.position, hint.label) for hint in hints] == [
        (types.Position(1, 10), "traced"),
        (types.Position(1, 13), "traced"),
    ]


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


async def test_cells_get_the_cross_module_facts(client, tmp_path):
    """A cell that indexes what another workspace module's function returns: only the facts
    about that module (read by the engine, as for a file) tell that it is a JAX array."""
    (tmp_path / "helpers.py").write_text(
        "import jax.numpy as jnp\n\ndef make_state():\n    return jnp.zeros(3)\n"
    )
    cells = [
        (types.NotebookCellKind.Code, "from helpers import make_state\n"),
        (types.NotebookCellKind.Code, "state = make_state()\nstate[0] = 1.0\n"),
    ]
    await start(client, root=tmp_path)
    _, uris = open_notebook(client, tmp_path, cells)
    found = await diagnostics_for(client, uris[1], bool)
    assert codes(found) == ["JAX201"]
    assert found[0].range.start == types.Position(1, 0)
    assert list(client.diagnostics[uris[0]]) == []


# As VS Code sends cells: no final newline. The import cell is not the first cell.
IMPORT_CELLS = [
    (types.NotebookCellKind.Markup, "# Padding\n"),
    (types.NotebookCellKind.Code, "import jax\nimport jax.numpy as jnp"),
    (types.NotebookCellKind.Code, "xs = jnp.ones(3)"),
    (types.NotebookCellKind.Code, "@jax.jit\ndef padded(x, n):\n    return jnp.zeros(n) + x.sum()"),
]


async def _actions_for(client, uri: str, diagnostic: types.Diagnostic) -> list[types.CodeAction]:
    """The code actions offered for `diagnostic` of the cell `uri` (Ctrl+. on it)."""
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=diagnostic.range,
            context=types.CodeActionContext(diagnostics=[diagnostic]),
        )
    )
    return actions or []


def _fixed_by_cli(tmp_path, cells, *options: str) -> list[str]:
    """The code cells' sources after `jax-lsp check --fix` on the same notebook saved as a
    file."""
    path = tmp_path / "saved.ipynb"
    path.write_text(
        json.dumps(
            {
                "cells": [
                    {
                        "cell_type": "code" if kind == types.NotebookCellKind.Code else "markdown",
                        "metadata": {},
                        "source": text,
                    }
                    for kind, text in cells
                ],
                "metadata": {},
                "nbformat": 4,
                "nbformat_minor": 5,
            }
        )
    )
    subprocess.run(
        [sys.executable, "-m", "jax_lsp", "check", "--fix", *options, path.name],
        cwd=tmp_path,
        capture_output=True,
        timeout=120,
        check=False,
    )
    saved = json.loads(path.read_text())["cells"]
    return ["".join(cell["source"]) for cell in saved if cell["cell_type"] == "code"]


@pytest.mark.parametrize("document_changes", [True, False])
async def test_a_fix_that_adds_an_import_edits_the_import_cell(client, tmp_path, document_changes):
    """The static-argument fix needs `from functools import partial`: one workspace edit adds it
    to the cell that imports jax (after its imports, where `check --fix` puts it) and rewrites
    the decorator in the cell of the finding; the result is the CLI's."""
    await start(client, document_changes=document_changes)
    _, cells = open_notebook(client, tmp_path, IMPORT_CELLS)
    (finding,) = await diagnostics_for(client, cells[3], bool)
    assert finding.code == "JAX803"
    actions = await _actions_for(client, cells[3], finding)
    (static,) = [a for a in actions if "static_argnames" in a.title]
    edit = static.edit
    if document_changes:
        changed = {change.text_document.uri: change for change in edit.document_changes}
        assert {uri: change.text_document.version for uri, change in changed.items()} == {
            cells[1]: 1,
            cells[3]: 1,
        }
        by_cell = {uri: change.edits for uri, change in changed.items()}
    else:
        by_cell = edit.changes
    assert set(by_cell) == {cells[1], cells[3]}
    texts = [
        apply_edits(text, by_cell.get(uri, []), "utf-16")
        for (kind, text), uri in zip(IMPORT_CELLS, cells, strict=True)
        if kind == types.NotebookCellKind.Code
    ]
    assert texts == [
        "import jax\nimport jax.numpy as jnp\nfrom functools import partial",
        "xs = jnp.ones(3)",
        '@partial(jax.jit, static_argnames=("n",))\ndef padded(x, n):\n'
        "    return jnp.zeros(n) + x.sum()",
    ]
    assert texts == _fixed_by_cli(tmp_path, IMPORT_CELLS, "--unsafe-fixes")


async def test_a_notebook_fix_is_not_offered_for_an_import_cell_since_edited(client, tmp_path):
    """The client's diagnostic still carries the edit of the import cell as it was: once that
    cell changed, the fix is withheld (the cell's new diagnostics bring it back)."""
    await start(client, document_changes=True)
    notebook_uri, cells = open_notebook(client, tmp_path, IMPORT_CELLS)
    (finding,) = await diagnostics_for(client, cells[3], bool)
    change_cells(client, notebook_uri, _text_change(cells[1], 2, (0, 0), "import math\n"))

    async def titles(diagnostic: types.Diagnostic) -> list[str]:
        return [action.title for action in await _actions_for(client, cells[3], diagnostic)]

    assert not [title for title in await titles(finding) if "static_argnames" in title]
    await wait_for(lambda: client.diagnostics[cells[3]][0].data != finding.data)
    (fresh,) = client.diagnostics[cells[3]]
    assert [title for title in await titles(fresh) if "static_argnames" in title]


async def test_a_related_place_in_another_cell_points_there_and_names_it(client, tmp_path):
    """`jax.jit` in the fourth cell traces `f` of the third: the related information of the
    `print` finding points into that cell, and says which (the Problems panel names only the
    notebook), counting cells as VS Code does ("Cell 4 of 5", markdown too); a related place in
    the same cell is as in a file."""
    code, markup = types.NotebookCellKind.Code, types.NotebookCellKind.Markup
    traced_here = "def h(y):\n    print(y)\n    return y\n\nk = jax.jit(h)"
    cells = [(code, "import jax"), (markup, "# Steps"), (code, "def f(x):\n    print(x)\n")]
    cells += [(code, "g = jax.jit(f)"), (code, traced_here)]
    await start(client, related=True)
    _, uris = open_notebook(client, tmp_path, cells)
    (elsewhere,) = await diagnostics_for(client, uris[2], bool)
    assert elsewhere.code == "JAX101"
    assert [
        (r.location.uri, r.location.range.start, r.message) for r in elsewhere.related_information
    ] == [(uris[3], types.Position(0, 4), "cell 4: `jax.jit` traces `f` here")]
    (here,) = await diagnostics_for(client, uris[4], bool)
    assert [
        (r.location.uri, r.location.range.start, r.message) for r in here.related_information
    ] == [(uris[4], types.Position(4, 4), "`jax.jit` traces `h` here")]


async def test_a_codemod_fix_in_a_cell_is_built_on_the_notebook(client, tmp_path):
    """The `jnp.where` rewrite of a masked reduction is a codemod built when asked: in a cell it
    is built on the notebook's module (the third cell sits below two others) and comes back as
    the cell's edit, as `check --fix` rewrites the saved notebook."""
    code = types.NotebookCellKind.Code
    cells = [*IMPORT_CELLS[:3], (code, "@jax.jit\ndef positive_sum(x):\n    return x[x > 0].sum()")]
    await start(client, document_changes=True)
    _, uris = open_notebook(client, tmp_path, cells)
    (finding,) = await diagnostics_for(client, uris[3], bool)
    actions = await _actions_for(client, uris[3], finding)
    (where,) = [action for action in actions if "jnp.where" in action.title]
    (change,) = where.edit.document_changes
    assert (change.text_document.uri, change.text_document.version) == (uris[3], 1)
    texts = [text for kind, text in cells if kind == code]
    texts[-1] = apply_edits(texts[-1], change.edits, "utf-16")
    assert "jnp.where(x > 0, x, 0).sum()" in texts[-1]
    assert texts == _fixed_by_cli(tmp_path, cells, "--unsafe-fixes")


NAN_CELLS = [
    (types.NotebookCellKind.Markup, "# Hunting NaNs\n"),
    (types.NotebookCellKind.Code, "%matplotlib inline\nimport jax.numpy as jnp\n"),
    (types.NotebookCellKind.Code, "def f(x):\n    return jnp.log(x)\n"),
    (types.NotebookCellKind.Code, "y = f(jnp.array(-1.0))\n"),
]


def _source_params(uri: str, only: list[str]) -> types.CodeActionParams:
    return types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=uri),
        range=types.Range(types.Position(0, 0), types.Position(0, 0)),
        context=types.CodeActionContext(diagnostics=[], only=only),
    )


def _run_python(program: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, timeout=120, check=False
    )


@pytest.mark.parametrize("lazy", [False, True])
async def test_enable_debug_nans_in_a_cell_edits_the_import_cell(client, tmp_path, lazy):
    """Source Action in any cell offers what a file gets: enabling jax_debug_nans inserts the
    setting (and `import jax`) after the notebook's imports, in the cell holding them; run,
    the notebook then raises at the NaN."""
    await start(client, resolve=lazy, document_changes=True)
    notebook_uri, cells = open_notebook(client, tmp_path, NAN_CELLS)
    await diagnostics_for(client, cells[3], lambda found: True)
    actions = await client.text_document_code_action_async(
        _source_params(cells[3], ["source.jax-lsp"])
    )
    assert [action.kind for action in actions] == ["source.jax-lsp.enableDebugNans"]
    (action,) = actions
    if lazy:
        assert action.edit is None
        action = await client.code_action_resolve_async(action)
    changed = {change.text_document.uri: change for change in action.edit.document_changes}
    assert set(changed) == {cells[1]}  # only the import cell
    assert changed[cells[1]].text_document.version == 1
    fixed_cell = apply_edits(NAN_CELLS[1][1], changed[cells[1]].edits, "utf-16")
    assert fixed_cell == (
        "%matplotlib inline\nimport jax.numpy as jnp\nimport jax\n\n"
        'jax.config.update("jax_debug_nans", True)\n'
    )
    # The cells as the kernel runs them (without the magic), in a fresh interpreter (the
    # setting is process-wide): a NaN before, FloatingPointError after.
    rest = "".join(text for _, text in NAN_CELLS[2:]) + "print(float(y))\n"
    before = _run_python(NAN_CELLS[1][1].removeprefix("%matplotlib inline\n") + rest)
    assert before.returncode == 0 and before.stdout.strip() == "nan", before.stderr
    after = _run_python(fixed_cell.removeprefix("%matplotlib inline\n") + rest)
    assert after.returncode != 0 and "FloatingPointError" in after.stderr, after.stderr

    # Once a cell sets it, no cell offers it again.
    change_cells(client, notebook_uri, _text_change(cells[2], 2, (0, 0), "jax_debug_nans = 1\n"))
    again = await client.text_document_code_action_async(
        _source_params(cells[3], ["source.jax-lsp"])
    )
    assert not again


PADDED_CELLS = [
    (types.NotebookCellKind.Code, "import jax\nimport jax.numpy as jnp\n"),
    (types.NotebookCellKind.Markup, "# Padding\n"),
    (types.NotebookCellKind.Code, "@jax.jit\ndef padded(v, n):\n    return jnp.zeros(n) + v.sum()"),
]


@pytest.mark.parametrize("lazy", [False, True])
async def test_source_actions_right_after_a_fix_edited_two_cells(client, tmp_path, lazy):
    """What VS Code sends when the static_argnames fix is applied and Source Action is asked at
    once: the two cells' edits and the request back to back, nothing awaited between them
    (the VS Code e2e step that said "No source actions available"). The answer is for the
    text the client has: the debug-NaNs action for the cell's new version, whose
    edit lands after the import the fix just added to the first cell."""
    await start(client, resolve=lazy, document_changes=True)
    notebook_uri, cells = open_notebook(client, tmp_path, PADDED_CELLS)
    await diagnostics_for(client, cells[2], bool)
    decorator = _text_change(
        cells[2], 2, (0, 1), 'partial(jax.jit, static_argnames=("n",))', (0, 8)
    )
    change_cells(client, notebook_uri, decorator)
    change_cells(
        client, notebook_uri, _text_change(cells[0], 2, (2, 0), "from functools import partial\n")
    )
    actions = await client.text_document_code_action_async(_source_params(cells[2], ["source"]))
    # Fix All comes too while the new cells are not analyzed yet (nothing is left to fix once
    # they are): when depends on the timing, so it is not asserted here.
    (nans,) = [action for action in actions if action.kind == "source.jax-lsp.enableDebugNans"]
    if lazy:
        assert nans.data == {"uri": cells[2], "version": 2}
        nans = await client.code_action_resolve_async(nans)
    changed = {change.text_document.uri: change for change in nans.edit.document_changes}
    assert set(changed) == {cells[0]} and changed[cells[0]].text_document.version == 2
    first = "import jax\nimport jax.numpy as jnp\nfrom functools import partial\n"
    assert apply_edits(first, changed[cells[0]].edits, "utf-16") == (
        # The blank lines an added import gets, ruff's: the cell after it starts with a `def`.
        first + '\njax.config.update("jax_debug_nans", True)\n\n\n'
    )


class _CountedPublications(dict):
    """`client.diagnostics` that counts the publications of each document."""

    def __init__(self, *args) -> None:
        super().__init__(*args)
        self.count: dict[str, int] = {}

    def __setitem__(self, uri: str, diagnostics) -> None:
        self.count[uri] = self.count.get(uri, 0) + 1
        super().__setitem__(uri, diagnostics)


async def test_an_edit_in_one_cell_does_not_republish_the_unchanged_others(client, tmp_path):
    # Every publication is a change of a cell's markers to VS Code, which then asks the cell's
    # code actions again and cancels a Source Action request still pending.
    await start(client)
    client.diagnostics = counted = _CountedPublications(client.diagnostics)
    notebook_uri, cells = open_notebook(client, tmp_path)
    await diagnostics_for(client, cells[2], bool)
    await diagnostics_for(client, cells[3], bool)
    first = dict(counted.count)
    _update_third_cell(client, notebook_uri, cells)
    await diagnostics_for(client, cells[2], lambda found: found == [])
    assert counted.count[cells[2]] == first[cells[2]] + 1
    # Another round trip after the publication: anything sent with it has arrived.
    await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=cells[3]),
            position=types.Position(1, 2),
        )
    )
    assert counted.count[cells[3]] == first[cells[3]]  # its JAX203 is unchanged: not sent again
    assert codes(client.diagnostics[cells[3]]) == ["JAX203"]
    # Closed and opened again, a cell gets its diagnostics whatever was sent before.
    client.notebook_document_did_close(
        types.DidCloseNotebookDocumentParams(
            notebook_document=types.NotebookDocumentIdentifier(uri=notebook_uri),
            cell_text_documents=[types.TextDocumentIdentifier(uri=uri) for uri in cells],
        )
    )
    await diagnostics_for(client, cells[3], lambda found: found == [])
    open_notebook(client, tmp_path)
    await diagnostics_for(client, cells[3], lambda found: codes(found) == ["JAX203"])

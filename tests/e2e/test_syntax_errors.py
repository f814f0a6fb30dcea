"""A syntax error in the editor is what `check` reports (ruff's `invalid-syntax`: the same code,
message, severity and range), pushed and pulled, in a notebook's cell and in a file that is not
open, beside the findings of the lines that parse; it offers no fix and no noqa, and goes once
the text parses."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from lsprotocol import types

from tests.cli.helpers import jax_lsp
from tests.e2e.conftest import TIMEOUT, change, codes, diagnostics_for, open_document, start
from tests.e2e.test_notebooks import open_notebook

# JAX203 on line 4; `def broken(:` does not parse.
BROKEN = "import jax.numpy as jnp\n\nx = jnp.zeros(3)\nx.at[0].set(1.0)\ndef broken(:\n    pass\n"
CELLS = [
    "import jax.numpy as jnp\n",
    "x = jnp.zeros(3)\nx.at[0].set(1.0)\nx\n",  # JAX203 (the cell displays `x`)
    "def broken(:\n    pass\n",
]
_SEVERITY = {
    types.DiagnosticSeverity.Error: "error",
    types.DiagnosticSeverity.Warning: "warning",
    types.DiagnosticSeverity.Information: "info",
}

Row = tuple  # (cell or None, code, severity, message, start line, column, end line, column)


def cli_rows(path: Path) -> list[Row]:
    """`check`'s findings of `path` (0-based positions; a notebook's in their cells)."""
    run = jax_lsp("check", "--output-format", "json", path.name, cwd=path.parent)
    return sorted(
        (
            row["cell"] - 1 if row.get("cell") else None,
            row["code"],
            row["severity"],
            row["message"],
            row["location"]["row"] - 1,
            row["location"]["column"] - 1,
            row["end_location"]["row"] - 1,
            row["end_location"]["column"] - 1,
        )
        for row in json.loads(run.stdout)
    )


def server_rows(diagnostics: list[types.Diagnostic], cell: int | None = None) -> list[Row]:
    return sorted(
        (
            cell,
            str(d.code),
            _SEVERITY[d.severity],
            d.message,
            d.range.start.line,
            d.range.start.character,
            d.range.end.line,
            d.range.end.character,
        )
        for d in diagnostics
    )


def has_syntax_error(found: list[types.Diagnostic]) -> bool:
    return "invalid-syntax" in codes(found)


async def test_pushed_as_check_reports_it_and_gone_once_the_text_parses(client, tmp_path):
    path = tmp_path / "broken.py"
    path.write_text(BROKEN)
    await start(client)
    uri = open_document(client, path, BROKEN)
    found = await diagnostics_for(client, uri, has_syntax_error)
    assert server_rows(found) == cli_rows(path)
    assert codes(found) == ["JAX203", "invalid-syntax"]  # the lines that parse are checked

    (syntax,) = [d for d in found if d.code == "invalid-syntax"]
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=syntax.range,
            context=types.CodeActionContext(
                diagnostics=[syntax], only=[types.CodeActionKind.QuickFix]
            ),
        )
    )
    assert not [a for a in actions or [] if "invalid-syntax" in a.title]  # no fix, no noqa

    change(client, uri, 2, "x", (4, 11))  # `def broken(x:` is still half-typed
    found = await diagnostics_for(
        client, uri, lambda found: bool(found) and found[0].data["version"] == 2
    )
    assert codes(found) == ["JAX203", "invalid-syntax"]
    change(client, uri, 3, ")", (4, 12))  # `def broken(x):` parses
    found = await diagnostics_for(client, uri, lambda found: not has_syntax_error(found))
    assert codes(found) == ["JAX203"]


async def test_pulled_as_check_reports_it(client, tmp_path):
    path = tmp_path / "broken.py"
    path.write_text(BROKEN)
    await start(client, pull=True)
    uri = open_document(client, path, BROKEN)
    report = await client.text_document_diagnostic_async(
        types.DocumentDiagnosticParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    assert server_rows(report.items) == cli_rows(path)
    assert "invalid-syntax" in codes(report.items)


async def test_in_the_cell_that_holds_it_as_check_reports_a_notebook(client, tmp_path):
    path = tmp_path / "demo.ipynb"
    cells = [
        {
            "cell_type": "code",
            "metadata": {},
            "source": text,
            "outputs": [],
            "execution_count": None,
        }
        for text in CELLS
    ]
    path.write_text(
        json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5})
    )
    await start(client)
    _, cell_uris = open_notebook(
        client, tmp_path, [(types.NotebookCellKind.Code, text) for text in CELLS]
    )
    await diagnostics_for(client, cell_uris[2], has_syntax_error)
    await diagnostics_for(client, cell_uris[1], bool)
    published = [
        row
        for index, uri in enumerate(cell_uris)
        for row in server_rows(list(client.diagnostics.get(uri, [])), index)
    ]
    assert sorted(published) == cli_rows(path)
    assert [row[:2] for row in sorted(published)] == [(1, "JAX203"), (2, "invalid-syntax")]


async def test_a_file_not_open_has_it_in_the_workspace_diagnostics(client, tmp_path):
    path = tmp_path / "broken.py"
    path.write_text(BROKEN)
    (tmp_path / "clean.py").write_text("x = 1\n")
    await start(client, root=tmp_path, pull=True)
    open_document(client, tmp_path / "clean.py", "x = 1\n")
    deadline = asyncio.get_running_loop().time() + TIMEOUT
    while True:
        result = await client.workspace_diagnostic_async(
            types.WorkspaceDiagnosticParams(previous_result_ids=[])
        )
        reports = {item.uri: item for item in result.items}
        report = reports.get(path.as_uri())
        if report is not None and report.kind == "full" and report.items:
            break
        assert asyncio.get_running_loop().time() < deadline, "timed out pulling the workspace"
        await asyncio.sleep(0.1)
    assert server_rows(report.items) == cli_rows(path)
    assert "invalid-syntax" in codes(report.items)

"""Sync and diagnostics: fields, push vs pull, incremental edits, half-typed lines, encodings."""

from __future__ import annotations

import asyncio

import pytest
from lsprotocol import types

from jax_lsp.diagnostics import RULES_BY_CODE
from tests.e2e.conftest import change, codes, diagnostics_for, open_document, start

GOTCHA = "import jax.numpy as jnp\n\nx = jnp.arange(5.0)\nx[1] += 5.0\n"


async def test_diagnostic_fields(client, tmp_path):
    await start(client)
    uri = open_document(client, tmp_path / "a.py", GOTCHA)
    (diagnostic,) = await diagnostics_for(client, uri, bool)
    assert diagnostic.code == "JAX202"
    assert diagnostic.source == "jax-lsp"
    assert diagnostic.severity == types.DiagnosticSeverity.Error
    assert diagnostic.code_description.href == RULES_BY_CODE["JAX202"].url()
    assert diagnostic.range == types.Range(types.Position(3, 0), types.Position(3, 4))
    assert "TypeError" in diagnostic.message
    assert diagnostic.data["version"] == 1
    (fix,) = diagnostic.data["fixes"]
    assert fix["title"] == "Replace with `x = x.at[1].add(5.0)`"
    assert fix["safe"] is True
    assert fix["edits"] == [
        {
            "range": {"start": {"line": 3, "character": 0}, "end": {"line": 3, "character": 11}},
            "newText": "x = x.at[1].add(5.0)",
        }
    ]


async def test_close_clears(client, tmp_path):
    await start(client)
    uri = open_document(client, tmp_path / "a.py", GOTCHA)
    await diagnostics_for(client, uri, bool)
    client.text_document_did_close(
        types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    await diagnostics_for(client, uri, lambda found: found == [])


async def test_incremental_edits_update_diagnostics(client, tmp_path):
    await start(client)
    uri = open_document(client, tmp_path / "a.py", "import jax.numpy as jnp\n\nx = jnp.zeros(3)\n")
    await diagnostics_for(client, uri, lambda found: found == [])
    change(client, uri, 2, "x.at[0].set(1.0)\n", (3, 0))
    found = await diagnostics_for(client, uri, bool)
    assert codes(found) == ["JAX203"]
    assert found[0].data["version"] == 2
    change(client, uri, 3, "x = ", (3, 0))  # now `x = x.at[0].set(1.0)`
    await diagnostics_for(client, uri, lambda found: found == [])


# `inner` sits in a unit of its own that the edits never touch: only typing a call of it in
# `outer`'s body makes it traced, and its `if` on a tracer an error (a fact its key reads).
TRACED_THROUGH = """\
import jax


@jax.jit
def outer(x):
    return x


def inner(x):
    if x > 0:
        return x
    return -x
"""


async def test_an_edit_in_one_function_reaches_another_functions_findings(client, tmp_path):
    await start(client)
    uri = open_document(client, tmp_path / "a.py", TRACED_THROUGH)
    await diagnostics_for(client, uri, lambda found: found == [])
    change(client, uri, 2, "inner(x)", (5, 11), (5, 12))  # `return inner(x)`
    found = await diagnostics_for(client, uri, bool)
    assert codes(found) == ["JAX701"] and found[0].range.start.line == 9
    change(client, uri, 3, "x", (5, 11), (5, 19))  # `return x` again
    await diagnostics_for(client, uri, lambda found: found == [])


async def test_rapid_edits_publish_only_the_newest(client, tmp_path):
    await start(client)
    uri = open_document(client, tmp_path / "a.py", GOTCHA)
    await diagnostics_for(client, uri, bool)
    for version in range(2, 12):  # type `# ` ... at the start of the flagged line, fast
        change(client, uri, version, "#" if version == 11 else " ", (3, 0))
    await asyncio.sleep(0.1)
    found = await diagnostics_for(client, uri, lambda found: found == [])
    assert found == []  # line 3 is now a comment: nothing stale left behind


async def test_half_typed_line_keeps_other_findings(client, tmp_path):
    text = (
        "import jax.numpy as jnp\n\n"
        "def first():\n"
        "    x = jnp.zeros(3)\n"
        "    x[0] = 1.0\n"
        "    return x\n\n"
        "def second():\n"
        "    y = jnp.zeros(3)\n"
        "    y.at[0].set(1.0)\n"
        "    return y\n"
    )
    await start(client)
    uri = open_document(client, tmp_path / "a.py", text)
    before = await diagnostics_for(client, uri, lambda found: len(found) == 2)
    assert codes(before) == ["JAX201", "JAX203"]
    change(client, uri, 2, "    z = jnp.\n", (5, 0))  # half-typed, inside `first`
    change(client, uri, 3, "x = jnp.\n", (7, 0))  # half-typed, at top level
    after = await diagnostics_for(
        client, uri, lambda found: bool(found) and found[0].data["version"] == 3
    )
    # The rules' findings stay, and the first half-typed line gets its syntax error.
    assert [(d.code, d.range.start.line) for d in after] == [
        ("JAX201", 4),
        ("JAX203", 11),
        ("invalid-syntax", 5),
    ]


@pytest.mark.parametrize(
    ("offered", "expected"),
    [(None, "utf-16"), (["utf-16"], "utf-16"), (["utf-32", "utf-16", "utf-8"], "utf-8")],
)
async def test_position_encodings(client, tmp_path, offered, expected):
    result = await start(client, encodings=offered)
    assert result.capabilities.position_encoding == expected
    line = '\ts = "数据🚀😀"; x[1] += 5.0'
    text = f"import jax.numpy as jnp\r\n\r\nx = jnp.arange(5.0)\r\nif True:\r\n{line}\r\n"
    uri = open_document(client, tmp_path / "a.py", text)
    (diagnostic,) = await diagnostics_for(client, uri, bool)

    def units(column: int) -> int:
        prefix = line[:column]
        if expected == "utf-8":
            return len(prefix.encode("utf-8"))
        return len(prefix.encode("utf-16-le")) // 2

    start_column = line.index("x[1]")
    assert diagnostic.range == types.Range(
        types.Position(4, units(start_column)), types.Position(4, units(start_column + 4))
    )
    edit = diagnostic.data["fixes"][0]["edits"][0]
    assert edit["range"]["end"] == {"line": 4, "character": units(len(line))}

    # Incoming positions: replace `5.0` (after the emoji) with `7.0`, in the client's units.
    value = line.index("5.0")
    change(client, uri, 2, "7.0", (4, units(value)), (4, units(value + 3)))
    (updated,) = await diagnostics_for(
        client, uri, lambda found: bool(found) and found[0].data["version"] == 2
    )
    assert updated.data["fixes"][0]["edits"][0]["newText"] == "x = x.at[1].add(7.0)"
    hover = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=types.Position(4, units(start_column + 1)),
        )
    )
    assert hover is not None and "JAX202" in hover.contents.value


async def test_pull_mode_never_pushes(client, tmp_path):
    await start(client, pull=True)
    uri = open_document(client, tmp_path / "a.py", GOTCHA)
    report = await client.text_document_diagnostic_async(
        types.DocumentDiagnosticParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    assert report.kind == "full"
    assert codes(report.items) == ["JAX202"]
    again = await client.text_document_diagnostic_async(
        types.DocumentDiagnosticParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            previous_result_id=report.result_id,
        )
    )
    assert again.kind == "unchanged"
    change(client, uri, 2, "", (3, 0), (4, 0))
    report = await client.text_document_diagnostic_async(
        types.DocumentDiagnosticParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            previous_result_id=report.result_id,
        )
    )
    assert report.kind == "full" and list(report.items) == []
    await asyncio.sleep(0.3)
    assert uri not in client.diagnostics  # nothing was pushed

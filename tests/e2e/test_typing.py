"""Steady feedback while a line is half-typed: typing a block header character by character
above a flagged line leaves every other diagnostic, inlay hint and code lens in place."""

from __future__ import annotations

import pytest
from lsprotocol import types

from tests.e2e.conftest import change, open_document, start

SOURCE = """\
import jax
import jax.numpy as jnp


@jax.jit
def step(x, pos):
    y = x + 1
    print(y)
    x[0] = 1
    return x
"""
TYPED_LINE = 8  # the header is typed on a new line here, above `x[0] = 1`
HEADERS = [
    "if pos > 0:",
    "elif pos:",
    "else:",
    "while pos < 3:",
    "for i in range(3):",
    "with jax.named_scope('a'):",
    "def g(a, b):",
    "class A:",
    "try:",
]

Observed = tuple[list[tuple], list[tuple], list[tuple]]


async def observe(client, uri: str, typed: bool) -> Observed:
    """Diagnostics, inlay hints and code lenses off the typed line, in the lines of SOURCE."""

    def place(line: int) -> int | None:
        if not typed or line < TYPED_LINE:
            return line
        return None if line == TYPED_LINE else line - 1

    document = types.TextDocumentIdentifier(uri=uri)
    report = await client.text_document_diagnostic_async(
        types.DocumentDiagnosticParams(text_document=document)
    )
    whole = types.Range(types.Position(0, 0), types.Position(40, 0))
    hints = await client.text_document_inlay_hint_async(
        types.InlayHintParams(text_document=document, range=whole)
    )
    lenses = await client.text_document_code_lens_async(
        types.CodeLensParams(text_document=document)
    )
    diagnostics = [
        (d.code, place(d.range.start.line), d.range.start.character, d.message)
        for d in report.items
    ]
    hint_places = [(place(h.position.line), h.position.character, h.label) for h in hints or []]
    lens_places = [(place(lens.range.start.line), lens.command.title) for lens in lenses or []]
    return (
        sorted(d for d in diagnostics if d[1] is not None),
        sorted(h for h in hint_places if h[0] is not None),
        sorted(lens for lens in lens_places if lens[0] is not None),
    )


@pytest.mark.parametrize("header", HEADERS)
async def test_typing_a_block_header_keeps_the_rest(client, tmp_path, header):
    await start(client, pull=True)
    uri = open_document(client, tmp_path / "typing.py", SOURCE)
    before = await observe(client, uri, typed=False)
    assert [d[0] for d in before[0]] == ["JAX101", "JAX201"]  # print(y), x[0] = 1
    assert before[2], "the jitted function has a code lens"
    change(client, uri, 2, "    \n", (TYPED_LINE, 0))
    for count in range(1, len(header) + 1):
        change(client, uri, 2 + count, header[count - 1], (TYPED_LINE, 3 + count))
        found, hints, lenses = await observe(client, uri, typed=True)
        # The half-typed line's syntax error (on the line after a header waiting for its body)
        # shows as ruff shows it; the rules' findings, hints and lenses stay as they were.
        ours = [d for d in found if d[0] != "invalid-syntax"]
        assert (ours, hints, lenses) == before, repr(header[:count])


async def test_a_half_typed_line_shows_no_finding_of_its_own_until_it_parses(client, tmp_path):
    """What the repaired line would be flagged for is about text still being typed: `if pos`
    flagged, `if pos >` not, `if pos > 0` again would blink on every keystroke."""
    await start(client, pull=True)
    uri = open_document(client, tmp_path / "typing.py", SOURCE)
    change(client, uri, 2, "    \n", (TYPED_LINE, 0))
    header = "if pos > 0:"
    document = types.TextDocumentIdentifier(uri=uri)

    async def typed_line_codes() -> list:
        report = await client.text_document_diagnostic_async(
            types.DocumentDiagnosticParams(text_document=document)
        )
        return [d.code for d in report.items if d.range.start.line == TYPED_LINE]

    for count in range(1, len(header) + 1):
        change(client, uri, 2 + count, header[count - 1], (TYPED_LINE, 3 + count))
        codes = await typed_line_codes()
        assert not [code for code in codes if str(code).startswith("JAX")], header[:count]
    # Once the body is typed the header parses as written, and its finding shows.
    body = "\n        y = 2"
    change(client, uri, 3 + len(header), body, (TYPED_LINE, 4 + len(header)))
    assert "JAX701" in await typed_line_codes()


@pytest.mark.parametrize(
    "header", ["if pos > 0:", "for i in range(3):", "with jax.named_scope('a'):"]
)
async def test_typing_a_block_header_at_the_end_of_the_file_keeps_the_rest(
    client, tmp_path, header
):
    """The last line of the file, with nothing after the cursor (not even a newline): `if pos`
    there once took the function's findings with it until the `:` was typed."""
    await start(client, pull=True)
    end_line = SOURCE.count("\n")
    uri = open_document(client, tmp_path / "typing.py", SOURCE)
    before = await observe(client, uri, typed=False)
    change(client, uri, 2, "    ", (end_line, 0))
    for count in range(1, len(header) + 1):
        change(client, uri, 2 + count, header[count - 1], (end_line, 3 + count))
        found = await observe(client, uri, typed=False)
        ours = [d for d in found[0] if str(d[0]).startswith("JAX")]
        assert (ours, found[1], found[2]) == before, repr(header[:count])

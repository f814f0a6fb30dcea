"""Inlay hints (traced / static after each parameter) and code lenses on traced functions."""

from __future__ import annotations

from lsprotocol import types

from tests.e2e.conftest import open_document, start

TEXT = (
    "import functools\n"
    "import jax\n\n\n"
    '@functools.partial(jax.jit, static_argnames="n")\n'
    "def scale(数据, y, n):\n"
    "    return helper(数据) * n\n\n\n"
    "def helper(z):\n"
    "    return z + 1\n\n\n"
    "def plain(a):\n"
    "    return a\n"
)


async def test_inlay_hints(client, tmp_path):
    await start(client, encodings=["utf-8"])
    uri = open_document(client, tmp_path / "a.py", TEXT)
    hints = await client.text_document_inlay_hint_async(
        types.InlayHintParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=types.Range(types.Position(0, 0), types.Position(20, 0)),
        )
    )
    found = [(h.position.line, h.position.character, h.label) for h in hints]
    # `数据` is 6 UTF-8 bytes: the hint after it sits at byte 16 of `def scale(数据, y, n):`.
    assert found == [(5, 16, "traced"), (5, 19, "traced"), (5, 22, "static"), (9, 12, "traced")]
    assert hints[0].kind == types.InlayHintKind.Parameter


async def test_code_lens(client, tmp_path):
    await start(client)
    uri = open_document(client, tmp_path / "a.py", TEXT)
    lenses = await client.text_document_code_lens_async(
        types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    assert [(lens.range.start.line, lens.command.title) for lens in lenses] == [
        (5, "jit · traced: 数据, y · static: n"),
        (9, "called from scale · traced: z"),
    ]
    assert lenses[0].range == types.Range(types.Position(5, 4), types.Position(5, 9))

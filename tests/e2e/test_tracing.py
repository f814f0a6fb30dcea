"""Inlay hints (traced / static after each parameter) and code lenses on traced functions,
each switched by the editor's settings; lenses by default, hints on request (not both)."""

from __future__ import annotations

import pytest
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


async def inlay_hints(client, uri: str) -> list[types.InlayHint]:
    hints = await client.text_document_inlay_hint_async(
        types.InlayHintParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=types.Range(types.Position(0, 0), types.Position(30, 0)),
        )
    )
    return list(hints or [])


async def code_lenses(client, uri: str) -> list[types.CodeLens]:
    lenses = await client.text_document_code_lens_async(
        types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    return list(lenses or [])


async def test_inlay_hints(client, tmp_path):
    await start(client, encodings=["utf-8"], options={"inlayHints": True})
    uri = open_document(client, tmp_path / "a.py", TEXT)
    hints = await inlay_hints(client, uri)
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


@pytest.mark.parametrize(
    ("options", "hints", "lenses"),
    [({}, False, True), ({"inlayHints": True, "codeLens": False}, True, False)],
)
async def test_hints_and_lenses_do_not_double_up(client, tmp_path, options, hints, lenses):
    await start(client, options=options)
    uri = open_document(client, tmp_path / "a.py", TEXT)
    assert bool(await inlay_hints(client, uri)) is hints
    assert bool(await code_lenses(client, uri)) is lenses


METHODS = (
    "import jax\n\n\n"
    "class Plain:\n"
    "    @jax.jit\n"
    "    def step(self, x):\n"
    "        return x\n\n\n"
    "@jax.tree_util.register_pytree_node_class\n"
    "class Tree:\n"
    "    def tree_flatten(self):\n"
    "        return (), None\n\n"
    "    @classmethod\n"
    "    def tree_unflatten(cls, aux, children):\n"
    "        return cls()\n\n"
    "    @jax.jit\n"
    "    def step(self, y):\n"
    "        return y\n"
)


async def test_self_is_traced_only_in_a_pytree(client, tmp_path):
    """`self` of a plain class cannot be traced (the jit raises: JAX401), so no hint says so."""
    await start(client, options={"inlayHints": True})
    uri = open_document(client, tmp_path / "a.py", METHODS)
    found = [(hint.position.line, hint.label) for hint in await inlay_hints(client, uri)]
    assert found == [(5, "traced"), (19, "traced"), (19, "traced")]
    titles = [lens.command.title for lens in await code_lenses(client, uri)]
    assert titles == ["jit · traced: x", "jit · traced: self, y"]

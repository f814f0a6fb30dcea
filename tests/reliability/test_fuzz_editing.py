"""Fuzzed editing through the real server over stdio (pytest-lsp): random incremental edits with
broken syntax, CJK, astral emoji, tabs and CRLF, in both position encodings.

After each batch of changes the server answers, every range it returns lies inside the text (in
the negotiated encoding), and its diagnostics equal those of a freshly opened copy of the
editor's text: the server's text is the editor's. Diagnostics are pulled, so each answer is for
exactly the version just sent. Examples are derandomized: a failure reproduces as is.
"""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import pytest_lsp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.e2e.conftest import SERVER, start

_NEWLINE = re.compile(r"\r\n|\r|\n")
_counter = itertools.count()

# Findings on most lines, after non-ASCII text and tabs: text applied at the wrong place moves
# or removes them, so a desync shows in the diagnostics.
DENSE = (
    "import jax\nimport jax.numpy as jnp\n"
    "x = jnp.zeros(3)\n"
    "a = '中😀'; x[0] = 1.0\n"
    "b = '😀🎉'; x[1] = 2.0\n"
    "c = '\t日🎉 é'; x[2] = 3.0  # 😀\n"
    "d = '\U0001d518\U0001d52b'; x[0] += 4.0\n"  # astral letters
    "y = jnp.ones(2); e = '🎉'; y[1] = 0\n"
)
SEEDS = [
    DENSE,
    DENSE.replace("\n", "\r\n"),
    DENSE.replace("    ", "\t"),
    "import jax\nimport jax.numpy as jnp\n\nx = jnp.arange(5.0)\nx[1] += 5.0\n",
    "import jax\r\nimport jax.numpy as jnp\r\n\r\n@jax.jit\r\ndef f(x, n):\r\n"
    "\tif x > 0:\r\n\t\treturn x * n\r\n\treturn -x\r\n",
    "from jax import lax, jit\nimport jax.numpy as jnp\n\n@jit\ndef g(a, b):\n"
    "    s = '中😀'; a[0] = 1\n"
    "    for i in range(a.shape[0]):\n        a = a.at[i].set(b)\n    print(a)\n"
    "    while a.sum() > 0:\n        a -= 1\n    return lax.fori_loop(0, 3, lambda i, c: c, a)\n",
    "",
]
FRAGMENTS = [
    "\n", "\r\n", "\r", "\t", " ", "(", ")", "[", "]", ":", "'", '"', '"""', "#", "\\",
    "x", "jnp.", "jax.", "@jax.jit\n", "def h(x):\n", "    ", "if x:\n", "x[0] += 1\n",
    "x = jnp.zeros(3)\n", "y.at[0].set(1)\n", "print(x)\n", "lambda: ",
    "中", "文字", "😀", "🎉🎉", "é", "\u200b", "\U0001f600x\U0001f600", "\x00",
]  # fmt: skip
# Gentle text (letters, CJK, astral, tabs) mostly: it moves findings without breaking the
# parse, so a misplaced edit shows. Syntax-breaking fragments now and then.
GENTLE = st.text(alphabet="ab_1 \t中文é😀\U0001d518", min_size=1, max_size=4)
TEXT = st.one_of(
    GENTLE,
    GENTLE,
    st.just(""),
    st.sampled_from(FRAGMENTS),
    st.lists(st.sampled_from(FRAGMENTS), max_size=4).map("".join),
)
# One change: (where it starts, how many code points it replaces, the new text). Where: any
# offset, or (True, n) just after the n-th non-ASCII character, where column conversions matter.
WHERE = st.integers(0, 10_000) | st.tuples(st.just(True), st.integers(0, 10_000))
CHANGE = st.tuples(WHERE, st.integers(0, 3) | st.integers(0, 12), TEXT)
BATCHES = st.lists(st.lists(CHANGE, min_size=1, max_size=3), min_size=1, max_size=3)
SETTINGS = settings(
    max_examples=60,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


@pytest_lsp.fixture(config=SERVER, params=["utf-8", "utf-16"])
async def client(lsp_client: LanguageClient, request):
    await start(lsp_client, encodings=[request.param], pull=True)
    lsp_client.encoding = request.param
    yield
    await lsp_client.shutdown_session()


def units(text: str, encoding: str) -> int:
    if encoding == "utf-8":
        return len(text.encode("utf-8", errors="surrogatepass"))
    return len(text.encode("utf-16-le", errors="surrogatepass")) // 2


def split(text: str) -> list[str]:
    return _NEWLINE.split(text)


def position(text: str, offset: int, encoding: str) -> types.Position:
    """The LSP position of a code point offset, as an editor computes it."""
    breaks = list(_NEWLINE.finditer(text, 0, offset))
    start = breaks[-1].end() if breaks else 0
    return types.Position(len(breaks), units(text[start:offset], encoding))


def boundary(text: str, offset: int) -> int:
    """`offset` moved off the middle of a \\r\\n (no LSP position is there)."""
    offset = min(offset, len(text))
    return (
        offset - 1 if 0 < offset < len(text) and text[offset - 1 : offset + 1] == "\r\n" else offset
    )


def offset_of(text: str, where: int | tuple[bool, int]) -> int:
    if isinstance(where, int):
        return where % (len(text) + 1)
    after = [index + 1 for index, char in enumerate(text) if not char.isascii()]
    return after[where[1] % len(after)] + where[1] % 5 if after else where[1] % (len(text) + 1)


def edit(text: str, change: tuple, encoding: str):
    """The editor's new text and the LSP change event that makes it."""
    where, length, new = change
    begin = boundary(text, offset_of(text, where))
    end = boundary(text, begin + length)
    event = types.TextDocumentContentChangePartial(
        range=types.Range(position(text, begin, encoding), position(text, end, encoding)), text=new
    )
    return text[:begin] + new + text[end:], event


def assert_inside(text: str, range_: types.Range | dict, encoding: str) -> None:
    lines = split(text)
    if isinstance(range_, dict):
        range_ = types.Range(types.Position(**range_["start"]), types.Position(**range_["end"]))
    for point in (range_.start, range_.end):
        assert 0 <= point.line < len(lines), (range_, len(lines))
        assert 0 <= point.character <= units(lines[point.line], encoding), (range_, lines)
    assert (range_.start.line, range_.start.character) <= (range_.end.line, range_.end.character)


async def pull(client: LanguageClient, uri: str) -> list[types.Diagnostic]:
    report = await client.text_document_diagnostic_async(
        types.DocumentDiagnosticParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    return list(report.items)


def comparable(diagnostics: list[types.Diagnostic]) -> list[tuple]:
    return [(d.range, d.code, d.message, d.severity) for d in diagnostics]


def open_text(client: LanguageClient, uri: str, text: str) -> None:
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(
                uri=uri, language_id="python", version=1, text=text
            )
        )
    )


def close(client: LanguageClient, uri: str) -> None:
    client.text_document_did_close(
        types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )


@SETTINGS
@given(seed=st.sampled_from(SEEDS), batches=BATCHES, probe=st.integers(0, 10_000))
async def test_fuzzed_edits_stay_in_sync(client, seed, batches, probe):
    encoding = client.encoding
    number = next(_counter)
    uri = Path(f"/fuzz/edited_{number}.py").as_uri()
    text, version = seed, 1
    open_text(client, uri, text)
    for batch in batches:
        events = []
        for change in batch:
            text, event = edit(text, change, encoding)
            events.append(event)
        version += 1
        client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
                content_changes=events,
            )
        )
        edited = await pull(client, uri)
        for diagnostic in edited:
            assert_inside(text, diagnostic.range, encoding)
            for fix in diagnostic.data["fixes"]:
                for text_edit in fix["edits"]:
                    assert_inside(text, text_edit["range"], encoding)
    fresh_uri = Path(f"/fuzz/fresh_{number}.py").as_uri()
    open_text(client, fresh_uri, text)
    fresh = await pull(client, fresh_uri)
    assert comparable(edited) == comparable(fresh), repr(text)
    # Requests at arbitrary positions (past the end too) are answered.
    lines = split(text)
    line = probe % (len(lines) + 2)
    where = types.Position(line, probe % 40)
    await client.text_document_hover_async(
        types.HoverParams(text_document=types.TextDocumentIdentifier(uri=uri), position=where)
    )
    await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=types.Range(types.Position(0, 0), where),
            context=types.CodeActionContext(diagnostics=edited),
        )
    )
    close(client, uri)
    close(client, fresh_uri)

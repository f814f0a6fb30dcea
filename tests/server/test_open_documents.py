"""An open document follows the client's incremental edits: its text is the edited text, and
its lines (kept up to date edit by edit, then handed to the engine) are the text's lines."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from lsprotocol import types

from jax_lsp.analysis.document import _changed_lines
from jax_lsp.lsp.documents import OpenDocument
from jax_lsp.lsp.positions import UTF8, UTF16
from jax_lsp.text import split_lines

PIECES = ["x", "ab", "\n", "\r\n", "\r", "é", "😀", "中文", "\t", "    ", "jnp.", ""]
TEXT = st.lists(st.sampled_from(PIECES), max_size=30).map("".join)


def _position(draw, lines: list[str]) -> types.Position:
    # Past the last line and past a line's end too: clients may send either.
    line = draw(st.integers(0, len(lines) + 1))
    return types.Position(line, draw(st.integers(0, 12)))


def _expected(text: str, change: types.TextDocumentContentChangePartial, encoding: str) -> str:
    """The edit through the document's general path: offsets from every line start."""
    document = OpenDocument("file:///x.py", text, 0)
    document.__dict__["_has_cr"] = True  # offsets from line starts, lines split by regex
    start = document.offset(change.range.start, encoding)
    end = document.offset(change.range.end, encoding)
    return text[:start] + change.text + text[max(start, end) :]


@settings(max_examples=400, deadline=None)
@given(data=st.data(), text=TEXT, encoding=st.sampled_from([UTF8, UTF16]))
def test_edits_give_the_edited_text_and_its_lines(data, text, encoding):
    document = OpenDocument("file:///x.py", text, 0)
    for version in range(1, data.draw(st.integers(1, 4)) + 1):
        start = _position(data.draw, document.lines)
        end = _position(data.draw, document.lines)
        change = types.TextDocumentContentChangePartial(
            range=types.Range(start, end), text=data.draw(TEXT)
        )
        expected = _expected(document.text, change, encoding)
        document.apply([change], version, encoding)
        assert document.text == expected
        assert document.lines == split_lines(expected)
        assert document.version == version


def test_unchanged_lines_are_kept_for_the_engine():
    text = "".join(f"line {n}\n" for n in range(300))
    document = OpenDocument("file:///x.py", text, 0)
    before = document.lines
    position = types.Position(150, 4)
    change = types.TextDocumentContentChangePartial(
        range=types.Range(position, position), text="typed"
    )
    document.apply([change], 1, UTF16)
    after = document.split_already()
    assert after is not None and after[149] is before[149] and after[151] is before[151]
    assert after[150] == "linetyped 150"
    assert _changed_lines(before, after) == (150, 151, 151)


@given(
    old=st.lists(st.sampled_from(["a", "b", "c"]), max_size=200),
    new=st.lists(st.sampled_from(["a", "b", "c"]), max_size=200),
)
def test_changed_lines_bound_the_difference(old, new):
    first, old_end, new_end = _changed_lines(old, new)
    assert old[:first] == new[:first]
    assert old[old_end:] == new[new_end:]
    assert len(old) - old_end == len(new) - new_end
    # The common head is as long as it can be.
    assert first == min(len(old), len(new)) or old[first] != new[first]

"""Code quoted in a one-line text (a fix title: "Replace with `x = x.at[i].set(v)`"): what an
editor's menu, a terminal row or a JSON reader shows on one line. As ruff's titles quote code: the
comments dropped, the line breaks and the indentation after them gone, and a long expression
shortened with an ellipsis (`x = x.at[jnp.array([...])].set(2.0)`)."""

from __future__ import annotations

import keyword
import re

# Longer code is shortened (ruff quotes up to 50 columns of code in its titles).
SNIPPET_WIDTH = 50
ELLIPSIS = "..."

_QUOTED = re.compile(r"`([^`]*)`")
_LONG_QUOTE = re.compile(rf"`[^`\n]{{{SNIPPET_WIDTH + 1},}}`")
# A string, up to its closing quotes, else (being typed, or prose quoting a `'`) its line's end.
_STRING = re.compile(
    r"""'''(?:[^'\\]|\\.|'(?!''))*(?:'''|\\?\Z)|\"\"\"(?:[^"\\]|\\.|"(?!""))*(?:\"\"\"|\\?\Z)"""
    r"""|'(?:[^'\\\n]|\\.)*(?:'|\\?(?=\n)|\\?\Z)|"(?:[^"\\\n]|\\.)*(?:"|\\?(?=\n)|\\?\Z)""",
    re.DOTALL,
)
_LINE_BREAK = re.compile(r"[ \t]*(?:\r\n|\r|\n)\s*")
_OPENERS, _CLOSERS = "([{", ")]}"
_PIECE = re.compile(r"""[ \t\f\r\n\\]+|#[^\n]*|['"]|[()\[\]{},]|[^ \t\f\r\n\\#'"()\[\]{},]+""")


def one_line_title(title: str) -> str:
    """`title` with each code span in backticks made one line (`one_line_code`) and any line
    break outside them a space. The same text for a title already so (most: quickly)."""
    if (
        "\n" not in title
        and "#" not in title
        and "  " not in title
        and not _LONG_QUOTE.search(title)
    ):
        return title
    quoted = _QUOTED.sub(lambda match: f"`{one_line_code(match.group(1))}`", title)
    return _LINE_BREAK.sub(" ", quoted)


def one_line_code(code: str, width: int = SNIPPET_WIDTH) -> str:
    """`code` on one line: comments dropped, each run of blanks one space (none inside
    brackets at a line break), a string spanning lines shown as its quotes around an
    ellipsis; then, while wider than `width`, the contents of a bracket made an ellipsis:
    the smallest whose loss makes it fit, else the widest."""
    pieces = _pieces(code)
    text = "".join(pieces)
    while len(text) > width:
        groups = _bracket_groups(pieces)
        if not groups:  # cut at a blank, if one is in reach
            cut = text[: width - len(ELLIPSIS)]
            return (cut[: cut.rindex(" ") + 1] if " " in cut else cut) + ELLIPSIS
        excess = len(text) - width
        saving = [(_width(pieces, start, end) - len(ELLIPSIS), start, end) for start, end in groups]
        enough = [group for group in saving if group[0] >= excess]
        _, start, end = min(enough) if enough else max(saving)
        pieces = [*pieces[: start + 1], ELLIPSIS, *pieces[end:]]
        text = "".join(pieces)
    return text


def _pieces(code: str) -> list[str]:
    """The pieces of `code` on one line: brackets, strings and runs of other characters, with
    a one-space piece where blanks stood; comments dropped."""
    pieces: list[str] = []
    position = 0
    broken = False  # the blanks being read hold a line break
    # Of each bracket open, outermost first: the commas read in it, and whether it holds a
    # call's arguments (where a last comma is layout even after one).
    commas = [0]
    calls = [False]
    while position < len(code):
        match = _PIECE.match(code, position)
        assert match is not None  # every character starts a piece
        piece = match.group()
        if piece in "'\"":
            string = _STRING.match(code, position)
            assert string is not None  # one ends at the text's end at the latest
            piece = string.group()
            if "\n" in piece:  # its prefix (`f`, `rb`), if any, is the piece before
                quote = piece[:3] if piece[:3] in ("'''", '"""') else piece[0]
                piece = f"{quote}{ELLIPSIS}{quote}"
            position = string.end()
        else:
            position = match.end()
        if piece[0] == "#":
            continue
        if piece[0] in " \t\f\r\n\\":
            broken = broken or "\n" in piece or "\r" in piece
            if pieces and pieces[-1] != " ":
                pieces.append(" ")
            continue
        if pieces and pieces[-1] == " " and broken:
            # A line break after an opening bracket or before a closing one is layout only;
            # so is a comma before it, when others separate the items (`(a,)` is a tuple).
            if piece in _CLOSERS or (len(pieces) > 1 and pieces[-2] in _OPENERS):
                pieces.pop()
            if piece in _CLOSERS and pieces and pieces[-1] == "," and (commas[-1] > 1 or calls[-1]):
                pieces.pop()
        broken = False
        if piece in _OPENERS:
            commas.append(0)
            calls.append(piece == "(" and _calls(pieces))
        elif piece in _CLOSERS and len(commas) > 1:
            commas.pop()
            calls.pop()
        elif piece == ",":
            commas[-1] += 1
        pieces.append(piece)
    if pieces and pieces[-1] == " ":
        pieces.pop()
    return pieces


def _calls(pieces: list[str]) -> bool:
    """Does a `(` after `pieces` open a call's arguments (after a name, a bracket or a string)?"""
    last = pieces[-1] if pieces and pieces[-1] != " " else pieces[-2] if len(pieces) > 1 else ""
    if last in (")", "]") or last[-1:] in ("'", '"'):
        return True
    word = last.rpartition(".")[2]
    return bool(word) and word.isidentifier() and not keyword.iskeyword(word)


def _bracket_groups(pieces: list[str]) -> list[tuple[int, int]]:
    """(opening, closing) piece indices of each matched bracket pair not holding an ellipsis
    alone (made one already)."""
    groups = []
    stack: list[int] = []
    for index, piece in enumerate(pieces):
        if piece in _OPENERS:
            stack.append(index)
        elif piece in _CLOSERS and stack:
            start = stack.pop()
            if pieces[start + 1 : index] not in ([], [ELLIPSIS]):
                groups.append((start, index))
    return groups


def _width(pieces: list[str], start: int, end: int) -> int:
    return sum(map(len, pieces[start + 1 : end]))

"""A document split into top-level units, each parsed once per text.

The module is cut at lines that start a new top-level statement. Each unit is parsed on its
own and the result cached by the unit's text, so an edit inside one function re-parses that
function only. A unit that does not parse (half-typed code) is repaired by blanking the
offending lines, so one broken line hides as little of the file as possible.
"""

from __future__ import annotations

import ast
import copy
import re
import warnings
import weakref
from array import array
from bisect import bisect_left, bisect_right
from collections import OrderedDict
from dataclasses import InitVar, dataclass, field
from itertools import accumulate, pairwise
from operator import attrgetter
from sys import intern

from jax_lsp.analysis.cached import cached_property
from jax_lsp.analysis.lineage import Lineage
from jax_lsp.analysis.nodes import child_nodes, forget_walks, lone_class
from jax_lsp.analysis.text import identifiers
from jax_lsp.analysis.unit_memo import UnitMemo, per_unit
from jax_lsp.text import split_lines

# Lines at column 0 that continue the previous statement rather than start one.
_CONTINUATION = re.compile(r"(else|elif|except|finally)\b")
_INCOMPLETE_ERRORS = ("was never closed", "unexpected EOF", "unterminated triple-quoted")
# A comment, a triple quote, or a one-line string (whose quotes must not count).
_CODE_TOKEN = re.compile(r"""#|\"\"\"|'''|"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'""")
_TRIPLE_CLOSE = {
    '"""': re.compile(r'(?:[^\\]|\\.)*?"""'),
    "'''": re.compile(r"(?:[^\\]|\\.)*?'''"),
}
# "expected an indented block after 'if' statement on line 3" (or "function definition").
_BODY_MISSING = re.compile(r"expected an indented block after .* on line (\d+)")
_TRY_HEADER = re.compile(r"(\s*)try\b")
# A line whose indentation fits no block: "unexpected indent", "unindent does not match any
# outer indentation level".
_INDENT_ERRORS = ("unexpected indent", "unindent does not match")
_MAX_MERGE = 8
# Column-0 lines that start a statement and can never continue an open bracket.
_STATEMENT_ONLY = re.compile(r"(def|class|import|from|async)\b|@")
# What matching brackets across lines must see: a comment, a string (triple-quoted ones
# across lines; one still open at the end runs to it), a bracket, a line end.
_BRACKET_TOKEN = re.compile(
    r"#[^\n]*"
    r'|"""(?:[^\\]|\\.)*?(?:"""|\Z)'
    r"|'''(?:[^\\]|\\.)*?(?:'''|\Z)"
    r'|"(?:[^"\\\n]|\\.)*"?'
    r"|'(?:[^'\\\n]|\\.)*'?"
    r"|[\[\](){}\n]",
    re.DOTALL,
)
_MAX_REPAIRS = 12
# Lines of unit text whose parses (and analyses, memoised on them) are kept: about 100 MB of
# trees and memos, several times the largest files people edit.
_CACHE_LINES = 50_000
# Deeper trees are refused: the analysis walks trees recursively, a few frames per level, and
# must stay well inside Python's recursion limit (`1+1+...` 600 terms deep parses fine).
MAX_TREE_DEPTH = 200


@dataclass(frozen=True)
class SyntaxProblem:
    line: int  # 0-based, document-absolute
    column: int
    message: str


@dataclass
class UnitSource:
    """The parse of one unit's text. Shared by every place that text appears (any line)."""

    text: str
    line_count: int
    tree: ast.Module | None
    problem: SyntaxProblem | None = None  # unit-relative; set when the text needed repair
    blanked_lines: frozenset[int] = frozenset()  # unit-relative lines removed by repair
    # The analysis layers' results on this parse, each keyed by its computation and the
    # arguments it was given (`unit_memo.per_unit`).
    memo: UnitMemo = field(init=False, repr=False, compare=False)
    # The parse this one was spliced from (`_splice_member`: an edit inside one member of a
    # class or function), whose other members' nodes it shares, held weakly: what was found
    # for those members there (their summary parts, a method's findings) is carried over
    # while what it read is unchanged. None for a parse of the whole text.
    spliced_from: weakref.ref[UnitSource] | None = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        self.memo = UnitMemo(self.text)

    def words(self) -> frozenset[str]:
        """Every identifier of the text, and more (see `text.identifiers`), memoised: a
        prefilter for the passes that look for a name."""
        return _unit_words(self)

    def node_lines(self, node: ast.AST) -> str:
        """The whole lines `node` of this unit's tree spans, joined: a cheap stand-in for its
        source segment where text identifies it (`ast.get_source_segment` splits the whole
        text again on every call, character by character)."""
        starts = _line_starts(self)
        first, last = node.lineno - 1, node.end_lineno  # type: ignore[attr-defined]
        if first >= last:
            return ""
        # From line `first` to the newline ending line `last - 1` (for the last line, the
        # text's end: `starts` has one entry past it).
        end = len(starts) - 1
        return self.text[starts[min(first, end)] : starts[min(last, end)] - 1]


# Whether word sets are made for texts analysed again (the default: the server, `--watch`):
# a class's piece by piece, for its next version, and every word interned, as memos keep them
# for a long session. A batch analysing each text once (`words_for_later_versions`) reads the
# text whole and keeps its own strings: the pieces cost twice the whole text's words, and
# interning a third of them.
_FOR_LATER_VERSIONS = [True]


def words_for_later_versions(on: bool) -> None:
    """Make the units' word sets for later versions of their texts (on, the default), or for
    texts analysed once: the sets are equal either way."""
    _FOR_LATER_VERSIONS[0] = on


@per_unit
def _unit_words(source: UnitSource) -> frozenset[str]:
    return _words(source.text, source.tree)


@per_unit
def _line_starts(source: UnitSource) -> array:
    """Where each line starts, not the lines: a memo kept as long as the unit, which as
    split lines was a second copy of the text (2.5 MB after 500 opened files)."""
    lengths = (len(line) + 1 for line in source.text.split("\n"))
    return array("q", accumulate(lengths, initial=0))


def _words(text: str, tree: ast.Module | None) -> frozenset[str]:
    """`identifiers(text)`; for a class, the union of the words of its members' lines (and of
    the lines before the first): a keystroke in one method of a long class leaves the other
    members' lines as they were, whose words are then looked up by their text. No word spans
    a line break, so the union is exactly the words of the whole text."""
    if not _FOR_LATER_VERSIONS[0]:
        return identifiers(text)
    cls = lone_class(tree) if tree is not None else None
    if cls is None or len(cls.body) < _PIECEWISE_MEMBERS:
        return _kept_words(text)
    lines = text.split("\n")
    cuts = sorted({0, len(lines), *(min(first_line(m) - 1, len(lines)) for m in cls.body)})
    pieces = []
    for start, end in pairwise(cuts):
        piece = "\n".join(lines[start:end])
        found = _PIECE_WORDS.get(piece)
        if found is None:
            found = _kept_words(piece)
            _PIECE_WORDS.put(piece, found)
        pieces.append(found)
    return frozenset().union(*pieces)


def _kept_words(text: str) -> frozenset[str]:
    """`identifiers(text)` as memos keep them: each word the one interned string. The split
    makes a string per word, and a word set is kept per unit (and per piece of a class): the
    same common words (`self`, `jnp`, `return`), copied in every unit's set, were 88,729
    strings after 500 opened files, of 11,557 distinct words. Interned, they are the
    parser's own (names in trees are interned) or one string shared by every set."""
    return frozenset(map(intern, identifiers(text)))


# A class with fewer members is cheaper to read whole than piece by piece.
_PIECEWISE_MEMBERS = 4


@dataclass(frozen=True)
class Unit:
    """One top-level statement (with its decorators and trailing comments) at a place."""

    source: UnitSource
    start_line: int  # 0-based line of the unit's first line in the document
    # The unit's text when it is not `source.text` but holds the same code (an edit that
    # changed comments only): `source` is then the earlier text's parse, whose tree is the
    # one this text gives, so every fact memoised on it holds (see `resplit_units`).
    changed_text: str | None = None

    @property
    def text(self) -> str:
        """The unit's text as it stands in the document."""
        return self.source.text if self.changed_text is None else self.changed_text

    @property
    def tree(self) -> ast.Module | None:
        return self.source.tree

    def changed_lines(self) -> frozenset[int]:
        """The unit-relative lines where the unit's text differs from its source's."""
        if self.changed_text is None:
            return frozenset()
        own, parsed = self.changed_text.split("\n"), self.source.text.split("\n")
        return frozenset(index for index, line in enumerate(own) if line != parsed[index])

    @property
    def problem(self) -> SyntaxProblem | None:
        problem = self.source.problem
        if problem is None:
            return None
        message = problem.message
        if self.start_line and "line " in message:
            message = _shifted_line_numbers(message, self.start_line)
        return SyntaxProblem(problem.line + self.start_line, problem.column, message)


# "line 4" in Python's messages ("(detected at line 4)", "after 'if' statement on line 2"):
# a line of the unit's own text, which starts elsewhere in the document.
_MESSAGE_LINE = re.compile(r"\bline (\d+)")


def _shifted_line_numbers(message: str, start_line: int) -> str:
    return _MESSAGE_LINE.sub(lambda match: f"line {int(match.group(1)) + start_line}", message)


_START_LINE = attrgetter("start_line")
_SOURCE = attrgetter("source")


@dataclass(frozen=True)
class _Parsed:
    tree: ast.Module | None
    error: SyntaxError | None
    blanked: frozenset[int]


class _LineBoundedCache:
    """Text -> value, least recently used first out, bounded by the lines of text it holds.

    Lines, not entries: what a parsed unit costs in memory grows with its length, and a
    server with hundreds of open files must not keep every tree (the most recently analyzed
    files stay; a file edited again after being evicted is parsed again).
    """

    def __init__(self, max_lines: int) -> None:
        self._max_lines = max_lines
        self._lines = 0
        self._items: OrderedDict[str, tuple[object, int]] = OrderedDict()

    def get(self, text: str):
        hit = self._items.get(text)
        if hit is None:
            return None
        self._items.move_to_end(text)
        return hit[0]

    def put(self, text: str, value: object) -> None:
        lines = text.count("\n") + 1
        self._items[text] = (value, lines)
        self._lines += lines
        while self._lines > self._max_lines and len(self._items) > 1:
            _, (_, dropped) = self._items.popitem(last=False)
            self._lines -= dropped

    def __len__(self) -> int:
        return len(self._items)

    def clear(self) -> None:
        self._items.clear()
        self._lines = 0


class _ParseCache(_LineBoundedCache):
    """Text -> parse result, shared by every document."""

    def parse(self, text: str) -> _Parsed:
        hit = self.get(text)
        if hit is not None:
            return hit
        result = _parse(text)
        self.put(text, result)
        return result


def _parse(text: str) -> _Parsed:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # invalid escape sequences etc. are not ours to report
            tree = ast.parse(text)
    except SyntaxError as error:
        # Without its traceback: the cache keeps the error, and the traceback's frames would
        # keep alive whatever their callers held (the document being built, its previous
        # version), one document per failed parse for as long as the entry lives.
        return _Parsed(None, error.with_traceback(None), frozenset())
    except (ValueError, RecursionError, MemoryError) as error:  # NUL bytes, deep nesting
        # A NUL byte: point at its line, so that repair blanks that line only.
        line = text.count("\n", 0, text.find("\x00")) + 1 if "\x00" in text else None
        message = str(error) or type(error).__name__
        return _Parsed(None, SyntaxError(message, (None, line, 1, None)), frozenset())
    deep_line = _too_deep(tree) if len(text) > MAX_TREE_DEPTH else None
    if deep_line is not None:
        message = f"nested too deeply to analyze (over {MAX_TREE_DEPTH} levels)"
        return _Parsed(None, SyntaxError(message, (None, deep_line, 1, None)), frozenset())
    return _Parsed(tree, None, frozenset())


def _too_deep(tree: ast.AST) -> int | None:
    """The line of a node nested deeper than MAX_TREE_DEPTH, if there is one (no recursion)."""
    stack = [(tree, 0)]
    while stack:
        node, depth = stack.pop()
        if depth == MAX_TREE_DEPTH:
            # Any child is too deep, marker nodes (Load, Add) too: the last one is found first.
            every = list(ast.iter_child_nodes(node))
            if every:
                return getattr(every[-1], "lineno", 1)
            continue
        # Marker nodes have no children: above the limit they need no visit. Below a one-line
        # node, every level of nesting takes at least one of its characters (a few wrappers
        # share their child's span: twice the width bounds them too), so a short line cannot
        # hide a deep subtree: such a child is not walked (most statements and arguments).
        room = MAX_TREE_DEPTH - depth - 5  # twice a child's width must fit in it
        for child in child_nodes(node):
            end_line = getattr(child, "end_lineno", None)
            if end_line is None or end_line != child.lineno:  # type: ignore[attr-defined]
                width = MAX_TREE_DEPTH  # several lines (or no place): walked
            else:
                width = child.end_col_offset - child.col_offset  # type: ignore[attr-defined]
            if 2 * width > room:
                stack.append((child, depth + 1))
    return None


_CACHE = _ParseCache(_CACHE_LINES)
_SOURCE_CACHE = _LineBoundedCache(_CACHE_LINES)
# The copies of a parse a document repeating a unit's text gives its repeats (`_own_parses`).
_REPEAT_CACHE = _LineBoundedCache(_CACHE_LINES // 10)
# The words of the pieces of class units (`_words`), by the piece's text.
_PIECE_WORDS = _LineBoundedCache(_CACHE_LINES // 5)


_NOT_CODE_START = " \t\f#)]}"


def _is_code_start(line: str) -> bool:
    if not line or line[0] in _NOT_CODE_START:
        return False
    return line[0] not in "eft" or not _CONTINUATION.match(line)


def string_interior_lines(lines: list[str]) -> set[int]:
    """Lines that begin inside a closed triple-quoted string (docstring text at column 0).

    A light scan, not a tokenizer: comments and one-line strings are skipped so their quotes
    do not count. A string still open at the end of the text (being typed) marks nothing.
    Only lines holding a triple quote can open or close a string, so only they are scanned.
    """
    interior: set[int] = set()
    opened: int | None = None  # the line where the string still open started
    inside: str | None = None
    for index in [i for i, line in enumerate(lines) if '"""' in line or "'''" in line]:
        line = lines[index]
        position = 0
        if inside is not None:
            close = _TRIPLE_CLOSE[inside].match(line) if inside in line else None
            if close is None:
                continue
            interior.update(range(opened + 1, index + 1))
            position, inside = close.end(), None
        while (token := _CODE_TOKEN.search(line, position)) is not None:
            quote = token.group()
            if quote == "#":
                break
            position = token.end()
            if quote in _TRIPLE_CLOSE:
                close = _TRIPLE_CLOSE[quote].match(line, position)
                if close is None:
                    inside, opened = quote, index
                    break
                position = close.end()
    return interior


def _candidate_ranges(lines: list[str]) -> list[tuple[int, int]]:
    """Half-open line ranges, each starting at a column-0 statement (decorators stay attached)."""
    starts: list[int] = []
    after_decorator = False
    in_strings = string_interior_lines(lines)
    # Cheap first cut (most lines are indented), then the exact test on the few left.
    column_zero = [i for i, line in enumerate(lines) if line and line[0] not in _NOT_CODE_START]
    for index in column_zero:
        line = lines[index]
        if index in in_strings or not _is_code_start(line):
            continue
        if not after_decorator or not starts:
            starts.append(index)
        after_decorator = line.startswith("@")
    if not starts or starts[0] != 0:
        starts.insert(0, 0)
    ends = [*starts[1:], len(lines)]
    return list(zip(starts, ends, strict=True))


def _join(lines: list[str], start: int, end: int) -> str:
    return "\n".join(lines[start:end]) + "\n"


def _is_incomplete(error: SyntaxError | None) -> bool:
    return error is not None and any(part in (error.msg or "") for part in _INCOMPLETE_ERRORS)


def _give_body(lines: list[str], header: int, error_line: int) -> bool:
    """`if x:` (ending on a line from `header` on) with nothing under it yet: `if x: pass`, so
    the statements after it keep their place. A `try` becomes `if True` (a `try` would also
    need an `except`)."""
    colon_lines = [
        index
        for index in range(header, min(error_line, len(lines)))
        if lines[index].rstrip().endswith(":") and not lines[index].lstrip().startswith("#")
    ]
    if not colon_lines:  # `if x:  # comment`: the one-line header itself becomes `pass`
        between = lines[header + 1 : error_line]
        if any(text.strip()[:1] not in ("", "#") for text in between):
            return False
        original = lines[header]
        lines[header] = f"{original[: len(original) - len(original.lstrip())]}pass"
        return True
    last = colon_lines[-1]
    lines[last] = lines[last].rstrip() + " pass"
    _try_as_if(lines, header)
    return True


def _try_as_if(lines: list[str], line: int) -> bool:
    """`try:` on `line` as `if True:` (same body, no handler needed)."""
    match = _TRY_HEADER.match(lines[line])
    if match is None:
        return False
    lines[line] = f"{match.group(1)}if True{lines[line][match.end() :]}"
    return True


def _unfinished_try(lines: list[str], error_line: int) -> bool:
    """A `try:` whose handlers are not typed yet (the error is on the line after its body)."""
    indent = len(lines[error_line]) - len(lines[error_line].lstrip())
    for index in range(error_line - 1, -1, -1):
        text = lines[index]
        if text.strip() and len(text) - len(text.lstrip()) <= indent:
            return len(text) - len(text.lstrip()) == indent and _try_as_if(lines, index)
    return False


def _repair_step(lines: list[str], error: SyntaxError | None, blanked: set[int]) -> bool:
    """Change `lines` where `error` points so they parse a step further; False: give up.

    Half-typed block headers (`if x`, `for i in r`) keep every other line in place: the header
    gets its `:` and a `pass` body, rather than the lines after it being blanked."""
    message = (error.msg or "") if error is not None else ""
    line = (error.lineno or len(lines)) - 1 if error else len(lines) - 1
    line = min(max(line, 0), len(lines) - 1)
    original = lines[line]
    if message == "expected ':'" and line not in blanked:
        lines[line] = original.rstrip() + ":"
        blanked.add(line)
        return True
    body_missing = _BODY_MISSING.search(message)
    if body_missing is not None:
        header = int(body_missing.group(1)) - 1
        # Typed at the end of the text (`if loss:` with nothing after it), the error is on
        # the header's own line: its body is the (empty) rest of the text.
        end = len(lines) if not "".join(lines[header + 1 :]).strip() else line
        if 0 <= header < max(line, end) and _give_body(lines, header, max(line, end)):
            blanked.add(header)
            return True
    if message.startswith("expected 'except' or 'finally' block") and _unfinished_try(lines, line):
        return True
    if message.startswith(_INDENT_ERRORS) and line not in blanked:
        # An over-indented line (autoindent plus typed spaces, a paste): blanked to nothing, as
        # `pass` at its indentation would be over-indented all the same.
        lines[line] = ""
        blanked.add(line)
        return True
    while line in blanked and line > 0:
        line -= 1
    if line in blanked:
        return False
    original = lines[line]
    indent = original[: len(original) - len(original.lstrip())]
    lines[line] = f"{indent}pass" if original.strip() else ""
    blanked.add(line)
    return True


def _repair(text: str) -> _Parsed:
    """Change the lines a SyntaxError points at until the text parses (or give up)."""
    lines = text.split("\n")
    blanked: set[int] = set()
    first_error: SyntaxError | None = None
    for _ in range(_MAX_REPAIRS):
        parsed = _CACHE.parse("\n".join(lines))
        if parsed.tree is not None:
            return _Parsed(parsed.tree, first_error, frozenset(blanked))
        first_error = first_error or parsed.error
        if not _repair_step(lines, parsed.error, blanked):
            break
    return _Parsed(None, first_error, frozenset(blanked))


def _unit_source(text: str, line_count: int) -> UnitSource:
    cached = _SOURCE_CACHE.get(text)
    if cached is not None:
        return cached
    parsed = _CACHE.parse(text)
    source = UnitSource(text, line_count, parsed.tree)
    if parsed.tree is None:
        repaired = _repair(text)
        error = parsed.error or SyntaxError("invalid syntax")
        source.tree, source.blanked_lines = repaired.tree, repaired.blanked
        source.problem = SyntaxProblem(
            max((error.lineno or 1) - 1, 0),
            max((error.offset or 1) - 1, 0),
            error.msg or "invalid syntax",
        )
    _SOURCE_CACHE.put(text, source)
    return source


def _long_statement_end(lines: list[str], ranges: list[tuple[int, int]], index: int) -> int | None:
    """The candidate ending a statement that spans more candidates than `split_units` merges
    (a long literal whose rows start at column 0: a table of numbers), or None.

    Its brackets are matched by a light scan (comments and strings skipped), which stops at
    the next column-0 line no open bracket can hold (`def`, `class`, `import`): a bracket
    still open there is never closed (half-typed code). Code after the statement is not
    read, so a half-typed line further down does not hide where the statement ends."""
    start = ranges[index][0]
    stop = index + _MAX_MERGE
    while stop < len(ranges) and not _STATEMENT_ONLY.match(lines[ranges[stop][0]]):
        stop += 1
    text = _join(lines, start, ranges[stop - 1][1])
    depth = 0
    for token in _BRACKET_TOKEN.finditer(text):
        kind = token.group()
        if kind in "([{":
            depth += 1
        elif kind in ")]}":
            depth = max(depth - 1, 0)
        elif kind == "\n" and depth == 0 and not text.endswith("\\", 0, token.start()):
            statement_end = start + text.count("\n", 0, token.start()) + 1
            break
    else:
        return None
    return next(
        (candidate for candidate in range(index, stop) if ranges[candidate][1] >= statement_end),
        None,
    )


def split_units(text: str, lines: list[str] | None = None) -> list[Unit]:
    """Cut `text` into parsed top-level units, merging candidates that only parse together."""
    lines = split_lines(text) if lines is None else lines
    ranges = _candidate_ranges(lines)
    units: list[Unit] = []
    index = 0
    while index < len(ranges):
        start = ranges[index][0]
        chosen = index
        chosen_text = None  # the text parsed for `chosen`, when it is the one that parsed
        for candidate in range(index, min(index + _MAX_MERGE, len(ranges))):
            text = _join(lines, start, ranges[candidate][1])
            parsed = _CACHE.parse(text)
            if parsed.tree is not None:
                chosen, chosen_text = candidate, text
                break
            if not _is_incomplete(parsed.error):
                break
        else:
            if index + _MAX_MERGE < len(ranges):
                chosen = _long_statement_end(lines, ranges, index) or chosen
        end = ranges[chosen][1]
        text = chosen_text if chosen_text is not None else _join(lines, start, end)
        units.append(Unit(_unit_source(text, end - start), start))
        index = chosen + 1
    return units


def _has_triple_quote(lines: list[str]) -> bool:
    return any('"""' in line or "'''" in line for line in lines)


def _may_move_strings(old: list[str], new: list[str]) -> bool:
    """May replacing the lines `old` by `new` move where a triple-quoted string starts or
    ends (hence where units start, anywhere after)? Not when neither holds a triple quote,
    nor when each line changed only after its last triple quote by text that holds no quote
    and no backslash (`; pass` typed after a docstring's closing quotes): whether those
    quotes open or close a string, what follows them stays on the same side."""
    if not _has_triple_quote(old) and not _has_triple_quote(new):
        return False
    if len(old) != len(new):
        return True
    for old_line, new_line in zip(old, new, strict=True):
        if old_line == new_line:
            continue
        cut = max(old_line.rfind('"""'), old_line.rfind("'''")) + 3
        if cut < 3 or max(new_line.rfind('"""'), new_line.rfind("'''")) + 3 != cut:
            return True  # a triple quote added, removed or moved (or none on the old line)
        if old_line[:cut] != new_line[:cut]:
            return True
        if any(mark in line[cut:] for line in (old_line, new_line) for mark in _QUOTING):
            return True
    return False


# Characters that may start a string or carry one over to the next line.
_QUOTING = ("'", '"', "\\")


# Lines compared at once (as list slices, in C) before the line-by-line search.
_CHUNK = 64


def _changed_lines(old: list[str], new: list[str]) -> tuple[int, int, int]:
    """(first, old_end, new_end): `old[first:old_end]` became `new[first:new_end]`."""
    limit = min(len(old), len(new))
    first = 0
    while first + _CHUNK <= limit and old[first : first + _CHUNK] == new[first : first + _CHUNK]:
        first += _CHUNK
    while first < limit and old[first] == new[first]:
        first += 1
    tail = 0
    old_end, new_end = len(old), len(new)
    while (
        tail + _CHUNK <= limit - first
        and old[old_end - tail - _CHUNK : old_end - tail]
        == new[new_end - tail - _CHUNK : new_end - tail]
    ):
        tail += _CHUNK
    while tail < limit - first and old[-1 - tail] == new[-1 - tail]:
        tail += 1
    return first, old_end - tail, new_end - tail


def resplit_units(previous: Document, lines: list[str]) -> list[Unit] | None:
    """The units of `lines` (an edit of `previous`), re-splitting only the units the edit
    touched and shifting the rest; the same units `split_units` would give, or None when the
    edit may move boundaries elsewhere (a triple quote added or removed, a decorator at the
    seam, code that needs repair near the edit): then split the whole text."""
    old, units = previous.lines, previous.units
    first, old_end, new_end = _changed_lines(old, lines)
    if first == len(old) == len(lines):
        return list(units)
    if _may_move_strings(old[first:old_end], lines[first:new_end]):
        return None  # string interiors, hence unit starts, may change anywhere after
    starts = list(map(_START_LINE, units))
    start = bisect_right(starts, first) - 1
    if start > 0 and starts[start] == first:
        start -= 1  # the unit's own first line changed: it may now continue the previous one
    while start > 0 and units[start - 1].source.problem is not None:
        start -= 1  # a repaired unit looked ahead into the edited lines when merging
    stop = bisect_left(starts, old_end, lo=start + 1)
    shift = new_end - old_end
    window_start = starts[start]
    window_end = starts[stop] + shift if stop < len(units) else len(lines)
    if window_end <= window_start:
        return None  # the document's first lines were deleted
    window = lines[window_start:window_end]
    if stop - start == 1 and (spliced := _splice_member(units[start], window, first, old_end)):
        middle = [spliced]
    else:
        middle = split_units("\n".join(window), window)
    if any(unit.source.problem is not None for unit in middle):
        # Repair may merge across the seam (a decorator left last in the window is one).
        return None
    middle = [Unit(unit.source, unit.start_line + window_start) for unit in middle]
    if (
        shift == 0
        and len(middle) == stop - start
        and _may_keep_code(old[first:old_end], lines[first:new_end])
    ):
        middle = [
            _same_code_kept(old_unit, new_unit, first, old_end)
            for old_unit, new_unit in zip(units[start:stop], middle, strict=True)
        ]
    if shift == 0:  # the units after the edit stay where they were (units are values)
        return [*units[:start], *middle, *units[stop:]]
    return [
        *units[:start],
        *middle,
        *(Unit(unit.source, unit.start_line + shift, unit.changed_text) for unit in units[stop:]),
    ]


def _may_keep_code(old_lines: list[str], new_lines: list[str]) -> bool:
    """May an edit that turned `old_lines` into `new_lines` have left the code as it was?
    Only when a `#` stands on them (a comment typed, changed or deleted) or they hold the same
    characters besides blanks (blanks moved): any other change outside comments changes a
    token. A code edit (every keystroke in code) then skips comparing the two parses. Rare
    edits the tree does not show (a `;` typed at a statement's end) answer no as well: their
    unit's new parse is analysed, as after any code edit."""
    old_text, new_text = "".join(old_lines), "".join(new_lines)
    if "#" in old_text or "#" in new_text:
        return True
    return "".join(old_text.split()) == "".join(new_text.split())


def _same_code_kept(old: Unit, new: Unit, first: int, end: int) -> Unit:
    """`new`, or `old`'s parse with `new`'s text when the edit (document lines `first` to
    `end`, 0-based, end excluded) left the code as it was: a comment typed or deleted. The
    analysis of the old parse then stands, memos and cached findings included; what rules
    copy from the text is checked against the changed lines where findings are reused
    (`jax_lsp.engine.analyze`)."""
    if (
        new.source is old.source
        or new.start_line != old.start_line
        or new.source.line_count != old.source.line_count
        or new.source.problem is not None
        or old.source.problem is not None
        or old.tree is None
        or new.tree is None
    ):
        return new
    # 1-based, unit-relative, inclusive: the lines the edit touched.
    low, high = first - old.start_line + 1, max(end, first + 1) - old.start_line
    if not _same_code(old.tree.body, new.tree.body, low, high):
        return new
    text = new.source.text
    return Unit(old.source, old.start_line, None if text == old.source.text else text)


def _same_code(old: object, new: object, low: int, high: int) -> bool:
    """Are two parts of two parses the same code, positions included, given that the texts
    differ only on lines `low` to `high` (1-based)? A node that lies wholly outside those lines
    has the same text at the same place, hence the same subtree: only the nodes reaching into
    the changed lines are compared field by field, so a comment in a long function costs a
    walk down to it."""
    if old is new:  # a member the splice shared with the old parse
        return True
    if type(old) is not type(new):
        return False
    if isinstance(old, list):
        assert isinstance(new, list)
        return len(old) == len(new) and all(
            _same_code(a, b, low, high) for a, b in zip(old, new, strict=True)
        )
    if not isinstance(old, ast.AST):
        return old == new
    assert isinstance(new, ast.AST)
    place = _place(old)
    if place is not None:
        if place != _place(new):
            return False
        first, end = place[0], place[2]
        # Decorators stand above the `def` or `class` line, and the edit may have added one
        # (a blank line above the `def` typed into `@jax.jit`): both parses' count.
        for decorators in (getattr(old, "decorator_list", ()), getattr(new, "decorator_list", ())):
            first = min([first, *(decorator.lineno for decorator in decorators)])
        if end < low or first > high:
            return True
    return all(
        _same_code(getattr(old, name), getattr(new, name), low, high) for name in old._fields
    )


def _place(node: ast.AST) -> tuple[int, int, int, int] | None:
    """Where a node stands (lines 1-based), or None for nodes without a place (operators)."""
    line = getattr(node, "lineno", None)
    if line is None:
        return None
    return (line, node.col_offset, node.end_lineno, node.end_col_offset)  # type: ignore[attr-defined,return-value]


def first_line(node: ast.stmt) -> int:
    """The 1-based line a statement starts on, its decorators included."""
    decorators = getattr(node, "decorator_list", None)
    return min(node.lineno, *(d.lineno for d in decorators)) if decorators else node.lineno


def _splice_member(unit: Unit, window: list[str], first: int, old_end: int) -> Unit | None:
    """`unit`, a class or a function edited inside its body (document lines `first` to
    `old_end` of the old text), as the lines `window`: only the edited members (statements of
    the body) parsed again, the others' trees shared with the old parse, so a keystroke in a
    2,000-line class parses one method, and one in a long function the statements it touched;
    None when the edit may not stay within members (then the window is split as any other).

    The result is the tree `ast.parse` gives for the new text (see `_spliced`)."""
    source = unit.source
    tree = source.tree
    if source.problem is not None or tree is None or len(tree.body) != 1:
        return None
    outer = tree.body[0]
    if not isinstance(outer, _BLOCKS):
        return None
    body_start = first_line(outer.body[0]) - 1
    # Only the header's lines may start at column 0: any other starts a new unit.
    if body_start < 1 or any(line[:1] not in _NOT_CODE_START for line in window[body_start:]):
        return None
    spliced = _spliced(
        outer,
        window,
        first - unit.start_line,
        old_end - unit.start_line,
        len(window) == source.line_count,
        len(window),
        1,
    )
    if spliced is None:
        return None
    text = "\n".join(window) + "\n"
    cached = _SOURCE_CACHE.get(text)
    if cached is None:
        new_tree = ast.Module(body=[spliced], type_ignores=[])
        _CACHE.put(text, _Parsed(new_tree, None, frozenset()))
        cached = UnitSource(text, len(window), new_tree, spliced_from=weakref.ref(source))
        _SOURCE_CACHE.put(text, cached)
    return Unit(cached, 0)


# What `_spliced` parses member by member: a class, or a function.
_BLOCKS = (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)


def _spliced(
    block: ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef,
    window: list[str],
    edited_first: int,
    edited_end: int,
    same_lines: bool,
    body_end: int,
    depth: int,
) -> ast.stmt | None:
    """`block` (a copy) with the members of its body that the edit touched (unit-relative
    lines `edited_first` to `edited_end` of the old text) parsed again from `window`, the
    others shared; None when the edit may leave the members (then a larger part is parsed).
    `body_end`: the line where the block's last member's lines end; `depth`: the block's
    nesting in the unit (1 for the unit's own statement).

    One edited member that is itself a class or a function (a method, typed inside its body)
    is spliced the same way, one level down: a keystroke in a long method parses the
    statements it touched, not the whole method. The members run from the first edited one
    to the next untouched one (to the end of the body when lines were added or removed, as
    everything after has moved), parsed as the body of stand-in class headers, one per
    level, on the lines above them, so every position (and the nesting depth the tree's
    limit counts) comes out where a whole parse puts it (the parser takes a function's
    statements, `return` and `await` too, in a class body: where they may stand is the
    compiler's concern, not the parser's)."""
    members = block.body
    starts = [first_line(member) - 1 for member in members]  # 0-based, unit-relative
    if edited_first < starts[0] or starts[0] < depth:
        return None  # the header (or a block on the header's line) changed
    begin = bisect_left(starts, starts[bisect_right(starts, edited_first) - 1])
    # From a line no earlier member runs onto (`x = (\n    1); y = 2`: the edited line may
    # hold the end of the member before the one starting there).
    while begin > 0 and members[begin - 1].end_lineno > starts[begin]:  # type: ignore[operator]
        begin -= 1
    region_start = starts[begin]
    if same_lines:
        end = bisect_left(starts, max(edited_end, region_start + 1), lo=begin + 1)
        # To a line no later member starts on (the last one parsed again may end on it).
        while end < len(members) and members[end - 1].end_lineno > starts[end]:  # type: ignore[operator]
            end += 1
        region_end = starts[end] if end < len(members) else body_end
    else:
        end, region_end = len(members), body_end
    if same_lines and end == begin + 1 and isinstance(members[begin], _BLOCKS):
        inner = members[begin]
        body_line = window[first_line(inner.body[0]) - 1]
        # Its body on lines of its own (not `def f(): return 1`, nor after a header's tail).
        if body_line[: inner.body[0].col_offset].isspace():
            spliced_inner = _spliced(
                inner, window, edited_first, edited_end, True, region_end, depth + 1
            )
            if spliced_inner is not None:
                spliced_members = [*members[:begin], spliced_inner, *members[end:]]
                return _with_members(block, spliced_members, window)
    region = "\n".join(window[region_start:region_end])
    headers = "".join(" " * level + "class _:\n" for level in range(depth))
    parsed = _parse("\n" * (region_start - depth) + headers + region + "\n")
    if parsed.tree is None or len(parsed.tree.body) != 1:
        return None
    stand_in = parsed.tree.body[0]
    for _ in range(depth - 1):  # down the stand-in headers, each holding the next alone
        if not isinstance(stand_in, ast.ClassDef) or len(stand_in.body) != 1:
            return None
        stand_in = stand_in.body[0]
    # A block's statements share one indentation: the first's must be the block's body's.
    if not isinstance(stand_in, ast.ClassDef) or (
        stand_in.body[0].col_offset != members[0].col_offset
    ):
        return None
    return _with_members(block, [*members[:begin], *stand_in.body, *members[end:]], window)


def _with_members(block: ast.stmt, members: list[ast.stmt], window: list[str]) -> ast.stmt:
    """A copy of `block` whose body is `members`, ending where its last member ends: after
    the `;` that may close the last line's statements, as the parser ends a block there
    (`window`: the unit's lines)."""
    spliced = copy.copy(block)
    spliced.body = members  # type: ignore[attr-defined]
    last = members[-1]
    end = last.end_col_offset
    if not hasattr(last, "body"):  # a simple statement: a `;` may follow it on its line
        tail = window[last.end_lineno - 1].encode("utf-8")[end:]  # type: ignore[operator]
        rest = tail.lstrip(b" \t")
        if rest.startswith(b";"):
            end += len(tail) - len(rest) + 1  # type: ignore[operator]
    spliced.end_lineno = last.end_lineno
    spliced.end_col_offset = end
    return spliced


@dataclass
class Document:
    """A text and its units. Immutable once built: a new text makes a new Document.

    `previous`: an earlier version of the same document, whose units outside the edited
    lines are reused instead of splitting the whole text again (the server's keystrokes).
    `known_lines`: `split_lines(text)` when the caller has it already (the server keeps the lines
    of open documents up to date edit by edit).
    """

    text: str
    path: str = "<unknown>"
    version: int | None = None
    previous: InitVar[Document | None] = None
    known_lines: InitVar[list[str] | None] = None
    units: list[Unit] = field(init=False)
    lines: list[str] = field(init=False)
    # Module-wide facts of the last model of this document's versions, for the next to reuse.
    lineage: Lineage = field(init=False, repr=False, compare=False)

    def __post_init__(self, previous: Document | None, known_lines: list[str] | None) -> None:
        self.lineage = previous.lineage if previous is not None else Lineage()
        self.lines = known_lines if known_lines is not None else split_lines(self.text)
        units = resplit_units(previous, self.lines) if previous is not None else None
        self.units = _own_parses(units if units is not None else split_units(self.text, self.lines))

    @property
    def problems(self) -> list[SyntaxProblem]:
        return [unit.problem for unit in self.units if unit.problem is not None]

    @cached_property
    def parsed_units(self) -> list[Unit]:
        """The units that have a parse, in order (the caller's, not to change): asked by many
        module facts at each edit."""
        return [unit for unit in self.units if unit.tree is not None]

    @cached_property
    def parsed_sources(self) -> list[UnitSource]:
        """The parses of `parsed_units`, in order (the caller's, not to change)."""
        return [unit.source for unit in self.parsed_units]

    def unit_lines(self, line: int) -> tuple[int, int]:
        """The half-open line range of the unit holding `line`: no string, bracket or
        continuation crosses its bounds, so a scan for them need not look past it."""
        units = self.units
        index = bisect_right(units, line, key=_START_LINE) - 1
        if index < 0:  # no unit: an empty text
            return 0, len(self.lines)
        end = units[index + 1].start_line if index + 1 < len(units) else len(self.lines)
        return units[index].start_line, end

    def words_by_unit(self) -> list[frozenset[str]]:
        """`UnitSource.words` of each of `parsed_sources`: the last version's sets for the
        units an edit left alone (`Lineage.each_unit`)."""
        return self.lineage.each_unit(_unit_words, self.parsed_sources)

    def units_holding(self, word: str) -> list[int]:
        """The indices in `parsed_units` of the units whose words hold `word`
        (`Lineage.holding`: the edited units looked in, the others' answers carried over)."""
        return self.lineage.holding(_unit_words, self.parsed_sources, word)


def _own_parses(units: list[Unit]) -> list[Unit]:
    """`units` with no parse shared by two of them. A unit's parse is shared wherever its text
    appears, but the analysis keys its facts on the tree's nodes: a notebook that defines the
    same `def f(x): ...` in two cells (jitted with a static `x` in one, differentiated in the
    other) must have two functions. A repeat gets a copy of the parse of its own, the same copy
    each time (the n-th copy of a text), so edits elsewhere keep reusing its analyses."""
    if len(set(map(id, map(_SOURCE, units)))) == len(units):
        return units  # no parse shared (the rule): one pass in C, at every keystroke
    used: set[int] = set()
    owned = []
    for unit in units:
        source = unit.source
        if id(source) in used and source.tree is not None:
            copy_number = 1
            while id(source) in used:
                source = _repeated_source(unit.source, copy_number)
                copy_number += 1
            unit = Unit(source, unit.start_line, unit.changed_text)
        used.add(id(source))
        owned.append(unit)
    return owned


def _repeated_source(shared: UnitSource, copy_number: int) -> UnitSource:
    key = f"{copy_number}\x00{shared.text}"  # no parsed text holds a NUL
    cached = _REPEAT_CACHE.get(key)
    if cached is None:
        cached = UnitSource(shared.text, shared.line_count, copy.deepcopy(shared.tree))
        cached.problem, cached.blanked_lines = shared.problem, shared.blanked_lines
        _REPEAT_CACHE.put(key, cached)
    return cached


def clear_caches() -> None:
    """Forget every cached parse and unit (benchmarks measure cold parsing with this)."""
    _CACHE.clear()
    _SOURCE_CACHE.clear()
    _REPEAT_CACHE.clear()
    _PIECE_WORDS.clear()
    forget_walks()

"""Applying fixes to a text: non-overlapping edits, repeated until nothing more applies; and
the one edit that turns a text into its fixed version (what fix-all hands an editor)."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from itertools import accumulate, count
from operator import add

from jax_lsp.codeactions import with_deferred_fixes
from jax_lsp.findings import Edit, Finding, Fix, Position, Span
from jax_lsp.text import split_lines

_MAX_PASSES = 10
# A line with its line ending; the last line may have none.
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+")


def _offsets(text: str) -> list[int]:
    if "\r" not in text:  # each line start: the lengths before it and one "\n" each, in C
        lengths = accumulate(map(len, text.split("\n")[:-1]))
        return [0, *map(add, lengths, count(1))]
    starts = [0]
    index = 0
    for line in split_lines(text)[:-1]:
        index += len(line)
        # Skip the newline that ended this line (\r\n counts as one).
        index += 2 if text.startswith("\r\n", index) else 1
        starts.append(index)
    return starts


def _offset(starts: list[int], text: str, position: Position) -> int:
    if position.line >= len(starts):
        return len(text)
    return min(starts[position.line] + position.column, len(text))


def apply_edits(text: str, edits: Iterable[Edit]) -> str:
    """Apply non-overlapping edits (positions refer to `text`)."""
    starts = _offsets(text)
    ordered = sorted(edits, key=lambda e: (e.span.start, e.span.end), reverse=True)
    for edit in ordered:
        begin = _offset(starts, text, edit.span.start)
        end = _offset(starts, text, edit.span.end)
        text = text[:begin] + edit.content + text[end:]
    return text


def select_fixes(findings: Iterable[Finding], unsafe: bool) -> list[Fix]:
    """The fixes to apply in one pass: allowed ones, first come, none overlapping."""
    chosen: list[Fix] = []
    taken: list = []
    for finding in sorted(findings, key=lambda f: f.span.start):
        fix = chosen_fix(finding, unsafe)
        if fix is None:
            continue
        spans = [edit.span for edit in fix.edits]
        if any(span.overlaps(other) or span == other for span in spans for other in taken):
            continue
        chosen.append(fix)
        taken.extend(spans)
    return chosen


def _keys(findings: list[Finding], text: str) -> Counter[tuple[str, str]]:
    """Findings by code and the source they point at: what stays the same when a fix elsewhere
    moves them (their messages may quote line numbers)."""
    lines = split_lines(text)

    def spanned(finding: Finding) -> str:
        start, end = finding.span.start, finding.span.end
        if start.line >= len(lines):
            return ""
        if start.line == end.line:
            return lines[start.line][start.column : end.column]
        return "\n".join([lines[start.line][start.column :], *lines[start.line + 1 : end.line]])

    return Counter((finding.code, spanned(finding)) for finding in findings)


def chosen_fix(finding: Finding, unsafe: bool) -> Fix | None:
    """The fix `fix_text` applies for the finding (deferred ones built first): never a pick
    among choices that differ in what the code does. A safe fix keeps what the code means, so
    the first safe one is it (two safe rewrites of a mask compute the same; unsafe
    alternatives are for an editor's user to weigh); without a safe one, its only fix when
    `unsafe` allows it. Two unsafe ones and no safe one (float32, or 64-bit mode) are left
    for the user to choose (`choices`)."""
    offered = _offered(finding)
    safe = [fix for fix in offered if fix.is_safe]
    if safe:
        return safe[0]
    return offered[0] if unsafe and len(offered) == 1 else None


def _offered(finding: Finding) -> list[Fix]:
    return [fix for fix in (finding.fix, *finding.alternatives) if fix is not None]


def choices(finding: Finding, unsafe: bool) -> tuple[Fix, ...]:
    """The fixes left for the user to choose among: those `fix_text` would apply were there
    one of them, when there are several (empty otherwise)."""
    allowed = tuple(fix for fix in _offered(finding) if fix.is_safe or unsafe)
    if chosen_fix(finding, unsafe) is not None or len(allowed) < 2:
        return ()
    return allowed


def fixable(finding: Finding, unsafe: bool) -> bool:
    """Whether `fix_text` applies a fix for the finding (deferred ones built first)."""
    return chosen_fix(finding, unsafe) is not None


def fix_text(
    text: str, analyze: Callable[[str], list[Finding]], unsafe: bool = False
) -> tuple[str, int]:
    """Apply fixes until none is left (or a pass changes nothing). Returns (text, findings
    fixed): the fixable findings that a pass made disappear, whether by their own fix or by
    another's (two findings may share one fix, like one `static_argnames` for two uses), so
    that the count is the one `check` predicts, each fixable finding once."""
    fixed = 0
    findings = [with_deferred_fixes(finding, text) for finding in analyze(text)]
    for _ in range(_MAX_PASSES):
        fixes = select_fixes(findings, unsafe)
        if not fixes:
            break
        new_text = apply_edits(text, [edit for fix in fixes for edit in fix.edits])
        if new_text == text:
            break
        before_all = _keys(findings, text)
        before_fixable = _keys([f for f in findings if fixable(f, unsafe)], text)
        text = new_text
        after = [with_deferred_fixes(finding, text) for finding in analyze(text)]
        remaining = _keys(after, text)
        fixed += sum(
            min(count, max(before_all[key] - remaining[key], 0))
            for key, count in before_fixable.items()
        )
        findings = after
    return text, fixed


def replacement(old: str, new: str) -> Edit:
    """One edit turning `old` into `new`, spanning only the whole lines that differ."""
    if "\r" in old or "\r" in new:
        old_lines, new_lines = _LINE.findall(old), _LINE.findall(new)
        ended = False
    else:  # the same lines, cut by str.split: several times faster than the pattern
        old_lines, new_lines = _split_lines(old), _split_lines(new)
        ended = True
    prefix = _common_prefix(old_lines, new_lines)
    suffix = _common_suffix(old_lines, new_lines, prefix)
    end = len(new_lines) - suffix
    if not ended:
        middle = "".join(new_lines[prefix:end])
    else:
        middle = new[_line_offset(new, new_lines, prefix) : _line_offset(new, new_lines, end)]
    return Edit(Span.of(prefix, 0, len(old_lines) - suffix, 0), middle)


def _split_lines(text: str) -> list[str | tuple[str]]:
    """The lines of a text without "\r", as `_LINE` finds them but without their "\n"; a last
    line without one is a 1-tuple, so that it differs from the same text ended."""
    lines: list[str | tuple[str]] = list(text.split("\n"))
    last = lines.pop()
    if last:
        lines.append((last,))
    return lines


def _line_offset(text: str, lines: Sequence[str | tuple[str]], line: int) -> int:
    """Where `line` of `_split_lines(text)` starts (the text's end past the last)."""
    if line >= len(lines):
        return len(text)
    return sum(map(len, lines[:line])) + line  # type: ignore[arg-type]  # strs before `line`


# Lines compared at once (as list slices, in C) before the line-by-line search.
_CHUNK = 64


def _common_prefix(old: Sequence, new: Sequence) -> int:
    limit = min(len(old), len(new))
    prefix = 0
    while (
        prefix + _CHUNK <= limit and old[prefix : prefix + _CHUNK] == new[prefix : prefix + _CHUNK]
    ):
        prefix += _CHUNK
    while prefix < limit and old[prefix] == new[prefix]:
        prefix += 1
    return prefix


def _common_suffix(old: Sequence, new: Sequence, prefix: int) -> int:
    """The lines both end with, among those after the first `prefix`."""
    limit = min(len(old), len(new)) - prefix
    old_end, new_end = len(old), len(new)
    suffix = 0
    while (
        suffix + _CHUNK <= limit
        and old[old_end - suffix - _CHUNK : old_end - suffix]
        == new[new_end - suffix - _CHUNK : new_end - suffix]
    ):
        suffix += _CHUNK
    while suffix < limit and old[old_end - 1 - suffix] == new[new_end - 1 - suffix]:
        suffix += 1
    return suffix

"""Applying fixes to a text: non-overlapping edits, repeated until nothing more applies."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from jax_lsp.analysis.text import split_lines
from jax_lsp.codeactions import with_deferred_fixes
from jax_lsp.findings import Edit, Finding, Fix, Position

_MAX_PASSES = 10


def _offsets(text: str) -> list[int]:
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
        fix = finding.fix
        if fix is None or not (fix.is_safe or unsafe):
            continue
        spans = [edit.span for edit in fix.edits]
        if any(span.overlaps(other) or span == other for span in spans for other in taken):
            continue
        chosen.append(fix)
        taken.extend(spans)
    return chosen


def fix_text(
    text: str, analyze: Callable[[str], list[Finding]], unsafe: bool = False
) -> tuple[str, int]:
    """Apply fixes until none is left (or a pass changes nothing). Returns (text, fixes applied)."""
    applied = 0
    for _ in range(_MAX_PASSES):
        findings = [with_deferred_fixes(finding, text) for finding in analyze(text)]
        fixes = select_fixes(findings, unsafe)
        if not fixes:
            break
        new_text = apply_edits(text, [edit for fix in fixes for edit in fix.edits])
        if new_text == text:
            break
        text = new_text
        applied += len(fixes)
    return text, applied

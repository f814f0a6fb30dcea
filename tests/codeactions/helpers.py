"""Shared by the codemod tests: positions by needle, applying a fix to a dedented snippet."""

from __future__ import annotations

import itertools
import sys
import textwrap
import types
from collections.abc import Callable
from dataclasses import replace

from jax_lsp.codeactions import with_deferred_fixes
from jax_lsp.codeactions.apply import apply_edits, fix_text
from jax_lsp.findings import Finding, Fix
from tests.runtime import Outcome, run_snippet


def source(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


def position_of(text: str, needle: str, occurrence: int = 0) -> tuple[int, int]:
    """0-based line and column of the `occurrence`-th `needle` in `text`."""
    index = -1
    for _ in range(occurrence + 1):
        index = text.index(needle, index + 1)
    line = text.count("\n", 0, index)
    return line, index - (text.rfind("\n", 0, index) + 1)


def applied(text: str, fix: Fix | None) -> str:
    assert fix is not None, "expected a fix"
    spans = sorted(edit.span for edit in fix.edits)
    assert all(not a.overlaps(b) for a, b in itertools.pairwise(spans)), "overlapping edits"
    return apply_edits(text, fix.edits)


def run_as_module(text: str, check: str) -> Outcome:
    """`run_snippet`, with the snippet's module in sys.modules (dataclasses look it up)."""
    module = types.ModuleType("__example__")
    sys.modules["__example__"] = module
    try:
        return run_snippet(text, check)
    finally:
        del sys.modules["__example__"]


def main_fixes_only(run: Callable[[str], list[Finding]]) -> Callable[[str], list[Finding]]:
    """`run` with each finding reduced to its main fix (deferred ones built first): `fix_text`
    over it applies what a user picking each finding's first quick fix gets, where `fix_text`
    itself leaves a finding with several fixes alone (documented outputs show the first)."""

    def findings(text: str) -> list[Finding]:
        built = [with_deferred_fixes(finding, text) for finding in run(text)]
        return [replace(finding, alternatives=(), deferred=()) for finding in built]

    return findings


def fixed_and_run(text: str, run: Callable[[str], list[Finding]], expected: str, check: str) -> str:
    """`text` with its fixes applied (unsafe ones too), which must hold `expected` and run
    under JAX with `check` passing: the fixed program."""
    fixed, _ = fix_text(text, run, unsafe=True)
    assert expected in fixed, fixed
    outcome = run_snippet(fixed, check)
    assert outcome.error is None, f"{outcome.error!r}\n{fixed}"
    return fixed

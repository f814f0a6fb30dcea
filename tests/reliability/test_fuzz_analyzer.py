"""Fuzzing the analyzer and the codemods with generated Python: hypothesmith's grammar-based
sources (any valid Python) and our JAX-flavoured generator (`jaxgen`), plus mangled versions.

Properties: `analyze` never raises, every finding and fix edit lies inside the text, and every
fix's output (each finding's fixes and deferred codemods, and `fix_text` with unsafe fixes)
parses whenever the input did. Derandomized: a failure reproduces as is.
"""

from __future__ import annotations

import ast
import warnings

import hypothesmith
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jax_lsp.analysis.document import Document
from jax_lsp.codeactions import with_deferred_fixes
from jax_lsp.codeactions.apply import apply_edits, fix_text
from jax_lsp.engine import analyze
from jax_lsp.findings import Finding, Span
from jax_lsp.text import split_lines
from tests.reliability.jaxgen import jax_modules

SETTINGS = settings(
    max_examples=40,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)


def parses(text: str) -> bool:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return True


def findings_of(text: str) -> list[Finding]:
    return analyze(Document(text)).findings


def assert_inside(span: Span, lines: list[str]) -> None:
    for point in (span.start, span.end):
        assert 0 <= point.line < len(lines), (span, len(lines))
        assert 0 <= point.column <= len(lines[point.line]), (span, lines[point.line])
    assert span.start <= span.end, span


def check(text: str) -> None:
    lines = split_lines(text)
    valid = parses(text)
    for finding in findings_of(text):
        assert_inside(finding.span, lines)
        built = with_deferred_fixes(finding, text)
        for fix in (built.fix, *built.alternatives):
            if fix is None:
                continue
            for edit in fix.edits:
                assert_inside(edit.span, lines)
            if valid:
                fixed = apply_edits(text, fix.edits)
                assert parses(fixed), (finding.code, fix.title, fixed)
    fixed, _ = fix_text(text, findings_of, unsafe=True)
    if valid:
        assert parses(fixed), fixed


def mangle(text: str, cut: int, insert: str) -> str:
    """Half-typed code: a piece inserted somewhere (as an editor would mid-keystroke)."""
    where = cut % (len(text) + 1)
    return text[:where] + insert + text[where:]


@SETTINGS
@given(jax_modules())
def test_jax_flavoured_modules(text):
    check(text)


@SETTINGS
@given(
    jax_modules(),
    st.integers(0, 100_000),
    st.sampled_from(["(", ")", ":", "\n    ", "x[", "jnp.", '"""', "\t", "lambda", "中😀", "\r\n"]),
)
def test_half_typed_jax_modules(text, cut, insert):
    check(mangle(text, cut, insert))


@settings(SETTINGS, max_examples=25)
@given(st.deferred(hypothesmith.from_grammar))  # built when run: 2 s of parser tables
def test_grammar_generated_modules(text):
    check(text)


@settings(SETTINGS, max_examples=15)
@given(hypothesmith.from_node())
def test_libcst_generated_modules(text):
    check(text)

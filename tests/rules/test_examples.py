"""Every rule's documented examples: INVALID ones are flagged on exactly their `# error`
lines, VALID ones not at all, and fixes turn INVALID examples into their `fixed` form."""

from __future__ import annotations

import textwrap

import pytest

from jax_lsp.analysis.document import Document
from jax_lsp.codeactions.apply import fix_text
from jax_lsp.diagnostics import ALL_RULES
from jax_lsp.diagnostics.base import iter_examples
from jax_lsp.engine import analyze
from tests.codeactions.helpers import main_fixes_only

EXAMPLES = list(iter_examples(ALL_RULES))
INVALID = [(rule, name, ex) for rule, name, ex in EXAMPLES if "-invalid-" in name]
VALID = [(rule, name, ex) for rule, name, ex in EXAMPLES if "-valid-" in name]
FIXED = [(rule, name, ex) for rule, name, ex in INVALID if ex.fixed is not None]


def test_every_rule_has_examples():
    for rule in ALL_RULES:
        assert rule.invalid, f"{rule.code} has no INVALID example"
        assert rule.valid, f"{rule.code} has no VALID example"
        for example in rule.invalid:
            assert example.marked_lines(), f"{rule.code}: an INVALID example marks no line"


@pytest.mark.parametrize(("rule", "name", "example"), INVALID, ids=[n for _, n, _ in INVALID])
def test_invalid_example_is_flagged_on_marked_lines(rule, name, example):
    findings = analyze(Document(example.code), (rule,)).findings
    assert sorted({f.span.start.line for f in findings}) == example.marked_lines()
    assert all(f.code == rule.code for f in findings)


@pytest.mark.parametrize(("rule", "name", "example"), VALID, ids=[n for _, n, _ in VALID])
def test_valid_example_is_not_flagged(rule, name, example):
    assert analyze(Document(example.code), ALL_RULES).findings == []


@pytest.mark.parametrize(("rule", "name", "example"), FIXED, ids=[n for _, n, _ in FIXED])
def test_fix_produces_documented_output(rule, name, example):
    def run(text: str):
        return analyze(Document(text), (rule,)).findings

    fixed, applied = fix_text(example.code, main_fixes_only(run), unsafe=True)
    expected = textwrap.dedent(example.fixed).strip("\n") + "\n"
    assert applied >= 1
    assert fixed.replace("  # error", "") == expected
    assert analyze(Document(fixed), (rule,)).findings == []

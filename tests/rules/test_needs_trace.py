"""`Rule.needs_trace` is a promise: a rule the walker skips outside (abstractly) traced code
finds nothing there. Checked by running every example and fixture with every rule called
everywhere, and comparing."""

from __future__ import annotations

from pathlib import Path

import pytest

from jax_lsp.analysis.document import Document, clear_caches
from jax_lsp.diagnostics import ALL_RULES, runner
from jax_lsp.diagnostics.base import iter_examples

FIXTURES = sorted((Path(__file__).parent.parent / "fixtures").glob("*.py"))
TEXTS = [path.read_text(encoding="utf-8") for path in FIXTURES] + [
    example.code for _, _, example in iter_examples(ALL_RULES)
]


def _findings(texts: list[str]) -> list[list[tuple]]:
    clear_caches()  # findings are memoised per unit: analyze afresh
    return [
        [(f.code, f.span, f.message) for f in runner.analyze(Document(text)).findings]
        for text in texts
    ]


def test_some_rules_are_skipped_outside_traced_code():
    assert {rule.needs_trace for rule in ALL_RULES} == {None, "traced", "abstract"}


def test_skipping_rules_outside_traced_code_loses_no_finding(monkeypatch: pytest.MonkeyPatch):
    skipped = _findings(TEXTS)
    everywhere = dict.fromkeys(runner._ALLOWED_RULES, (None, "traced", "abstract"))
    monkeypatch.setattr(runner, "_ALLOWED_RULES", everywhere)
    assert _findings(TEXTS) == skipped
    assert any(skipped)  # the texts do have findings to compare

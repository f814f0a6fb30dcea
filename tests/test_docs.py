"""Generated docs stay in sync with the rule classes (regenerate: python -m jax_lsp.docs)."""

from __future__ import annotations

from pathlib import Path

from jax_lsp.diagnostics import ALL_RULES
from jax_lsp.docs import TABLE_END, TABLE_START, readme_with_table

ROOT = Path(__file__).resolve().parent.parent


def test_readme_rule_table_is_current():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert TABLE_START in readme and TABLE_END in readme
    assert readme == readme_with_table(readme), "run `python -m jax_lsp.docs`"


def test_rule_pages_are_current():
    for rule in ALL_RULES:
        page = ROOT / "docs" / "rules" / f"{rule.code}.md"
        assert page.read_text(encoding="utf-8") == rule.docs(), "run `python -m jax_lsp.docs`"
        assert rule.url().endswith(f"docs/rules/{rule.code}.md")


def test_every_rule_documents_itself():
    codes = [rule.code for rule in ALL_RULES]
    assert len(codes) == len(set(codes))
    for rule in ALL_RULES:
        for text in (rule.name, rule.summary, rule.what_it_does, rule.why_bad, rule.fix_safety):
            assert text.strip(), f"{rule.code} lacks documentation"

"""What a newcomer types: `rule CODE` and `rule --all` as ruff spells them, the fix column of
`rules`, the totals under `--statistics`; and that fix column telling the truth about each
rule's fixes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from jax_lsp.analysis.document import Document
from jax_lsp.diagnostics import ALL_RULES
from jax_lsp.diagnostics.base import Rule
from jax_lsp.engine import analyze, with_fixes_built
from tests.cli.helpers import jax_lsp


def test_rule_code_prints_the_page_as_explain_does(tmp_path: Path):
    rule = jax_lsp("rule", "jax702", cwd=tmp_path)
    assert rule.code == 0
    assert rule.stdout == jax_lsp("explain", "JAX702", cwd=tmp_path).stdout
    assert rule.stdout.startswith("# JAX702 (python-logic-on-traced)")
    assert "fix: sometimes, safe or unsafe." in rule.stdout
    shown = json.loads(jax_lsp("rule", "JAX201", "--output-format", "json", cwd=tmp_path).stdout)
    assert shown["code"] == "JAX201" and shown["fix"] == "safe or unsafe"
    assert shown["explanation"].startswith("# JAX201")


def test_rule_all_prints_every_page(tmp_path: Path):
    every = jax_lsp("rule", "--all", cwd=tmp_path)
    assert every.code == 0
    assert [line for line in every.stdout.splitlines() if line.startswith("# JAX")] == [
        f"# {rule.code} ({rule.name})" for rule in ALL_RULES
    ]
    rows = json.loads(jax_lsp("rule", "--all", "--output-format", "json", cwd=tmp_path).stdout)
    assert [row["code"] for row in rows] == [rule.code for rule in ALL_RULES]


@pytest.mark.parametrize("args", [(), ("JAX201", "--all"), ("JAX9999",)])
def test_rule_needs_one_known_code_or_all(tmp_path: Path, args: tuple[str, ...]):
    run = jax_lsp("rule", *args, cwd=tmp_path)
    assert run.code == 2 and run.stdout == "" and "jax-lsp: error:" in run.stderr


def test_rules_shows_the_fix_column(tmp_path: Path):
    lines = jax_lsp("rules", cwd=tmp_path).stdout.splitlines()
    assert lines[0].split() == ["code", "name", "fix", "what", "is", "flagged"]
    by_code = {line.split()[0]: line for line in lines[1:]}
    assert " sometimes, unsafe " in by_code["JAX1001"]
    assert " no " in by_code["JAX102"]
    rows = json.loads(jax_lsp("rules", "--output-format", "json", cwd=tmp_path).stdout)
    assert {row["code"]: row["fix"] for row in rows}["JAX101"] == "unsafe"


def test_statistics_end_with_the_totals(tmp_path: Path):
    (tmp_path / "a.py").write_text(
        "import jax.numpy as jnp\n\nx = jnp.zeros(3)\nx[0] = 1.0\nx[1] = 2.0\n"
    )
    run = jax_lsp("check", "--statistics", "a.py", cwd=tmp_path)
    assert run.stdout.splitlines() == [
        "    2\tJAX201  [*] index-assign",
        "Found 2 findings: 2 errors.",
        "[*] 2 fixable with the `--fix` option.",
    ]
    quiet = jax_lsp("check", "--statistics", "--quiet", "a.py", cwd=tmp_path)
    assert quiet.stdout.splitlines() == ["    2\tJAX201  [*] index-assign"]


def _fixes_of_examples(rule: type[Rule]) -> set:
    """The applicabilities of every fix the rule offers on its INVALID examples, codemods
    built."""
    found = set()
    for example in rule.invalid:
        analysis = analyze(Document(example.code), (rule,))
        for finding in with_fixes_built(analysis, example.code):
            fixes = [finding.fix, *finding.alternatives]
            found |= {fix.applicability for fix in fixes if fix is not None}
    return found


@pytest.mark.parametrize("rule", ALL_RULES, ids=[rule.code for rule in ALL_RULES])
def test_the_fix_column_says_what_the_rule_offers(rule: type[Rule]):
    offered = _fixes_of_examples(rule)
    assert offered <= rule.fix_applicabilities, f"{rule.code} offers {offered}"
    no_fix_text = rule.fix_safety.strip() == Rule.fix_safety
    assert no_fix_text == (not rule.fix_applicabilities)
    assert bool(offered) == bool(rule.fix_applicabilities)

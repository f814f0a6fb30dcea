"""A rule that declares what the lines of a node must spell (`Rule.prefilter`) is handed only
the nodes that spell it: its findings are the same as when it is handed every node, on every
documented example and fixture."""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

import pytest

from jax_lsp.analysis.document import Document
from jax_lsp.diagnostics import ALL_RULES
from jax_lsp.diagnostics.base import Example, Rule, RuleContext, Spelled
from jax_lsp.engine import analyze
from jax_lsp.findings import Finding

FIXTURES = Path(__file__).parent.parent / "fixtures"
DECLARING = [rule for rule in ALL_RULES if rule.prefilter is not None]


def _unfiltered(rule: type[Rule]) -> type[Rule]:
    return type(rule.__name__, (rule,), {"prefilter": None})


def _sources() -> list[str]:
    sources = [path.read_text() for path in sorted(FIXTURES.glob("*.py"))]
    for rule in ALL_RULES:
        sources += [example.code for example in (*rule.valid, *rule.invalid)]
    return sources


def _findings(source: str, rules: list[type[Rule]]) -> list[tuple]:
    found = analyze(Document(source), rules, reuse_findings=False).findings
    return [(f.code, f.span, f.message) for f in found]


def test_some_rules_declare_a_prefilter() -> None:
    assert {rule.code for rule in DECLARING} >= {"JAX203", "JAX301"}
    for rule in DECLARING:
        on = rule.prefilter.on
        assert on is None or set(on) <= set(rule.node_types)


@pytest.mark.parametrize("rule", DECLARING, ids=lambda rule: rule.code)
def test_a_prefilter_loses_no_finding(rule: type[Rule]) -> None:
    for source in _sources():
        assert _findings(source, [rule]) == _findings(source, [_unfiltered(rule)])


class _Recording(Rule):
    code = "JAX1098"
    name = "recording"
    summary = "Records the functions it is handed"
    what_it_does = "Nothing."
    why_bad = "Nothing."
    node_types = (ast.FunctionDef, ast.Expr)
    prefilter = Spelled(("needle",), bound_to=("jax.numpy.take",), on=(ast.FunctionDef,))
    valid = (Example("x = 1\n"),)
    handed: list[str] = []

    def check(self, node: ast.AST, ctx: RuleContext) -> list[Finding]:
        self.handed.append(node.name if isinstance(node, ast.FunctionDef) else "expr")
        return []


def test_the_walker_hands_a_rule_only_the_nodes_that_spell_its_words() -> None:
    source = textwrap.dedent(
        """
        from jax.numpy import take as pick

        def plain():
            f()

        def aliased(x):
            return pick(x, 1)

        def found():
            return needle

        def noted():  # a needle in a comment costs a call, never a finding
            pass
        """
    )
    _Recording.handed = []
    analyze(Document(source), [_Recording], reuse_findings=False)
    # Nodes of other types than `on` are handed as before.
    assert _Recording.handed == ["expr", "aliased", "found", "noted"]

"""A rule on calls that declares the names its calls end with (`Rule.call_names`) is handed
only those calls: its findings are the same as when it is handed every call, on every
documented example and fixture, and under an import alias."""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

import pytest

from jax_lsp.analysis.document import Document
from jax_lsp.diagnostics import ALL_RULES
from jax_lsp.diagnostics.base import Rule
from jax_lsp.engine import analyze

FIXTURES = Path(__file__).parent.parent / "fixtures"
DECLARING = [rule for rule in ALL_RULES if rule.call_names is not None]


def _every_call(rule: type[Rule]) -> type[Rule]:
    return type(rule.__name__, (rule,), {"call_names": None})


def _sources() -> list[str]:
    sources = [path.read_text() for path in sorted(FIXTURES.glob("*.py"))]
    for rule in ALL_RULES:
        sources += [example.code for example in (*rule.valid, *rule.invalid)]
    return sources


def _findings(source: str, rules: list[type[Rule]]) -> list[tuple]:
    found = analyze(Document(source), rules, reuse_findings=False).findings
    return [(f.code, f.span, f.message) for f in found]


def test_some_rules_declare_their_calls() -> None:
    assert {rule.code for rule in DECLARING} >= {"JAX501", "JAX902", "JAX903"}
    assert all(ast.Call in rule.node_types for rule in DECLARING)


@pytest.mark.parametrize("rule", DECLARING, ids=lambda rule: rule.code)
def test_declared_names_lose_no_finding(rule: type[Rule]) -> None:
    for source in _sources():
        assert _findings(source, [rule]) == _findings(source, [_every_call(rule)])


def test_names_resolved_through_import_aliases() -> None:
    source = textwrap.dedent(
        """
        import jax
        import jax.numpy as jnp
        from jax.numpy import stack as st, asarray as aa

        def f(x):
            a = st([[1, 2], [3, 4]])
            c = aa(x, dtype=jnp.int32)
            d = jnp.zeros(3, dtype=jnp.int32).at[0].set(jnp.nan)
            e = jnp.linspace(0, 1, 5).astype(jnp.int8)
            return a, c, d, e

        y = jnp.ones(3)
        jax.config.update("jax_enable_x64", True)
        """
    )
    found = _findings(source, DECLARING)
    assert found == _findings(source, [_every_call(rule) for rule in DECLARING])
    assert [(code, span.start.line) for code, span, _ in found] == [
        ("JAX501", 6),
        ("JAX903", 8),
        ("JAX903", 9),
        ("JAX902", 13),
    ]

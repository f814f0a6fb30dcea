"""Hover text: one sentence, one wrong/right pair, the related places, the link."""

from __future__ import annotations

from jax_lsp.diagnostics import ALL_RULES, RULES_BY_CODE
from jax_lsp.findings import Finding, Related, Severity, Span
from jax_lsp.lsp.hover import example_pair, hover_markdown


def _finding(code: str, related: tuple[Related, ...] = ()) -> Finding:
    return Finding(code, "the message", Span.of(3, 0, 3, 4), Severity.ERROR, related=related)


def test_hover_is_short_and_does_not_repeat_the_message() -> None:
    text = hover_markdown(_finding("JAX701"))
    assert "the message" not in text
    assert text.startswith("**JAX701** python-branch-on-traced · Under `jit` a traced value")
    assert text.count("```python") == 1
    assert "# wrong\nif x > 0:" in text
    assert "# right\nreturn jax.numpy.where(x > 0, x, 0.0 * x)" in text
    assert text.endswith(f"[JAX701 documentation]({RULES_BY_CODE['JAX701'].url()})")


def test_related_places_are_listed_briefly() -> None:
    related = (Related(Span.of(0, 0, 0, 8), "`jax.jit` traces `step` here"),)
    text = hover_markdown(_finding("JAX701", related))
    assert "- line 1: `jax.jit` traces `step` here" in text
    # A client that shows them under the diagnostic's message: not twice.
    assert "traces" not in hover_markdown(_finding("JAX701", related), related=False)


def test_every_example_pair_is_short_and_differs() -> None:
    pairs = {rule.code: example_pair(rule) for rule in ALL_RULES}
    shown = {code: pair for code, pair in pairs.items() if pair is not None}
    assert len(shown) >= len(ALL_RULES) * 2 // 3  # most rules have one
    for wrong, right in shown.values():
        assert wrong != right
        assert max(len(wrong.splitlines()), len(right.splitlines())) <= 4

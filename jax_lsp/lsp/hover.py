"""Hover on a flagged range: the finding, its run-time effect, wrong and right code, the link."""

from __future__ import annotations

import textwrap

from jax_lsp.diagnostics import RULES_BY_CODE
from jax_lsp.findings import Finding, Position


def findings_at(findings: list[Finding], position: Position) -> list[Finding]:
    return [f for f in findings if f.span.start <= position <= f.span.end]


def hover_markdown(finding: Finding) -> str:
    rule = RULES_BY_CODE.get(finding.code)
    if rule is None:
        return f"**{finding.code}**: {finding.message}"
    parts = [
        f"**{rule.code}** `{rule.name}`: {finding.message}",
        "",
        "**At run time:** " + " ".join(textwrap.dedent(rule.why_bad).split()),
    ]
    if rule.invalid:
        parts += ["", "Wrong:", "```python", rule.invalid[0].display.rstrip(), "```"]
    if rule.valid:
        parts += ["", "Right:", "```python", rule.valid[0].display.rstrip(), "```"]
    parts += ["", f"[{rule.code} documentation]({rule.url()})"]
    return "\n".join(parts)

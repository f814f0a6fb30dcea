"""Hover on a flagged range: the finding, its run-time effect, wrong and right code, the link."""

from __future__ import annotations

import textwrap
from typing import TYPE_CHECKING

from lsprotocol import types

from jax_lsp.diagnostics import RULES_BY_CODE
from jax_lsp.findings import Finding, Position
from jax_lsp.lsp.positions import from_lsp_position, to_lsp_range

if TYPE_CHECKING:
    from jax_lsp.lsp.language_server import JaxLanguageServer


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


async def hover(ls: JaxLanguageServer, params: types.HoverParams) -> types.Hover | None:
    document = ls.documents.get(params.text_document.uri)
    if document is None:
        return None
    result = await ls.current_result(document)
    position = from_lsp_position(document.lines, params.position, ls.encoding)
    found = findings_at(result.findings, position)
    if not found:
        return None
    return types.Hover(
        contents=types.MarkupContent(
            kind=types.MarkupKind.Markdown,
            value="\n\n---\n\n".join(hover_markdown(f) for f in found),
        ),
        range=to_lsp_range(document.lines, found[0].span, ls.encoding),
    )

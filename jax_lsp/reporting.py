"""Formatting findings for the terminal and for tools: text, JSON (ruff's shape), SARIF 2.1.0."""

from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path

from jax_lsp import __version__
from jax_lsp.diagnostics import RULES_BY_CODE
from jax_lsp.findings import Finding, Fix, Position, Severity, Span

Entry = tuple[str, Finding, int | None]  # (path, finding, notebook cell number or None)


def _location(position: Position) -> dict[str, int]:
    return {"row": position.line + 1, "column": position.column + 1}


def display_path(path: str) -> str:
    """`path` relative to the working folder when it lies inside it."""
    try:
        relative = os.path.relpath(path)
    except ValueError:
        return path
    return path if relative.startswith("..") else relative


def _url(code: str) -> str | None:
    rule = RULES_BY_CODE.get(code)
    return rule.url() if rule else None


def _statistics(entries: Sequence[Entry]) -> str:
    counts = Counter(finding.code for _, finding, _ in entries)
    fixable = Counter(f.code for _, f, _ in entries if f.fix is not None and f.fix.is_safe)
    lines = []
    for code, count in sorted(counts.items(), key=lambda item: (-item[1], item[0])):
        rule = RULES_BY_CODE.get(code)
        mark = "[*]" if fixable[code] else "   "
        lines.append(f"{count:>5}\t{code:<8}{mark} {rule.name if rule else ''}")
    return "\n".join(lines) + "\n" if lines else ""


def format_text(entries: Sequence[Entry], statistics: bool = False, fixed: int = 0) -> str:
    if statistics:
        return _statistics(entries)
    lines = []
    for path, finding, cell in entries:
        start = finding.span.start
        mark = " [*]" if finding.fix is not None and finding.fix.is_safe else ""
        where = f"cell {cell}:" if cell is not None else ""
        lines.append(
            f"{display_path(path)}:{where}{start.line + 1}:{start.column + 1}: "
            f"{finding.code}{mark} {finding.message}"
        )
    safe = sum(1 for _, f, _ in entries if f.fix is not None and f.fix.is_safe)
    unsafe = sum(1 for _, f, _ in entries if f.fix is not None and not f.fix.is_safe)
    if entries:
        noun = "error" if len(entries) == 1 else "errors"
        lines.append(f"Found {len(entries)} {noun}.")
        if safe:
            lines.append(f"[*] {safe} fixable with the `--fix` option.")
        if unsafe:
            lines.append(f"{unsafe} more fixable with `--fix --unsafe-fixes`.")
    if fixed:
        lines.append(f"Fixed {fixed} {'error' if fixed == 1 else 'errors'}.")
    if not entries and not fixed:
        lines.append("All checks passed!")
    return "\n".join(lines) + "\n"


def _fix_json(fix: Fix | None) -> dict | None:
    if fix is None:
        return None
    return {
        "applicability": fix.applicability.value,
        "message": fix.title,
        "edits": [
            {
                "content": edit.content,
                "location": _location(edit.span.start),
                "end_location": _location(edit.span.end),
            }
            for edit in fix.edits
        ],
    }


def format_json(entries: Sequence[Entry], statistics: bool = False, fixed: int = 0) -> str:
    if statistics:
        counts = Counter(finding.code for _, finding, _ in entries)
        rows = [
            {"code": code, "name": RULES_BY_CODE[code].name, "count": count}
            for code, count in sorted(counts.items(), key=lambda item: (-item[1], item[0]))
        ]
        return json.dumps(rows, indent=2) + "\n"
    rows = [
        {
            "cell": cell,
            "code": finding.code,
            "end_location": _location(finding.span.end),
            "filename": str(Path(path).resolve()),
            "fix": _fix_json(finding.fix),
            "location": _location(finding.span.start),
            "message": finding.message,
            "noqa_row": finding.span.start.line + 1,
            "related": [
                {
                    "message": related.message,
                    "location": _location(related.span.start),
                    "end_location": _location(related.span.end),
                }
                for related in finding.related
            ],
            "url": _url(finding.code),
        }
        for path, finding, cell in entries
    ]
    return json.dumps(rows, indent=2, ensure_ascii=False) + "\n"


_SARIF_LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}


def _sarif_physical(path: str, span: Span) -> dict:
    start, end = span.start, span.end
    return {
        "artifactLocation": {"uri": Path(display_path(path)).as_posix()},
        "region": {
            "startLine": start.line + 1,
            "startColumn": start.column + 1,
            "endLine": end.line + 1,
            "endColumn": end.column + 1,
        },
    }


def format_sarif(entries: Sequence[Entry], statistics: bool = False, fixed: int = 0) -> str:
    rules = sorted(RULES_BY_CODE.values(), key=lambda rule: int(rule.code[3:]))
    rule_index = {rule.code: index for index, rule in enumerate(rules)}
    results = []
    for path, finding, cell in entries:
        results.append(
            {
                **({"properties": {"cell": cell}} if cell is not None else {}),
                "ruleId": finding.code,
                "ruleIndex": rule_index.get(finding.code, -1),
                "level": _SARIF_LEVEL[finding.severity],
                "message": {"text": finding.message},
                "locations": [{"physicalLocation": _sarif_physical(path, finding.span)}],
                **(
                    {
                        "relatedLocations": [
                            {
                                "id": index,
                                "message": {"text": related.message},
                                "physicalLocation": _sarif_physical(path, related.span),
                            }
                            for index, related in enumerate(finding.related)
                        ]
                    }
                    if finding.related
                    else {}
                ),
            }
        )
    document = {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "jax-lsp",
                        "version": __version__,
                        "informationUri": "https://github.com/jax-lsp/jax-lsp",
                        "rules": [
                            {
                                "id": rule.code,
                                "name": rule.name,
                                "shortDescription": {"text": rule.summary},
                                "fullDescription": {"text": " ".join(rule.why_bad.split())},
                                "helpUri": rule.url(),
                                "help": {"text": rule.docs(), "markdown": rule.docs()},
                                "defaultConfiguration": {
                                    "level": _SARIF_LEVEL[rule.severity],
                                    "enabled": rule.default_enabled,
                                },
                            }
                            for rule in rules
                        ],
                    }
                },
                "results": results,
            }
        ],
    }
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


FORMATTERS: dict[str, Callable[..., str]] = {
    "text": format_text,
    "json": format_json,
    "sarif": format_sarif,
}

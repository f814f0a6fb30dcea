"""Formatting findings for the terminal and for tools: text, JSON (ruff's shape), SARIF 2.1.0."""

from __future__ import annotations

import json
import os
import re
import urllib.parse
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple, TextIO

from jax_lsp import __version__
from jax_lsp.codeactions.apply import choices, fixable
from jax_lsp.diagnostics import RULES_BY_CODE
from jax_lsp.findings import SYNTAX_ERROR, Finding, Fix, Position, Severity, Span
from jax_lsp.ipynb import json_source_lines


class Entry(NamedTuple):
    path: str
    finding: Finding
    cell: int | None  # the notebook cell number (1-based), or None
    source_line: str = ""  # the line the finding starts on, for the `full` text output
    # The 0-based line where its noqa comment goes (`noqa_line`), in the finding's rows (a cell's
    # in a notebook); None: the line it starts on.
    noqa_line: int | None = None


def _entries(entries: Sequence[tuple]) -> list[Entry]:
    """Entries from (path, finding, cell), (path, finding, cell, source_line) or
    (path, finding, cell, source_line, noqa_line) tuples."""
    return [entry if isinstance(entry, Entry) else Entry(*entry) for entry in entries]


@dataclass(frozen=True)
class ReportOptions:
    statistics: bool = False
    fixed: int = 0  # findings fixed by --fix
    unchecked: int = 0  # files that could not be read or decoded
    unwritten: int = 0  # files checked whose fixes could not be written
    unsafe: bool = False  # unsafe fixes enabled: they count as fixable
    color: bool = False
    show_source: bool = False  # the `full` text output: the source line and a caret
    quiet: bool = False  # findings only: no summary
    fixing: bool = False  # --fix: the findings left with several fixes are listed


def use_color(stream: TextIO) -> bool:
    """Colour on a terminal, unless NO_COLOR is set; always when FORCE_COLOR is set
    (https://no-color.org, https://force-color.org)."""
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


def _location(position: Position) -> dict[str, int]:
    return {"row": position.line + 1, "column": position.column + 1}


def display_path(path: str) -> str:
    """`path` relative to the working folder when it lies inside it."""
    try:
        relative = os.path.relpath(path)
    except ValueError:
        return path
    return path if relative.startswith("..") else relative


def _name(code: str) -> str:
    rule = RULES_BY_CODE.get(code)
    return rule.name if rule else ""


def _url(code: str) -> str | None:
    rule = RULES_BY_CODE.get(code)
    return rule.url() if rule else None


def _plural(count: int, noun: str) -> str:
    if count == 1 or noun == "info":
        return f"{count} {noun}"
    return f"{count} {noun}es" if noun.endswith(("x", "s", "ch", "sh")) else f"{count} {noun}s"


class _Style:
    """ANSI styles, or none."""

    def __init__(self, color: bool) -> None:
        self.color = color

    def __call__(self, text: str, *codes: int) -> str:
        if not self.color or not codes:
            return text
        return f"\x1b[{';'.join(map(str, codes))}m{text}\x1b[0m"


_BOLD, _RED, _YELLOW, _CYAN = 1, 31, 33, 36
_SEVERITY_COLOR = {Severity.ERROR: _RED, Severity.WARNING: _YELLOW, Severity.INFO: _CYAN}


def _statistics(entries: Sequence[Entry], options: ReportOptions) -> str:
    counts = Counter(entry.finding.code for entry in entries)
    fixable_codes = Counter(e.finding.code for e in entries if fixable(e.finding, options.unsafe))
    lines = []
    for code, count in sorted(counts.items(), key=lambda item: (-item[1], _code_order(item[0]))):
        mark = "[*]" if fixable_codes[code] else "   "
        lines.append(f"{count:>5}\t{code:<8}{mark} {_name(code)}")
    return "\n".join(lines) + "\n" if lines else ""


def _code_order(code: str) -> tuple[str, int]:
    """JAX201 before JAX1101, as the rule table lists them."""
    prefix = code.rstrip("0123456789")
    number = code[len(prefix) :]
    return prefix, int(number) if number else -1


def _snippet(entry: Entry, style: _Style) -> list[str]:
    """The finding's first line with a caret under what it points at (ruff's `full` output)."""
    span = entry.finding.span
    line = entry.source_line.expandtabs(1)
    number = str(span.start.line + 1)
    gutter = " " * len(number)
    end = span.end.column if span.end.line == span.start.line else len(line)
    carets = "^" * max(end - span.start.column, 1)
    color = _SEVERITY_COLOR[entry.finding.severity]
    return [
        style(f"{gutter} |", _CYAN),
        f"{style(f'{number} |', _CYAN)} {line}",
        f"{style(f'{gutter} |', _CYAN)} {' ' * span.start.column}{style(carets, color, _BOLD)}",
    ]


_LINE_BREAK = re.compile(r"[ \t]*(?:\r\n|\r|\n)\s*")


def one_line(text: str) -> str:
    """`text` with each line break (and the indentation after it) made one space: a message
    quoting a multi-line expression (`if (x.sum()\n        > 0):`) stays on the one line of
    its finding, which tools read line by line."""
    return _LINE_BREAK.sub(" ", text)


def _notes(entry: Entry, style: _Style) -> list[str]:
    """The places that explain a finding (what traces the function, where a PRNG key was first
    consumed), one `= note:` line each, below the snippet."""
    notes = []
    for related in entry.finding.related:
        start = related.span.start
        where = f"{display_path(related.path or entry.path)}:{start.line + 1}:{start.column + 1}"
        notes.append(f"  {style('= note:', _CYAN, _BOLD)} {where}: {one_line(related.message)}")
    return notes


def summary_counts(entries: Sequence[Entry]) -> str:
    """'3 errors, 1 warning, 2 info': the findings by severity."""
    counts = Counter(entry.finding.severity for entry in entries)
    parts = [_plural(counts[severity], severity.value) for severity in Severity if counts[severity]]
    return ", ".join(parts)


def format_text(entries: Sequence[Entry], options: ReportOptions = ReportOptions()) -> str:
    entries = _entries(entries)
    if options.statistics:
        # The counts, then the totals, as ruff prints them.
        lines = [] if options.quiet else _summary(entries, options)
        return _statistics(entries, options) + "".join(f"{line}\n" for line in lines)
    style = _Style(options.color)
    lines = []
    for entry in entries:
        finding = entry.finding
        start = finding.span.start
        mark = f" {style('[*]', _CYAN)}" if fixable(finding, options.unsafe) else ""
        where = f"cell {entry.cell}:" if entry.cell is not None else ""
        severity = style(finding.severity.value, _SEVERITY_COLOR[finding.severity], _BOLD)
        lines.append(
            f"{style(display_path(entry.path), _BOLD)}:{where}{start.line + 1}:{start.column + 1}: "
            f"{severity}: {style(finding.code, _BOLD)}{mark} {one_line(finding.message)}"
        )
        if options.show_source:
            shown = _snippet(entry, style) if entry.source_line else []
            # Related places of a notebook finding are in the joined cells' lines: left out.
            shown += _notes(entry, style) if entry.cell is None else []
            lines += [*shown, ""] if shown else []
    if not options.quiet:
        lines += _summary(entries, options)
    return "\n".join(lines) + "\n" if lines else ""


def _summary(entries: Sequence[Entry], options: ReportOptions) -> list[str]:
    lines = []
    if entries:
        lines.append(f"Found {_plural(len(entries), 'finding')}: {summary_counts(entries)}.")
        count = sum(1 for e in entries if fixable(e.finding, options.unsafe))
        hidden = sum(1 for e in entries if fixable(e.finding, True)) - count
        if count:
            lines.append(f"[*] {count} fixable with the `--fix` option.")
        if hidden:
            lines.append(
                f"({_plural(hidden, 'hidden fix')} can be enabled with the "
                "`--unsafe-fixes` option.)"
            )
        lines += _choices(entries, options)
    if options.fixed:
        lines.append(f"Fixed {_plural(options.fixed, 'finding')}.")
    if options.unwritten:
        lines.append(
            f"Fixes could not be applied to {_plural(options.unwritten, 'file')} (see above)."
        )
    if options.unchecked:
        lines.append(f"{_plural(options.unchecked, 'file')} could not be checked (see above).")
    elif not entries and not options.fixed and not options.unwritten:
        lines.append("All checks passed!")
    return lines


def _choices(entries: Sequence[Entry], options: ReportOptions) -> list[str]:
    """The findings offering several fixes: `--fix` applies none of them (which one the author
    means cannot be read from the code); with `--fix`, each is listed with its choices."""
    open_choices = [(e, choices(e.finding, True)) for e in entries]
    open_choices = [(e, fixes) for e, fixes in open_choices if fixes]
    if not open_choices:
        return []
    count = _plural(len(open_choices), "finding")
    if not options.fixing:
        return [f"({count} with several fixes: choose one in an editor.)"]
    lines = [f"{count} with several fixes, none applied (choose one in an editor):"]
    for entry, fixes in open_choices:
        start = entry.finding.span.start
        where = f"cell {entry.cell}:" if entry.cell is not None else ""
        titles = " | ".join(fix.title for fix in fixes)  # one line each (`Fix`)
        lines.append(
            f"  {display_path(entry.path)}:{where}{start.line + 1}:{start.column + 1}: "
            f"{entry.finding.code}: {titles}"
        )
    return lines


def _fix_json(fix: Fix | None) -> dict | None:
    """ruff's shape; a notebook's edits also say which cell their rows count in (an added
    import lands in the first code cell, whatever the finding's)."""
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
                **({"cell": edit.cell} if edit.cell is not None else {}),
            }
            for edit in fix.edits
        ],
    }


def format_json(entries: Sequence[Entry], options: ReportOptions = ReportOptions()) -> str:
    entries = _entries(entries)
    if options.statistics:
        counts = Counter(entry.finding.code for entry in entries)
        rows = [
            {"code": code, "name": _name(code), "count": count}
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
            "noqa_row": (finding.span.start.line if noqa_line is None else noqa_line) + 1,
            "severity": finding.severity.value,
            # Beside ruff's shape: the other fixes the editor offers for this finding.
            "alternatives": [_fix_json(alternative) for alternative in finding.alternatives],
            "related": [
                {
                    "message": related.message,
                    "location": _location(related.span.start),
                    "end_location": _location(related.span.end),
                    # a place in another file of the project
                    **({"filename": str(Path(related.path).resolve())} if related.path else {}),
                }
                for related in finding.related
            ],
            "url": _url(finding.code),
        }
        for path, finding, cell, _, noqa_line in entries
    ]
    return json.dumps(rows, indent=2, ensure_ascii=False) + "\n"


def _sarif_uri(path: str) -> str:
    """A URI reference, as SARIF requires: relative to the working folder when inside it,
    else a `file://` URI (a bare absolute path is not one on Windows, and spaces need
    escaping everywhere)."""
    shown = display_path(path)
    if os.path.isabs(shown):
        return Path(shown).as_uri()
    return urllib.parse.quote(Path(shown).as_posix())


_SARIF_LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}


def _sarif_physical(path: str, span: Span) -> dict:
    start, end = span.start, span.end
    return {
        "artifactLocation": {"uri": _sarif_uri(path)},
        "region": {
            "startLine": start.line + 1,
            "startColumn": start.column + 1,
            "endLine": end.line + 1,
            "endColumn": end.column + 1,
        },
    }


def _json_column(json_line: str, text: str, column: int) -> int | None:
    """The 0-based column in a JSON line holding the string `text` of the character at
    `column` of `text`; None when an escape before it (`\\"`, `\\t`, `\\uXXXX`) shifts it."""
    first = json_line.find('"') + 1
    if first == 0 or json_line[first : first + column] != text[:column]:
        return None
    return first + column


def _notebook_physical(path: str, span: Span, cell: int, layout) -> dict:
    """A SARIF location in the `.ipynb` file itself: the JSON line holding the cell's source
    line, which is what GitHub code scanning shows; the columns too where no escape shifts
    them. Without a readable layout, the file alone (no region): never a cell-relative line
    presented as a line of the JSON file."""
    location: dict = {"artifactLocation": {"uri": _sarif_uri(path)}}
    if layout is None or cell not in layout[1]:
        return location
    lines, cells = layout
    rows = cells[cell]
    region: dict = {}
    for side, position in (("start", span.start), ("end", span.end)):
        if position.line >= len(rows):
            break
        row = rows[position.line]
        region[f"{side}Line"] = row + 1
        text = json.loads(lines[row].strip().removesuffix(","))
        column = _json_column(lines[row], text, position.column)
        if column is not None:
            region[f"{side}Column"] = column + 1
    if "startLine" in region:
        if "endLine" not in region or ("startColumn" in region) != ("endColumn" in region):
            region = {"startLine": region["startLine"]}
        location["region"] = region
    return location


def _notebook_layout(path: str):
    """(the file's lines, the JSON line of each code cell's source lines by cell number) or
    None."""
    try:
        raw = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    cells = json_source_lines(raw)
    return None if cells is None else (raw.split("\n"), cells)


def _sarif_fix(path: str, fix: Fix) -> dict:
    """A SARIF fix, with whether `--fix` applies it alone or only with `--unsafe-fixes`."""
    return {
        "description": {"text": fix.title},
        "artifactChanges": [
            {
                "artifactLocation": {"uri": _sarif_uri(path)},
                "replacements": [
                    {
                        "deletedRegion": _sarif_physical(path, edit.span)["region"],
                        "insertedContent": {"text": edit.content},
                    }
                    for edit in fix.edits
                ],
            }
        ],
        "properties": {"applicability": fix.applicability.value},
    }


def format_sarif(entries: Sequence[Entry], options: ReportOptions = ReportOptions()) -> str:
    entries = _entries(entries)
    rules = sorted(RULES_BY_CODE.values(), key=lambda rule: int(rule.code[3:]))
    rule_index = {rule.code: index for index, rule in enumerate(rules)}
    rule_index[SYNTAX_ERROR] = len(rules)  # its descriptor follows the rules' (`_syntax_rule`)
    results = []
    layouts: dict[str, object] = {}
    for path, finding, cell, *_ in entries:
        if cell is not None:
            # Positions are relative to the cell; the artifact is the JSON file. Fixes and
            # related locations (edits of the cell's text) are left out.
            if path not in layouts:
                layouts[path] = _notebook_layout(path)
            results.append(
                {
                    "properties": {"cell": cell},
                    "ruleId": finding.code,
                    "ruleIndex": rule_index.get(finding.code, -1),
                    "level": _SARIF_LEVEL[finding.severity],
                    "message": {"text": f"{finding.message} (cell {cell})"},
                    "locations": [
                        {
                            "physicalLocation": _notebook_physical(
                                path, finding.span, cell, layouts[path]
                            )
                        }
                    ],
                }
            )
            continue
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
                                "physicalLocation": _sarif_physical(
                                    related.path or path, related.span
                                ),
                            }
                            for index, related in enumerate(finding.related)
                        ]
                    }
                    if finding.related
                    else {}
                ),
                **({"fixes": [_sarif_fix(path, finding.fix)]} if finding.fix else {}),
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
                        ]
                        + _syntax_rule(entries),
                    }
                },
                "results": results,
            }
        ],
    }
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def _syntax_rule(entries: Sequence[Entry]) -> list[dict]:
    """The descriptor of syntax errors, when a file has one (their results name it)."""
    if not any(entry.finding.code == SYNTAX_ERROR for entry in entries):
        return []
    text = "The file does not parse: only the lines that do are checked."
    return [
        {
            "id": SYNTAX_ERROR,
            "name": SYNTAX_ERROR,
            "shortDescription": {"text": text},
            "defaultConfiguration": {"level": "error", "enabled": True},
        }
    ]


FORMATTERS: dict[str, Callable[[Sequence[Entry], ReportOptions], str]] = {
    "concise": format_text,
    "full": format_text,  # with ReportOptions.show_source
    "text": format_text,  # the older name of `concise`
    "json": format_json,
    "sarif": format_sarif,
}

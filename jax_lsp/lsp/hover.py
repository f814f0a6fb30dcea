"""Hover on a flagged range: what happens at run time in one sentence, the lines that change
from wrong to right in one short example, the link to the rule's page. The editor shows the
diagnostic's message beside it already: the hover does not repeat it, nor the related places
when the editor shows those too."""

from __future__ import annotations

import json
import os
import re
import textwrap
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from lsprotocol import types

from jax_lsp.diagnostics import RULES_BY_CODE
from jax_lsp.diagnostics.base import ERROR_MARKER, Rule
from jax_lsp.findings import Finding, Position, Related
from jax_lsp.lsp.positions import from_lsp_position, to_lsp_range

if TYPE_CHECKING:
    from jax_lsp.lsp.documents import OpenDocument
    from jax_lsp.lsp.language_server import JaxLanguageServer

_SENTENCE_END = re.compile(r"(?<=\.)\s+(?=[A-Z`(])")
_MAX_EXAMPLE_LINES = 4  # per side: longer differences are left to the rule's page


def findings_at(findings: list[Finding], position: Position) -> list[Finding]:
    return [f for f in findings if f.span.start <= position <= f.span.end]


def _first_sentence(text: str) -> str:
    return _SENTENCE_END.split(" ".join(textwrap.dedent(text).split()), maxsplit=1)[0]


def _display(source: str) -> list[str]:
    code = textwrap.dedent(source).strip("\n")
    return [line.replace(f"  {ERROR_MARKER}", "").rstrip() for line in code.split("\n")]


def example_pair(rule: Rule) -> tuple[str, str] | None:
    """The lines that differ between the rule's first wrong example and its right version (the
    example's fix, else the first right example), each side dedented; None if too long."""
    import difflib  # on a hover, not at start-up

    if not rule.invalid:
        return None
    example = rule.invalid[0]
    right_source = example.fixed or (rule.valid[0].source if rule.valid else None)
    if right_source is None:
        return None
    wrong_lines, right_lines = _display(example.source), _display(right_source)
    wrong: list[str] = []
    right: list[str] = []
    matcher = difflib.SequenceMatcher(a=wrong_lines, b=right_lines, autojunk=False)
    for tag, a_start, a_end, b_start, b_end in matcher.get_opcodes():
        if tag == "insert" and a_start > 0:
            # A line added (the x64 switch after the imports): shown after the line it follows.
            wrong += wrong_lines[a_start - 1 : a_start]
            right += right_lines[b_start - 1 : b_end]
        elif tag != "equal":
            wrong += wrong_lines[a_start:a_end]
            right += right_lines[b_start:b_end]
    wrong = [line for line in wrong if line.strip()]
    right = [line for line in right if line.strip()]
    if not wrong or not right or max(len(wrong), len(right)) > _MAX_EXAMPLE_LINES:
        return None
    pair = textwrap.dedent("\n".join(wrong)), textwrap.dedent("\n".join(right))
    return pair if pair[0] != pair[1] else None  # a line that only moves says nothing here


def _line_place(line: int) -> str:
    return f"line {line + 1}"


def cell_places(lines: Sequence[str], notebook_path: str) -> Callable[[int], str] | None:
    """For a virtual document (`lines`: the notebook's code cells joined by jupyterlab-lsp),
    how a 0-based line of it is named in the notebook: "cell 3, line 1", cells numbered as
    Jupyter numbers them (markdown cells counted). Each code cell is found by its first Python
    line, in order, in the notebook saved at `notebook_path`; None when it cannot be read or a
    cell is not found (edited since it was saved): plain line numbers then."""
    try:
        with open(notebook_path, encoding="utf-8") as file:
            cells = json.load(file)["cells"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    starts: list[tuple[int, int]] = []  # (first line in `lines`, cell number)
    searched_from = 0
    for number, cell in enumerate(cells, start=1):
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        source = cell.get("source", "")
        source_lines = ("".join(source) if isinstance(source, list) else str(source)).split("\n")
        # IPython lines (`%time`, `!ls`) are rewritten in the joined text.
        python = [
            i for i, line in enumerate(source_lines) if line.strip()[:1] not in ("", "%", "!")
        ]
        if not python:
            continue
        first = source_lines[python[0]]
        try:
            found = lines.index(first, searched_from)
        except ValueError:
            return None
        starts.append((found - python[0], number))
        searched_from = found + 1
    if not starts:
        return None

    def place(line: int) -> str:
        before = [(start, number) for start, number in starts if start <= line]
        if not before:
            return _line_place(line)
        start, number = before[-1]
        return f"cell {number}, line {line - start + 1}"

    return place


def _related_lines(finding: Finding, place: Callable[[int], str] = _line_place) -> list[str]:
    """The places that explain the finding, one short line each (1-based line numbers, or
    cells and lines of a notebook)."""
    return [
        f"- {_elsewhere(item) if item.path is not None else place(item.span.start.line)}: "
        f"{item.message}"
        for item in finding.related
    ]


def _elsewhere(item: Related) -> str:
    """A place in another module of the project: its file and line."""
    return f"{os.path.basename(item.path or '')}, line {item.span.start.line + 1}"


def hover_markdown(
    finding: Finding, related: bool = True, place: Callable[[int], str] = _line_place
) -> str:
    """The hover of `finding`; with `related`, the places that explain it too (for a client
    that does not show the diagnostic's relatedInformation itself), named by `place`."""
    rule = RULES_BY_CODE.get(finding.code)
    if rule is None:
        return f"**{finding.code}**"
    parts = [f"**{rule.code}** {rule.name} · {_first_sentence(rule.why_bad)}"]
    pair = example_pair(rule)
    if pair is not None:
        wrong, right = pair
        parts += ["", "```python", "# wrong", wrong, "# right", right, "```"]
    places = _related_lines(finding, place) if related else []
    if places:
        parts += ["", *places]
    parts += ["", f"[{rule.code} documentation]({rule.url()})"]
    return "\n".join(parts)


def _joined_cells(document: OpenDocument) -> bool:
    """Whether the document is jupyterlab-lsp's joined code cells of the notebook at its path:
    sent as the `.ipynb` itself (a server that reads documents from the messages) or as its copy
    under `.virtual_documents/`."""
    return document.notebook is None and (document.path or "").endswith(".ipynb")


async def hover(ls: JaxLanguageServer, params: types.HoverParams) -> types.Hover | None:
    document = ls.documents.get(params.text_document.uri)
    if document is None:
        return None
    result = await ls.analyzer.current_result(document)
    position = from_lsp_position(document.lines, params.position, ls.client.encoding)
    found = findings_at(result.findings, position)
    if not found:
        return None
    related = not ls.client.shows_related()  # else the editor lists them under the message
    place = _line_place
    if related and any(f.related for f in found) and _joined_cells(document):
        place = cell_places(document.lines, document.path) or _line_place
    return types.Hover(
        contents=types.MarkupContent(
            kind=types.MarkupKind.Markdown,
            value="\n\n---\n\n".join(hover_markdown(f, related, place) for f in found),
        ),
        range=to_lsp_range(document.lines, found[0].span, ls.client.encoding),
    )

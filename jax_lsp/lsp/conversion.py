"""Protocol conversion: findings as LSP diagnostics, their fixes as the diagnostics' `data` and
back as text edits, and edits of open documents as one workspace edit. Each diagnostic carries
its fixes as ready-made edits in `data`, so a code action request is answered from the
diagnostic alone, without re-analysis."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from lsprotocol import types

from jax_lsp.diagnostics import RULES_BY_CODE
from jax_lsp.engine import Analysis, syntax_error
from jax_lsp.files import line_ending, newlines_as
from jax_lsp.findings import Codemod, DeferredFix, Finding, Fix, Position, Severity, Span
from jax_lsp.lsp.documents import OpenDocument
from jax_lsp.lsp.edits import replacement_edit
from jax_lsp.lsp.notebook_cells import CellFinding, CellFix
from jax_lsp.lsp.positions import to_lsp_range

SOURCE = "jax-lsp"

_SEVERITIES = {
    Severity.ERROR: types.DiagnosticSeverity.Error,
    Severity.WARNING: types.DiagnosticSeverity.Warning,
    Severity.INFO: types.DiagnosticSeverity.Information,
}


def fix_data(fix: Fix, lines: Sequence[str], encoding: str) -> dict[str, Any]:
    return {
        "title": fix.title,
        "safe": fix.is_safe,
        "edits": [
            {
                "range": _range_data(to_lsp_range(lines, edit.span, encoding)),
                "newText": edit.content,
            }
            for edit in fix.edits
        ],
    }


def _range_data(range_: types.Range) -> dict[str, Any]:
    return {
        "start": {"line": range_.start.line, "character": range_.start.character},
        "end": {"line": range_.end.line, "character": range_.end.character},
    }


def to_diagnostic(
    finding: Finding,
    lines: Sequence[str],
    encoding: str,
    version: int | None,
    uri: str | None = None,
    *,
    fixes: list[dict[str, Any]] | None = None,
    related_elsewhere: Sequence[types.DiagnosticRelatedInformation] = (),
) -> types.Diagnostic:
    """`uri` is the document's: with it, the finding's related places become the diagnostic's
    relatedInformation (without it there is nothing for them to point into). A notebook cell's
    diagnostic passes its `fixes` as data (some edit other cells) and the related places in
    other cells."""
    if fixes is None:
        own = [fix for fix in (finding.fix, *finding.alternatives) if fix is not None]
        fixes = [fix_data(fix, lines, encoding) for fix in own]
    rule = RULES_BY_CODE.get(finding.code)
    data: dict[str, Any] = {"version": version, "fixes": fixes}
    if finding.deferred:  # codemods built only when asked: named, with their anchor
        data["deferred"] = [
            {"codemod": d.codemod.value, "line": d.anchor.line, "column": d.anchor.column}
            | ({"unsafe": True} if d.unsafe else {})
            for d in finding.deferred
        ]
    return types.Diagnostic(
        range=to_lsp_range(lines, finding.span, encoding),
        message=finding.message,
        severity=_SEVERITIES[finding.severity],
        code=finding.code,
        code_description=types.CodeDescription(href=rule.url()) if rule else None,
        source=SOURCE,
        related_information=_related_information(finding, lines, encoding, uri)
        + list(related_elsewhere)
        or None,
        data=data,
    )


def analysis_diagnostics(
    analysis: Analysis, encoding: str, version: int | None, uri: str
) -> list[types.Diagnostic]:
    """The diagnostics of an analysed document: its findings', then its first syntax error's
    (`engine.syntax_error`, as `check` reports it: the lines that parse are still checked)."""
    lines = analysis.document.lines if analysis.document is not None else []
    syntax = syntax_error(analysis)
    found = analysis.findings if syntax is None else [*analysis.findings, syntax]
    return [to_diagnostic(finding, lines, encoding, version, uri) for finding in found]


def _related_information(
    finding: Finding, lines: Sequence[str], encoding: str, uri: str | None
) -> list[types.DiagnosticRelatedInformation]:
    if uri is None:
        return []
    return [
        types.DiagnosticRelatedInformation(
            location=types.Location(uri=uri, range=to_lsp_range(lines, related.span, encoding)),
            message=related.message,
        )
        for related in finding.related
        if related.path is None and related.span.start.line < len(lines)
    ] + [
        types.DiagnosticRelatedInformation(
            location=location_elsewhere(related.path, related.span), message=related.message
        )
        for related in finding.related
        if related.path is not None
    ]


def location_elsewhere(path: str, span: Span) -> types.Location:
    """A place in another file of the project, which is not open here: its columns count
    characters, which are UTF-16 code units but for characters beyond the BMP there."""
    return types.Location(uri=Path(path).as_uri(), range=_plain_range(span))


def _plain_range(span: Span) -> types.Range:
    return types.Range(
        types.Position(span.start.line, span.start.column),
        types.Position(span.end.line, span.end.column),
    )


def diagnostic_json(diagnostic: types.Diagnostic) -> dict[str, Any]:
    """The diagnostic as JSON, exactly as lsprotocol's converter writes it (fields left unset
    omitted), for the diagnostics this module makes. Several times faster: a file with a
    thousand findings spent a quarter of a second per keystroke in the converter."""
    found: dict[str, Any] = {
        "range": _range_data(diagnostic.range),
        "message": diagnostic.message,
    }
    if diagnostic.severity is not None:
        found["severity"] = diagnostic.severity.value
    if diagnostic.code is not None:
        found["code"] = diagnostic.code
    if diagnostic.code_description is not None:
        found["codeDescription"] = {"href": diagnostic.code_description.href}
    if diagnostic.source is not None:
        found["source"] = diagnostic.source
    if diagnostic.tags is not None:
        found["tags"] = [tag.value for tag in diagnostic.tags]
    if diagnostic.related_information is not None:
        found["relatedInformation"] = [
            {
                "location": {"uri": info.location.uri, "range": _range_data(info.location.range)},
                "message": info.message,
            }
            for info in diagnostic.related_information
        ]
    if diagnostic.data is not None:
        found["data"] = diagnostic.data
    return found


def cell_diagnostic(
    found: CellFinding, cell: OpenDocument, cells: Mapping[str, OpenDocument], encoding: str
) -> types.Diagnostic:
    """A notebook cell's finding as a diagnostic of the cell: a fix that edits other cells too
    carries their edits (and versions) under "cells"; a related place in another cell names
    the cell ("cell 1: ..."), as the Problems panel names only the notebook."""
    fixes = [
        fix_data(fix, cell.lines, encoding)
        if isinstance(fix, Fix)
        else cell_fix_data(fix, cell, cells, encoding)
        for fix in found.fixes
    ]
    elsewhere = [
        types.DiagnosticRelatedInformation(
            location=types.Location(
                uri=place.uri,
                range=to_lsp_range(cells[place.uri].lines, place.related.span, encoding),
            ),
            message=f"cell {place.number}: {place.related.message}",
        )
        for place in found.elsewhere
    ]
    return to_diagnostic(
        found.finding,
        cell.lines,
        encoding,
        cell.version,
        cell.uri,
        fixes=fixes,
        related_elsewhere=elsewhere,
    )


def cell_fix_data(
    fix: CellFix, cell: OpenDocument, cells: Mapping[str, OpenDocument], encoding: str
) -> dict[str, Any]:
    """A notebook fix as data: the edits of `cell` under "edits", each other cell's (with the
    version they are for) under "cells"."""
    own: list[dict[str, Any]] = []
    others: list[dict[str, Any]] = []
    for uri, text in fix.texts:
        edit = replacement_edit(cells[uri], text, encoding)
        data = {"range": _range_data(edit.range), "newText": edit.new_text}
        if uri == cell.uri:
            own.append(data)
        else:
            others.append({"uri": uri, "version": cells[uri].version, "edits": [data]})
    return {"title": fix.title, "safe": fix.is_safe, "edits": own, "cells": others}


def fixes_of(diagnostic: types.Diagnostic) -> list[dict[str, Any]]:
    data = diagnostic.data
    return list(data.get("fixes", [])) if isinstance(data, dict) else []


def deferred_of(diagnostic: types.Diagnostic) -> list[DeferredFix]:
    data = diagnostic.data
    entries = data.get("deferred", []) if isinstance(data, dict) else []
    known = {codemod.value for codemod in Codemod}  # data from an older server may name others
    return [
        DeferredFix(Codemod(e["codemod"]), Position(e["line"], e["column"]), bool(e.get("unsafe")))
        for e in entries
        if e.get("codemod") in known
    ]


def version_of(diagnostic: types.Diagnostic) -> int | None:
    data = diagnostic.data
    return data.get("version") if isinstance(data, dict) else None


def text_edits(fix: dict[str, Any]) -> list[types.TextEdit]:
    """The edits of the fix's own document (a notebook fix's other cells: `cell_edits`)."""
    return [
        types.TextEdit(
            range=types.Range(
                types.Position(**edit["range"]["start"]), types.Position(**edit["range"]["end"])
            ),
            new_text=edit["newText"],
        )
        for edit in fix.get("edits", [])
    ]


def cell_edits(fix: dict[str, Any]) -> list[tuple[str, int | None, list[types.TextEdit]]]:
    """(uri, version the edits are for, edits) of each other cell a notebook fix edits."""
    return [(cell["uri"], cell.get("version"), text_edits(cell)) for cell in fix.get("cells", [])]


def workspace_edit(
    edits: Sequence[tuple[str, int | None, list[types.TextEdit]]], versioned: bool
) -> types.WorkspaceEdit:
    """(uri, version, text edits) of each document as one workspace edit: versioned document
    changes when the client takes them (`versioned`), else plain changes by uri."""
    if versioned:
        return types.WorkspaceEdit(
            document_changes=[
                types.TextDocumentEdit(
                    text_document=types.OptionalVersionedTextDocumentIdentifier(
                        uri=uri, version=version
                    ),
                    edits=text_edits,
                )
                for uri, version, text_edits in edits
            ]
        )
    return types.WorkspaceEdit(changes={uri: text_edits for uri, _, text_edits in edits})


def in_document_newlines(text_edits: list[types.TextEdit], text: str) -> list[types.TextEdit]:
    """The edits with the line breaks of the document they edit: fixes write "\n", and a
    CRLF (or CR) document keeps its one line ending, as `check --fix` keeps the file's. A
    document mixing several is left to the edits' own."""
    ending = line_ending(text)
    if ending is None or ending == "\n":
        return text_edits
    return [
        types.TextEdit(range=edit.range, new_text=newlines_as(edit.new_text, ending))
        if "\n" in edit.new_text or "\r" in edit.new_text
        else edit
        for edit in text_edits
    ]

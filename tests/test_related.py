"""Related places of a finding (`Finding.related`): moved into document coordinates with the
finding, and delivered as LSP relatedInformation, SARIF relatedLocations and JSON."""

from __future__ import annotations

import json

from jax_lsp.engine import shift_finding
from jax_lsp.findings import Finding, Related, Severity, Span
from jax_lsp.lsp.conversion import to_diagnostic
from jax_lsp.reporting import format_json, format_sarif


def _finding() -> Finding:
    return Finding(
        code="JAX701",
        message="`if` on a traced value",
        span=Span.of(1, 7, 1, 12),
        severity=Severity.ERROR,
        related=(
            Related(Span.of(0, 0, 0, 8), "in the same statement"),
            Related(Span.of(9, 4, 9, 14), "elsewhere in the module", document_anchored=True),
        ),
    )


def test_statement_relative_places_move_with_the_finding_and_anchored_ones_stay() -> None:
    moved = shift_finding(_finding(), 5)
    assert moved.span == Span.of(6, 7, 6, 12)
    assert [r.span for r in moved.related] == [Span.of(5, 0, 5, 8), Span.of(9, 4, 9, 14)]
    # Now all in document coordinates: a later move (into a notebook cell) moves them all.
    again = shift_finding(moved, -5)
    assert [r.span for r in again.related] == [Span.of(0, 0, 0, 8), Span.of(4, 4, 4, 14)]


def test_anchored_places_are_normalised_for_a_statement_on_the_first_line() -> None:
    moved = shift_finding(_finding(), 0)
    assert not any(r.document_anchored for r in moved.related)
    assert shift_finding(moved, -1).related[1].span == Span.of(8, 4, 8, 14)


def test_lsp_related_information_points_into_the_document() -> None:
    lines = [f"line {n}\n" for n in range(12)]
    uri = "file:///tmp/example.py"
    diagnostic = to_diagnostic(shift_finding(_finding(), 0), lines, "utf-16", 3, uri)
    related = diagnostic.related_information
    assert related is not None
    assert [(r.location.uri, r.location.range.start.line, r.message) for r in related] == [
        (uri, 0, "in the same statement"),
        (uri, 9, "elsewhere in the module"),
    ]
    assert to_diagnostic(_finding(), lines, "utf-16", 3).related_information is None


def test_sarif_and_json_carry_the_related_places() -> None:
    entries = [("example.py", shift_finding(_finding(), 0), None)]
    result = json.loads(format_sarif(entries))["runs"][0]["results"][0]
    assert [
        (r["message"]["text"], r["physicalLocation"]["region"]["startLine"])
        for r in result["relatedLocations"]
    ] == [("in the same statement", 1), ("elsewhere in the module", 10)]
    row = json.loads(format_json(entries))[0]
    assert [(r["message"], r["location"]["row"]) for r in row["related"]] == [
        ("in the same statement", 1),
        ("elsewhere in the module", 10),
    ]


def test_a_key_consumed_again_by_the_next_iteration_points_only_elsewhere() -> None:
    """The loop-carried reuse is the draw's own first use: no related place on itself; a
    second draw of the same iteration points at the first (and is the one reported: JAX's
    checker stops there, before the next iteration)."""
    from jax_lsp.config import Settings
    from jax_lsp.engine import check_source
    from jax_lsp.workspace import Workspace

    text = (
        "import jax\n"
        "\n"
        "def init(key, sizes):\n"
        "    out = []\n"
        "    for n in sizes:\n"
        "        w = jax.random.normal(key, (n,))\n"
        "        out.append(w)\n"
        "    return out\n"
    )

    def places(text: str) -> dict:
        findings = check_source(text, "init.py", Settings(), Workspace(".")).findings
        return {
            (f.span.start.line, f.span.start.column): [
                (r.span.start.line, r.span.start.column) for r in f.related
            ]
            for f in findings
            if f.code == "JAX602"
        }

    assert places(text) == {(5, 12): []}
    second = text.replace("        out.append(w)\n", "        b = jax.random.normal(key, (n,))\n")
    assert places(second) == {(6, 12): [(5, 12)]}

"""Diagnostics are published as JSON built by hand (`conversion.diagnostic_json`): exactly what
lsprotocol's converter would write for them, on the findings of the rules' examples (related
places, several fixes, deferred codemods, fixes with import edits, notebooks' related cells)."""

from __future__ import annotations

import json

from lsprotocol import types
from pygls.protocol import default_converter

from jax_lsp.analysis.document import Document
from jax_lsp.diagnostics import ALL_RULES
from jax_lsp.diagnostics.base import iter_examples
from jax_lsp.engine import analyze
from jax_lsp.lsp.conversion import diagnostic_json, to_diagnostic

URI = "file:///project/example.py"


def _diagnostics() -> list[types.Diagnostic]:
    found = []
    for _rule, _kind, example in iter_examples(ALL_RULES):
        document = Document(example.code, "example.py")
        for finding in analyze(document).findings:
            for uri in (URI, None):  # with and without related places
                found.append(to_diagnostic(finding, document.lines, "utf-16", 7, uri))
    return found


def test_hand_built_json_is_what_the_converter_writes():
    converter = default_converter()
    diagnostics = _diagnostics()
    kinds = {
        "related": any(d.related_information for d in diagnostics),
        "several fixes": any(len(d.data["fixes"]) > 1 for d in diagnostics),
        "deferred": any("deferred" in d.data for d in diagnostics),
    }
    assert all(kinds.values()), kinds
    assert len(diagnostics) > 200
    for diagnostic in diagnostics:
        expected = converter.unstructure(diagnostic, types.Diagnostic)
        assert diagnostic_json(diagnostic) == expected
        # And the same text once written (JSON types, not only equal Python values).
        assert json.dumps(diagnostic_json(diagnostic), sort_keys=True) == json.dumps(
            expected, sort_keys=True
        )


def test_tags_and_missing_fields_are_written_as_the_converter_writes_them():
    converter = default_converter()
    bare = types.Diagnostic(
        range=types.Range(types.Position(0, 0), types.Position(0, 1)),
        message="m",
        tags=[types.DiagnosticTag.Unnecessary],
    )
    assert diagnostic_json(bare) == converter.unstructure(bare, types.Diagnostic)

"""The bundled examples/ (the README's main job) demonstrate every rule."""

from __future__ import annotations

from pathlib import Path

from jax_lsp.analysis.document import Document
from jax_lsp.diagnostics import ALL_RULES
from jax_lsp.engine import analyze
from jax_lsp.files import read_source

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def test_every_rule_is_demonstrated_in_examples():
    found: set[str] = set()
    for path in sorted(EXAMPLES.glob("*.py")):
        analysis = analyze(Document(read_source(path), str(path)))
        assert not analysis.problems, f"{path.name} does not parse"
        found |= {finding.code for finding in analysis.findings}
    default_rules = {rule.code for rule in ALL_RULES if rule.default_enabled}
    assert default_rules <= found, f"not demonstrated: {sorted(default_rules - found)}"

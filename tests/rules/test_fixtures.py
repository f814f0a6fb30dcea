"""Realistic fixture files per rule family: findings must equal the `# expect:` comments.

Each line that a rule must flag ends with `# expect: JAX201` (several codes comma-separated);
every other line, NumPy look-alikes included, must stay clean.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from jax_lsp.analysis.document import Document
from jax_lsp.engine import analyze

FIXTURES = sorted((Path(__file__).parent.parent / "fixtures").glob("*.py"))
_EXPECT = re.compile(r"#\s*expect:\s*(?P<codes>JAX\d+(?:\s*,\s*JAX\d+)*)")


def expected_findings(text: str) -> set[tuple[int, str]]:
    expected = set()
    for line_number, line in enumerate(text.splitlines()):
        match = _EXPECT.search(line)
        if match:
            for code in match.group("codes").split(","):
                expected.add((line_number, code.strip()))
    return expected


@pytest.mark.parametrize("path", FIXTURES, ids=[p.stem for p in FIXTURES])
def test_fixture_findings_match_expectations(path: Path):
    text = path.read_text(encoding="utf-8")
    analysis = analyze(Document(text, str(path)))
    found = {(f.span.start.line, f.code) for f in analysis.findings}
    expected = expected_findings(text)
    missing = sorted(expected - found)
    unexpected = sorted(found - expected)
    assert not missing and not unexpected, (
        f"missing (line0, code): {missing}; unexpected: {unexpected}"
    )
    assert not analysis.problems, "fixtures must be valid Python"

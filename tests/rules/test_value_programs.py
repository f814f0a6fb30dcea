"""Whole programs that reach a finding only through the value model (pytrees returned by
library calls, keys carried through loops, objects built at call sites), each with a clean
counterpart. The findings must equal the `# expect:` comments, and each program must do
under real JAX what its first line says: `# runtime: <exception class>` or `# runtime: ok`."""

from __future__ import annotations

from pathlib import Path

import pytest

from jax_lsp.analysis.document import Document
from jax_lsp.engine import analyze
from tests.rules.test_fixtures import expected_findings
from tests.runtime import exception_class, run_snippet

PROGRAMS = sorted((Path(__file__).parent / "value_programs").glob("*.py"))


def _runtime(text: str) -> str:
    first = text.split("\n", 1)[0]
    assert first.startswith("# runtime: "), "each program says what JAX does with it"
    return first.removeprefix("# runtime: ").strip()


@pytest.mark.parametrize("path", PROGRAMS, ids=[p.stem for p in PROGRAMS])
def test_findings_match_expectations(path: Path):
    text = path.read_text(encoding="utf-8")
    found = {(f.span.start.line, f.code) for f in analyze(Document(text, str(path))).findings}
    assert found == expected_findings(text)
    if _runtime(text) == "ok":
        assert not found, "a clean counterpart stays clean"


@pytest.mark.parametrize("path", PROGRAMS, ids=[p.stem for p in PROGRAMS])
def test_programs_do_what_they_say_under_jax(path: Path):
    pytest.importorskip("jax")
    pytest.importorskip("optax")
    text = path.read_text(encoding="utf-8")
    expected = _runtime(text)
    check = expected.removeprefix("check:").strip() if expected.startswith("check:") else None
    outcome = run_snippet(text, check)
    if expected == "ok" or check is not None:
        assert outcome.error is None, repr(outcome.error)
    else:
        assert isinstance(outcome.error, exception_class(expected)), repr(outcome.error)

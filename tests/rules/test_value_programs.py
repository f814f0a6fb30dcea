"""Whole programs that reach a finding only through the value model (pytrees returned by
library calls, objects built at call sites, bound methods jitted by their class), each with
its clean counterpart.

A program's findings must equal its `# expect:` comments, and it must do under real JAX what
its first line says: `# runtime: <exception class>`, or `# runtime: check: <statement>` (it
runs, silently wrong, as the statement shows). Its clean counterpart is the same program with
each line marked `# clean: <code>` replaced by that code (a line marked `# clean:` alone is
left out): it must have no finding and run as `# clean runtime: check: <statement>` (or
without error when that line is absent)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from jax_lsp.analysis.document import Document
from jax_lsp.engine import analyze
from tests.rules.test_fixtures import expected_findings
from tests.runtime import exception_class, run_snippet

PROGRAMS = sorted((Path(__file__).parent / "value_programs").glob("*.py"))
_CLEAN = re.compile(r"^(?P<indent>\s*)(?P<code>.*?)\s*#\s*clean:(?P<replacement>.*)$")


def _first_line(text: str, prefix: str) -> str | None:
    for line in text.split("\n")[:2]:
        if line.startswith(prefix):
            return line.removeprefix(prefix).strip()
    return None


def _clean_counterpart(text: str) -> str:
    lines = []
    for line in text.split("\n"):
        marked = _CLEAN.match(line)
        if marked is None:
            lines.append(re.sub(r"\s*# expect: .*$", "", line))
        elif marked["replacement"].strip():
            lines.append(marked["indent"] + marked["replacement"].strip())
    return "\n".join(lines)


def _findings(text: str, path: Path) -> set[tuple[int, str]]:
    return {(f.span.start.line, f.code) for f in analyze(Document(text, str(path))).findings}


def _assert_runs_as(text: str, expected: str | None) -> None:
    pytest.importorskip("jax")
    pytest.importorskip("optax")
    check = expected.removeprefix("check:").strip() if expected else None
    outcome = run_snippet(text, check)
    if expected is None or expected.startswith("check:"):
        assert outcome.error is None, repr(outcome.error)
    else:
        assert isinstance(outcome.error, exception_class(expected)), repr(outcome.error)


@pytest.mark.parametrize("path", PROGRAMS, ids=[p.stem for p in PROGRAMS])
def test_program_is_flagged_where_marked_and_fails_as_it_says(path: Path):
    text = path.read_text(encoding="utf-8")
    expected = _first_line(text, "# runtime: ")
    assert expected, "each program says what JAX does with it"
    assert expected_findings(text), "each program marks what must be flagged"
    assert _findings(text, path) == expected_findings(text)
    _assert_runs_as(text, expected)


@pytest.mark.parametrize("path", PROGRAMS, ids=[p.stem for p in PROGRAMS])
def test_clean_counterpart_is_clean_and_runs(path: Path):
    text = path.read_text(encoding="utf-8")
    clean = _clean_counterpart(text)
    assert clean != re.sub(r"\s*# expect: .*", "", text), "each program has a clean counterpart"
    assert _findings(clean, path) == set()
    _assert_runs_as(clean, _first_line(text, "# clean runtime: "))

"""The precision script's triage parsing and comparison, on a tiny fake corpus (no network)."""

from __future__ import annotations

import pytest

from bench.precision import CorpusFinding, compare, format_report, read_triage

TRIAGE = """\
package,path,line,code,verdict,note
# comments and blank lines are allowed

flax,flax/a.py,10,JAX201,true,writes into a traced array
flax,flax/a.py,20,jax201,FALSE,"a NumPy array, not JAX"
optax,optax/b.py,5,JAX203,false,never found any more
"""

FINDINGS = [
    CorpusFinding("flax", "flax/a.py", 10, "JAX201", "m"),
    CorpusFinding("flax", "flax/a.py", 20, "JAX201", "m"),
    CorpusFinding("chex", "chex/c.py", 7, "JAX202", "new"),
]


def test_triage_rows_parse() -> None:
    judgements = read_triage(TRIAGE.splitlines())
    assert [(j.code, j.verdict) for j in judgements] == [
        ("JAX201", True),
        ("JAX201", False),
        ("JAX203", False),
    ]
    assert judgements[1].note == "a NumPy array, not JAX"


def test_compare_counts_per_code_untriaged_and_stale() -> None:
    report = compare(FINDINGS, read_triage(TRIAGE.splitlines()), lines=20_000)
    jax201, jax202 = report.by_code["JAX201"], report.by_code["JAX202"]
    assert (jax201.findings, jax201.triaged, jax201.true, jax201.false) == (2, 2, 1, 1)
    assert (jax202.findings, jax202.triaged) == (1, 0)
    assert report.false_per_10k_lines == pytest.approx(0.5)
    assert [f.path for f in report.untriaged] == ["chex/c.py"]
    assert [j.path for j in report.stale] == ["optax/b.py"]
    text = format_report(report)
    assert "| all | 3 | 2 | 1 | 1 |" in text
    assert "chex,chex/c.py,7,JAX202" in text


def test_bad_verdict_and_missing_columns_are_errors() -> None:
    with pytest.raises(ValueError, match="verdict"):
        read_triage(["package,path,line,code,verdict,note", "a,b,1,JAX201,maybe,"])
    with pytest.raises(ValueError, match="columns"):
        read_triage(["package,path,line,code", "a,b,1,JAX201"])


def test_a_lower_case_code_matches_its_judgement() -> None:
    """`invalid-syntax` (the parser's code) is judged like the rule codes."""
    row = "dopamine,d/train.py,35,invalid-syntax,true,the shipped file does not parse"
    judgements = read_triage(["package,path,line,code,verdict,note", row])
    finding = CorpusFinding("dopamine", "d/train.py", 35, "invalid-syntax", "SyntaxError")
    report = compare([finding], judgements, lines=10_000)
    assert (report.untriaged, report.stale) == ([], [])
    assert report.by_code["invalid-syntax"].true == 1

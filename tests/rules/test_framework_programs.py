"""The framework contracts (`transforms.FRAMEWORK_CONTRACTS`): for each row, a program that
fails under the real library because the framework traces the code jax-lsp flags, and its
clean counterpart, which runs and has no finding. The programs follow the format of
`value_programs/` (see `test_value_programs`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from jax_lsp.analysis.transforms import FRAMEWORK_CONTRACTS
from tests.rules.test_fixtures import expected_findings
from tests.rules.test_value_programs import (
    _assert_runs_as,
    _clean_counterpart,
    _findings,
    _first_line,
)

DIRECTORY = Path(__file__).parent / "framework_programs"
# A program may spell an entry point by a name JAX deprecates (`jax.experimental.pjit`): the
# rows are about what is traced, not about the names (JAX1101/JAX1102 judge those).
_NAMING_RULES = frozenset({"JAX1101", "JAX1102"})


def _traced_findings(text: str, path: Path) -> set:
    return {found for found in _findings(text, path) if found[1] not in _NAMING_RULES}


PROGRAMS = sorted(DIRECTORY.glob("*.py"))


def test_each_contract_has_its_program_and_each_program_a_contract():
    named = {contract.program for contract in FRAMEWORK_CONTRACTS}
    assert named == {path.stem for path in PROGRAMS}


@pytest.mark.parametrize("path", PROGRAMS, ids=[p.stem for p in PROGRAMS])
def test_traced_code_is_flagged_and_fails_under_the_framework(path: Path):
    text = path.read_text(encoding="utf-8")
    expected = _first_line(text, "# runtime: ")
    assert expected and expected_findings(text)
    assert _traced_findings(text, path) == expected_findings(text)
    for module in ("flax", "equinox", "haiku", "optax"):
        pytest.importorskip(module)
    _assert_runs_as(text, expected)


@pytest.mark.parametrize("path", PROGRAMS, ids=[p.stem for p in PROGRAMS])
def test_clean_counterpart_is_clean_and_runs(path: Path):
    text = path.read_text(encoding="utf-8")
    clean = _clean_counterpart(text)
    assert _traced_findings(clean, path) == set()
    for module in ("flax", "equinox", "haiku", "optax"):
        pytest.importorskip(module)
    _assert_runs_as(clean, _first_line(text, "# clean runtime: "))

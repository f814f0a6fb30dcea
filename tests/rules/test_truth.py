"""The truth behind each rule, measured under real JAX: every runnable INVALID example fails
(or misbehaves) the documented way, every VALID example and every fixed example runs."""

from __future__ import annotations

import textwrap

import pytest

from jax_lsp.diagnostics import ALL_RULES
from jax_lsp.diagnostics.base import iter_examples
from tests.runtime import exception_class, run_snippet

pytest.importorskip("jax")

RUNNABLE = [item for item in iter_examples(ALL_RULES) if item[2].runnable]


@pytest.mark.parametrize(("rule", "name", "example"), RUNNABLE, ids=[n for _, n, _ in RUNNABLE])
def test_example_behaves_as_documented(rule, name, example):
    if "-invalid-" in name:
        assert example.raises or example.check, f"{name} demonstrates no failure"
        outcome = run_snippet(example.code, example.check)
        if example.raises:
            expected = exception_class(example.raises)
            assert isinstance(outcome.error, expected), (
                f"{name}: expected {example.raises}, got {outcome.error!r}"
            )
        else:
            assert outcome.error is None, (
                f"{name}: the misbehaviour check failed: {outcome.error!r}"
            )
    else:
        outcome = run_snippet(example.code, example.check)
        assert outcome.error is None, f"{name}: VALID example failed: {outcome.error!r}"


FIXED = [item for item in RUNNABLE if item[2].fixed is not None]


@pytest.mark.parametrize(("rule", "name", "example"), FIXED, ids=[n for _, n, _ in FIXED])
def test_fixed_example_runs(rule, name, example):
    outcome = run_snippet(textwrap.dedent(example.fixed), example.fixed_check)
    assert outcome.error is None, f"{name}: the fixed code failed: {outcome.error!r}"

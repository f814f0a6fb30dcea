"""Shared helpers for the test suite."""

from __future__ import annotations

import os
import textwrap
from pathlib import Path

import pytest
from hypothesis import is_hypothesis_test

# Before jax_lsp is imported (servers the tests start inherit it): every unit key kept from
# the last model is checked against one built afresh (`model._VERIFY_KEPT_KEYS`).
os.environ["JAX_LSP_VERIFY_KEPT_KEYS"] = "1"

from jax_lsp.analysis.document import Document
from jax_lsp.diagnostics import ALL_RULES, RULES_BY_CODE
from jax_lsp.engine import analyze
from jax_lsp.findings import Finding


@pytest.hookimpl(tryfirst=True)
def pytest_cmdline_main(config: pytest.Config) -> None:
    """Tests run on every core when pytest-xdist is installed and the command line chose no
    distribution (`-n`, `--tx`, `--dist`, `-p no:xdist`); without xdist they run in this
    process, so plain `pytest` needs no plugin."""
    if not config.pluginmanager.hasplugin("xdist") or hasattr(config, "workerinput"):
        return
    option = config.option
    if option.numprocesses is None and not option.tx and option.dist == "no":
        option.numprocesses = "auto"


# The slow tier (`-m slow`); `python -m pytest -m "not slow"` runs the rest, every rule's
# examples and truth and the engine's tests, in under two minutes on two cores. Slow: the folders
# that start real servers and editors or fuzz them, every hypothesis test (random programs and
# edit sequences), and the files marked `pytestmark = pytest.mark.slow` (programs run under JAX
# in subprocesses, tables checked against the installed libraries, processes started).
_TESTS = Path(__file__).resolve().parent
_SLOW_FOLDERS = tuple(_TESTS / folder for folder in ("e2e", "clients", "reliability"))


@pytest.hookimpl(tryfirst=True)  # before `-m` deselects
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        in_slow_folder = any(item.path.is_relative_to(folder) for folder in _SLOW_FOLDERS)
        if in_slow_folder or is_hypothesis_test(getattr(item, "obj", None)):
            item.add_marker(pytest.mark.slow)


def findings_of(source: str, codes: tuple[str, ...] | None = None) -> list[Finding]:
    rules = ALL_RULES if codes is None else tuple(RULES_BY_CODE[c] for c in codes)
    return analyze(Document(textwrap.dedent(source)), rules).findings


def codes_of(source: str) -> list[str]:
    return [finding.code for finding in findings_of(source)]


@pytest.fixture
def lint():
    return findings_of

"""Shared helpers for the test suite."""

from __future__ import annotations

import gc
import os
import textwrap
from pathlib import Path

import pytest
from hypothesis import is_hypothesis_test

# Before jax_lsp is imported (servers the tests start inherit it): every result reused
# because its recorded reads answer the same (a unit key kept from the last model, a per-unit
# memo) is checked against one computed afresh (`recorded.VERIFY_REUSE`).
os.environ["JAX_LSP_VERIFY_REUSE"] = "1"

# Before JAX is imported (here, in the other xdist worker and in the processes the tests start):
# JAX's persistent compilation cache keeps every program the tests compile, the smallest too
# (JAX keeps only those compiled in over a second by default). Compiling the examples is most
# of what running them costs, and a test's verdict is the same with the executable loaded: it is
# the one XLA compiled, under a key of the program, the compile options and JAX's version. A
# user's own `JAX_COMPILATION_CACHE_DIR` (empty: no cache) wins.
os.environ.setdefault(
    "JAX_COMPILATION_CACHE_DIR",
    str(Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "jax-lsp-tests" / "jax"),
)
os.environ.setdefault("JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS", "0")
os.environ.setdefault("JAX_PERSISTENT_CACHE_MIN_ENTRY_SIZE_BYTES", "-1")

from jax_lsp.analysis.document import Document
from jax_lsp.diagnostics import ALL_RULES, RULES_BY_CODE
from jax_lsp.engine import analyze
from jax_lsp.findings import Finding


@pytest.hookimpl(tryfirst=True)
def pytest_cmdline_main(config: pytest.Config) -> None:
    """Tests run on every core when pytest-xdist is installed and the command line chose no
    distribution (`-n`, `--tx`, `--dist`, `-p no:xdist`); without xdist they run in this
    process, so plain `pytest` needs no plugin. Distributed, a worker that runs out of tests
    takes half of another's queue (`--dist worksteal`) unless `--dist` says otherwise: with
    xdist's default (`load`) the tests handed out stay where they are, and one worker could
    sit idle for minutes while the other still had a queue of editor and server tests."""
    if not config.pluginmanager.hasplugin("xdist") or hasattr(config, "workerinput"):
        return
    option = config.option
    if option.tx or option.dist != "no":
        return
    if option.numprocesses is None:
        option.numprocesses = "auto"
    option.dist = "worksteal"  # xdist drops it again for `-n 0`


# The slow tier (`-m slow`); `python -m pytest -m "not slow"` runs the rest, every rule's
# examples and truth and the engine's tests, in under two minutes on two cores. Slow: the folders
# that start real servers and editors or fuzz them, every hypothesis test (random programs and
# edit sequences), and the files marked `pytestmark = pytest.mark.slow` (programs run under JAX
# in subprocesses, tables checked against the installed libraries, processes started).
_TESTS = Path(__file__).resolve().parent
_SLOW_FOLDERS = tuple(_TESTS / folder for folder in ("e2e", "clients", "reliability"))


# The files whose tests take longest (a minute or more each on two cores: an editor driven in a
# browser, a fresh environment installed, every real bug run under JAX): started first, so that
# the last minute of a run on two workers is short tests that the other worker can share.
_LONGEST = tuple(
    _TESTS / name
    for name in (
        "clients/test_vscode.py",
        "clients/test_jupyterlab.py",
        "rules/test_fix_real_bugs.py",
        "clients/test_pre_commit.py",
    )
)


@pytest.hookimpl(tryfirst=True)  # before `-m` deselects
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    in_slow_folder: dict[Path, bool] = {}  # by file: thousands of items, a few hundred files
    for item in items:
        slow_folder = in_slow_folder.get(item.path)
        if slow_folder is None:
            slow_folder = any(item.path.is_relative_to(folder) for folder in _SLOW_FOLDERS)
            in_slow_folder[item.path] = slow_folder
        if slow_folder or is_hypothesis_test(getattr(item, "obj", None)):
            item.add_marker(pytest.mark.slow)
    # The longest files, then the other files with a slow test, then the rest; a stable sort
    # keeps each file's tests together (module fixtures are set up once) and in their order.
    rank: dict[Path, int] = {}
    for item in items:
        slow = item.get_closest_marker("slow") is not None
        here = _LONGEST.index(item.path) if item.path in _LONGEST else len(_LONGEST) + (not slow)
        rank[item.path] = min(here, rank.get(item.path, here))
    items.sort(key=lambda item: rank[item.path])


# The cycle collector during collection: each full collection walks every object the imports
# and the items made so far (half a million at the end), and the heap grows by a quarter, which
# starts the next one, some twenty times. Off while collecting; then what collection made,
# which lives as long as the session, is frozen (left out of the collections while the tests
# run and at their end). The tests' own objects are collected as usual.
@pytest.hookimpl(tryfirst=True)
def pytest_collection(session: pytest.Session) -> None:
    gc.disable()


@pytest.hookimpl(trylast=True)
def pytest_collection_finish(session: pytest.Session) -> None:
    gc.freeze()
    gc.enable()


def findings_of(source: str, codes: tuple[str, ...] | None = None) -> list[Finding]:
    rules = ALL_RULES if codes is None else tuple(RULES_BY_CODE[c] for c in codes)
    return analyze(Document(textwrap.dedent(source)), rules).findings


def codes_of(source: str) -> list[str]:
    return [finding.code for finding in findings_of(source)]


@pytest.fixture
def lint():
    return findings_of

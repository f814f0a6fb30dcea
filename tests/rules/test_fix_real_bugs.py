"""Every program of the real-bugs corpus, fixed with `check --fix --unsafe-fixes` and run.

The corpus (`../shared/corpus/real-bugs/`, beside the repository) holds small programs from
public bug reports that print their own evidence. A fix must never turn a program that ran into
one that fails; a program that failed with a JAX error and got a fix must run after it. Only
the programs a fix changed are run (before and after, in subprocesses, two at a time).
"""

from __future__ import annotations

import ast
import importlib.util
import os
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest

from bench.corpus import shared_folder

pytestmark = pytest.mark.slow  # every real bug fixed and run in a subprocess

pytest.importorskip("jax")

REAL_BUGS = shared_folder() / "corpus" / "real-bugs"
_TIMEOUT = 180  # seconds per program run; the slowest takes ~10 s alone on a loaded machine
_WORKERS = 2
# Known defects outside the fixes this test was written with, tolerated by name (with the
# reason) so that any other failure fails the test. False findings of the detection: the `ok_`
# programs must get no finding at all (the real-bugs score counts them).
_TOLERATED: dict[str, str] = {}


@dataclass(frozen=True)
class Run:
    returncode: int | None  # None: timed out
    output: str

    @property
    def ran(self) -> bool:
        return self.returncode == 0

    @property
    def jax_error(self) -> bool:
        """Failed with an error raised by JAX (its tracebacks carry this banner)."""
        return self.returncode not in (0, None) and (
            "JAX_TRACEBACK_FILTERING" in self.output or "jax.errors." in self.output
        )


def _run(program: Path) -> Run:
    env = {**os.environ, "JAX_PLATFORMS": "cpu", "PYTHONDONTWRITEBYTECODE": "1"}
    try:
        done = subprocess.run(
            [sys.executable, program.name],
            cwd=program.parent,
            env=env,
            capture_output=True,
            text=True,
            timeout=_TIMEOUT,
        )
    except subprocess.TimeoutExpired:
        return Run(None, "timed out")
    return Run(done.returncode, done.stdout + done.stderr)


@pytest.fixture(scope="module")
def fixed_and_run(tmp_path_factory) -> dict[str, tuple[Run, Run, str]]:
    """name -> (run before, run after, diff summary) for each program the fixes changed."""
    if not REAL_BUGS.is_dir():
        pytest.skip(f"the real-bugs corpus is not beside the repository ({REAL_BUGS})")
    root = tmp_path_factory.mktemp("real-bugs")
    before, after = root / "before", root / "after"
    before.mkdir()
    programs = sorted(p for p in REAL_BUGS.glob("*.py") if p.name != "score.py")
    for program in programs:
        shutil.copy(program, before / program.name)
    shutil.copytree(before, after)
    fixing = subprocess.run(
        [sys.executable, "-m", "jax_lsp", "check", "--fix", "--unsafe-fixes"]
        + [p.name for p in programs],
        cwd=after,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert "Traceback" not in fixing.stderr, fixing.stderr
    changed = [
        p.name for p in programs if (before / p.name).read_bytes() != (after / p.name).read_bytes()
    ]
    assert changed, "no fix applied to any program: the corpus or the CLI changed"
    jobs = [before / name for name in changed] + [after / name for name in changed]
    with ThreadPoolExecutor(_WORKERS) as pool:
        runs = dict(zip(jobs, pool.map(_run, jobs), strict=True))
    return {
        name: (runs[before / name], runs[after / name], (after / name).read_text("utf-8"))
        for name in changed
    }


def test_fixed_programs_parse(fixed_and_run):
    for name, (_, _, text) in fixed_and_run.items():
        compile(text, name, "exec")


def _failing(fixed_and_run, failed) -> str:
    """What the programs for which `failed(before, after)` holds printed (none tolerated)."""
    return "\n\n".join(
        f"{name}:\n{after.output[-1500:]}"
        for name, (before, after, _) in fixed_and_run.items()
        if failed(before, after) and name not in _TOLERATED
    )


def test_no_fix_breaks_a_program_that_ran(fixed_and_run):
    broken = _failing(fixed_and_run, lambda before, after: before.ran and not after.ran)
    assert not broken, broken


def test_programs_failing_with_a_jax_error_run_after_their_fix(fixed_and_run):
    still = _failing(fixed_and_run, lambda before, after: before.jax_error and not after.ran)
    assert not still, still
    assert any(before.jax_error for before, _, _ in fixed_and_run.values())


def test_every_library_the_corpus_imports_is_installed():
    """A program whose library is missing fails with ModuleNotFoundError before and after its
    fix, so the tests above cannot judge its fix: say so (flax is not in the `test` extra; the
    flax-free cases of those fixes are in test_logic_fix_receivers.py)."""
    if not REAL_BUGS.is_dir():
        pytest.skip(f"the real-bugs corpus is not beside the repository ({REAL_BUGS})")
    missing: dict[str, list[str]] = {}
    for program in sorted(REAL_BUGS.glob("*.py")):
        for module in _imported_top_level(program):
            if importlib.util.find_spec(module) is None:
                missing.setdefault(module, []).append(program.name)
    if missing:
        pytest.skip(
            "fixes not run for lack of a library: "
            + "; ".join(f"{module}: {', '.join(names)}" for module, names in missing.items())
        )


def _imported_top_level(program: Path) -> set[str]:
    """The top-level modules `program` imports (read with `ast`, never run)."""
    tree = ast.parse(program.read_text(encoding="utf-8"))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {alias.name.partition(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module.partition(".")[0])
    return names

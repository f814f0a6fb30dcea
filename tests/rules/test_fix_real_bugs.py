"""Every program of the real-bugs corpus, fixed with `check --fix --unsafe-fixes` and run.

The corpus (`../shared/corpus/real-bugs/`, beside the repository) holds small programs from
public bug reports that print their own evidence. A fix must never turn a program that ran into
one that fails; a program that failed with a JAX error and got a fix must run after it. Only
the programs a fix changed are run (before and after, each in a process of its own, two at a
time).
"""

from __future__ import annotations

import ast
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import textwrap
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


# Runs `python PROGRAM` for each program named on its input, _WORKERS at a time, and prints
# [program, exit status or null when timed out] as each ends. Each program runs in a child
# forked from this process, which has imported JAX and the libraries the corpus uses (about
# 1.5 s of CPU per program otherwise), but no backend started: no XLA thread yet, so forking
# is safe. The child runs the program as `python PROGRAM` would (its folder first on sys.path,
# as __main__, output and status alike); where forking is not safe, or the program sets the
# environment (which JAX reads when imported), the child execs a fresh interpreter instead.
_RUNNER = textwrap.dedent(
    """
    import json, os, runpy, signal, sys, threading
    for name in ("jax", "jax.numpy", "flax.linen", "flax.nnx", "optax", "equinox"):
        try:
            __import__(name)
        except ImportError:
            pass
    from jax._src import xla_bridge

    timeout, workers = int(sys.argv[1]), int(sys.argv[2])
    fork_safe = not xla_bridge._backends and threading.active_count() == 1

    def run(program, output):
        folder, name = os.path.split(program)
        for fd, stream in ((1, ".out"), (2, ".err")):
            os.dup2(os.open(output + stream, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644), fd)
        os.dup2(os.open(os.devnull, os.O_RDONLY), 0)
        os.chdir(folder)
        signal.alarm(timeout)  # its default action ends the process
        with open(name, encoding="utf-8") as file:
            reads_environment = "environ" in file.read()
        if not fork_safe or reads_environment:
            os.execv(sys.executable, [sys.executable, name])
        sys.argv[:] = [name]
        sys.path[0] = folder
        try:
            runpy.run_path(program, run_name="__main__")
        except SystemExit as exit:
            if exit.code is None or isinstance(exit.code, int):
                return exit.code or 0
            print(exit.code, file=sys.stderr)
            return 1
        except BaseException as error:
            chained, seen = error, set()
            while chained is not None and id(chained) not in seen:
                seen.add(id(chained))  # each traceback from the program's frame on
                traceback = chained.__traceback__
                while traceback and traceback.tb_frame.f_code.co_filename != program:
                    traceback = traceback.tb_next
                chained.__traceback__ = traceback or chained.__traceback__
                chained = chained.__cause__ or chained.__context__
            sys.excepthook(type(error), error, error.__traceback__)
            return 1
        return 0

    jobs = [json.loads(line) for line in sys.stdin]
    running = {}
    while jobs or running:
        while jobs and len(running) < workers:
            program, output = jobs.pop(0)
            pid = os.fork()
            if pid == 0:
                status = 70
                try:
                    status = run(program, output)
                finally:
                    sys.stdout.flush()
                    sys.stderr.flush()
                    os._exit(status)
            running[pid] = program
        pid, status = os.wait()
        status = os.waitstatus_to_exitcode(status)
        print(json.dumps([running.pop(pid), None if status == -signal.SIGALRM else status]))
        sys.stdout.flush()
    """
)


def _run_all(programs: list[Path], outputs: Path) -> dict[Path, Run]:
    """Each program run as `python PROGRAM` in its folder would run it (see _RUNNER)."""
    env = {**os.environ, "JAX_PLATFORMS": "cpu", "PYTHONDONTWRITEBYTECODE": "1"}
    jobs = [(program, outputs / str(index)) for index, program in enumerate(programs)]
    runner = subprocess.run(
        [sys.executable, "-c", _RUNNER, str(_TIMEOUT), str(_WORKERS)],
        input="".join(json.dumps([str(p), str(o)]) + "\n" for p, o in jobs),
        env=env,
        capture_output=True,
        text=True,
        timeout=_TIMEOUT * len(programs),
    )
    assert runner.returncode == 0, runner.stderr
    status = dict(json.loads(line) for line in runner.stdout.splitlines())
    runs = {}
    for program, output in jobs:
        printed = [
            Path(f"{output}{stream}").read_text("utf-8", "replace") for stream in (".out", ".err")
        ]
        runs[program] = Run(status[str(program)], "".join(printed))
        if status[str(program)] is None:
            runs[program] = Run(None, "timed out")
    return runs


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
    outputs = root / "outputs"
    outputs.mkdir()
    runs = _run_all(
        [before / name for name in changed] + [after / name for name in changed], outputs
    )
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

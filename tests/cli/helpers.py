"""Running `jax-lsp` for the CLI tests, in-process (fast) or as its own process, and the sample
programs they fix."""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from jax_lsp.cli import main

ROOT = Path(__file__).resolve().parents[2]

# One JAX201 with a safe fix (`x[0] = 1.0` -> `x = x.at[0].set(1.0)`).
FIXABLE = "import jax.numpy as jnp\n\nx = jnp.zeros(3)\nx[0] = 1.0\n"
FIXED = "import jax.numpy as jnp\n\nx = jnp.zeros(3)\nx = x.at[0].set(1.0)\n"


@dataclass
class Run:
    code: int
    stdout: str
    stderr: str


def jax_lsp(*args: str, cwd: Path, env: dict[str, str] | None = None) -> Run:
    """`jax-lsp *args` run in `cwd` in this process, with `env` set meanwhile."""
    out, err = io.StringIO(), io.StringIO()
    previous_cwd = os.getcwd()
    saved = {name: os.environ.get(name) for name in env or {}}
    try:
        os.chdir(cwd)
        os.environ.update(env or {})
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(list(args))
    finally:
        os.chdir(previous_cwd)
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
    return Run(code, out.getvalue(), err.getvalue())


def jax_lsp_process(
    *args: str, cwd: Path, timeout: float = 600
) -> subprocess.CompletedProcess[str]:
    """`python -m jax_lsp *args` run as its own process in `cwd`: what a shell or a hook sees.
    This tree's jax_lsp, as the server tests start it (not whichever one is installed)."""
    return subprocess.run(
        [sys.executable, "-m", "jax_lsp", *args],
        cwd=cwd,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=timeout,
    )

"""jax-lsp supports Python >= 3.10 (the VS Code extension runs its bundled copy on the user's
interpreter): no `ast.TryStar` (3.11+) outside jax_lsp/compat.py, which guards it; and the entry
point runs on a real 3.10 where this machine has one."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.clients.tools import REPO


def test_no_unguarded_python311_ast_nodes() -> None:
    package = REPO / "jax_lsp"
    offenders = [
        f"{path.relative_to(REPO)}:{number}"
        for path in sorted(package.rglob("*.py"))
        if path.name != "compat.py"
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if "ast.TryStar" in line
    ]
    assert offenders == [], "use jax_lsp.compat.TRY_STATEMENTS"


def _python_310() -> str | None:
    """A working Python 3.10 interpreter (on PATH, or pyenv's), or None."""
    pyenv = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv")) / "versions"
    candidates = [shutil.which("python3.10"), *sorted(pyenv.glob("3.10*/bin/python3.10"))]
    for candidate in filter(None, candidates):
        # A pyenv shim exists even where it refuses to run that version.
        version = subprocess.run(
            [str(candidate), "-c", "import sys; print(sys.version_info[:2])"],
            capture_output=True,
            text=True,
        )
        if version.stdout.strip() == "(3, 10)":
            return str(candidate)
    return None


def test_python_m_jax_lsp_runs_on_python_310(tmp_path: Path) -> None:
    """`python3.10 -m jax_lsp`: the entry point takes the working directory off the path
    before anything else (it read `sys.flags.safe_path`, which 3.10 lacks: AttributeError).
    `--version` needs none of the dependencies, so the bare interpreter serves."""
    python = _python_310()
    if python is None:
        pytest.skip("no Python 3.10 on this machine")
    done = subprocess.run(
        [python, "-m", "jax_lsp", "--version"],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("jax-lsp ")

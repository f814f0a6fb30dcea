"""The pre-commit hooks (.pre-commit-hooks.yaml) under `pre-commit try-repo` on a sample repo."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from tests.clients.tools import REPO, require

PRE_COMMIT = shutil.which("pre-commit", path=str(Path(sys.executable).parent)) or shutil.which(
    "pre-commit"
)
MISSING = (
    "pre-commit or git not installed (pre-commit is in the test extra)"
    if PRE_COMMIT is None or shutil.which("git") is None
    else None
)

GOTCHA = "import jax.numpy as jnp\n\nx = jnp.zeros(3)\nx[0] = 1.0\n"
FIXED = "import jax.numpy as jnp\n\nx = jnp.zeros(3)\nx = x.at[0].set(1.0)\n"
CLEAN = "import numpy as np\n\nx = np.zeros(3)\nx[0] = 1.0\n"


def sample_repo(root: Path) -> Path:
    require(MISSING)
    root.mkdir()
    (root / "gotcha.py").write_text(GOTCHA)
    (root / "clean.py").write_text(CLEAN)
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    subprocess.run(["git", "add", "."], cwd=root, check=True)
    return root


def try_repo(sample: Path, home: Path) -> subprocess.CompletedProcess[str]:
    """Every hook of the repository, in its order: `jax-lsp`, then `jax-lsp-fix`. One run, as
    each `try-repo` clones the repository afresh and installs jax-lsp into a new environment
    (the longest step of these tests)."""
    require(MISSING)
    environment = {**os.environ, "PRE_COMMIT_HOME": str(home), "PYTHONPATH": ""}
    return subprocess.run(
        [str(PRE_COMMIT), "try-repo", str(REPO), "--all-files", "--verbose"],
        cwd=sample,
        env=environment,
        capture_output=True,
        text=True,
        timeout=600,
    )


def hook_reports(output: str) -> dict[str, str]:
    """What pre-commit printed for each hook, by hook id."""
    sections = output.split("- hook id: ")[1:]
    return {section.split("\n", 1)[0].strip(): section for section in sections}


def test_check_hook_reports_and_fix_hook_rewrites(tmp_path: Path) -> None:
    sample = sample_repo(tmp_path / "sample")
    run = try_repo(sample, tmp_path / "pre-commit-home")
    assert run.returncode == 1, run.stdout + run.stderr
    reports = hook_reports(run.stdout)
    assert sorted(reports) == ["jax-lsp", "jax-lsp-fix"], run.stdout
    check, fix = reports["jax-lsp"], reports["jax-lsp-fix"]
    # The check hook reports, and writes nothing.
    assert "gotcha.py:4:1: error: JAX201" in check
    assert "clean.py:" not in check  # NumPy item assignment is fine
    assert "Found 1 finding: 1 error." in check
    assert "files were modified by this hook" not in check
    # The fix hook rewrites the file (pre-commit fails a hook that edits).
    assert "files were modified by this hook" in fix
    assert (sample / "gotcha.py").read_text() == FIXED
    assert (sample / "clean.py").read_text() == CLEAN

"""The pre-commit hooks (.pre-commit-hooks.yaml) under `pre-commit try-repo` on a sample repo."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

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


@pytest.fixture(scope="module")
def pre_commit_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One hook environment for both hooks: try-repo installs jax-lsp into it once."""
    return tmp_path_factory.mktemp("pre-commit-home")


def sample_repo(root: Path) -> Path:
    require(MISSING)
    root.mkdir()
    (root / "gotcha.py").write_text(GOTCHA)
    (root / "clean.py").write_text(CLEAN)
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    subprocess.run(["git", "add", "."], cwd=root, check=True)
    return root


def try_repo(sample: Path, hook: str, home: Path) -> subprocess.CompletedProcess[str]:
    require(MISSING)
    environment = {**os.environ, "PRE_COMMIT_HOME": str(home), "PYTHONPATH": ""}
    return subprocess.run(
        [str(PRE_COMMIT), "try-repo", str(REPO), hook, "--all-files", "--verbose"],
        cwd=sample,
        env=environment,
        capture_output=True,
        text=True,
        timeout=600,
    )


def test_check_hook_reports_the_gotcha(tmp_path: Path, pre_commit_home: Path) -> None:
    sample = sample_repo(tmp_path / "sample")
    run = try_repo(sample, "jax-lsp", pre_commit_home)
    assert run.returncode == 1, run.stdout + run.stderr
    assert "gotcha.py:4:1: error: JAX201" in run.stdout
    assert "clean.py:" not in run.stdout  # NumPy item assignment is fine
    assert "Found 1 finding: 1 error." in run.stdout
    assert (sample / "gotcha.py").read_text() == GOTCHA


def test_fix_hook_rewrites_the_file(tmp_path: Path, pre_commit_home: Path) -> None:
    sample = sample_repo(tmp_path / "sample")
    run = try_repo(sample, "jax-lsp-fix", pre_commit_home)
    assert run.returncode == 1, run.stdout + run.stderr  # pre-commit fails a hook that edits
    assert "files were modified by this hook" in run.stdout
    assert (sample / "gotcha.py").read_text() == FIXED
    assert (sample / "clean.py").read_text() == CLEAN

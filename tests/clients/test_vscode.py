"""The VS Code extension in a real VS Code (code-server + headless Chromium via playwright-core):
the extension offers its bundled server for an interpreter without jax_lsp, the gotcha shows in
the Problems panel, the hover is short, Ctrl+. applies the quick fix, the saved file is fixed;
"Fix All" fixes a second file; the hover does not repeat the related place VS Code shows; typing
a block header key by key keeps the findings and the lens, and they stay once the file is closed
(workspace diagnostics); in a notebook the cell shows its
diagnostic, the quick fix and Fix All apply, a related place in another cell names the cell, a
fix adding an import edits the first cell too, and the saved .ipynb is fixed; a restart and a
`jax-lsp.path` change log no error."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from tests.clients.tools import (
    ARTIFACTS,
    CHROMIUM,
    CODE_SERVER,
    EXTENSION,
    REPO,
    base_python,
    built_vsix,
    missing_vscode_tools,
    require,
)


def bare_python(folder: Path) -> str:
    """A fresh virtualenv's interpreter: no jax_lsp, no pygls, so the bundled copy must serve."""
    subprocess.run([base_python(), "-m", "venv", "--without-pip", str(folder)], check=True)
    return str(folder / "bin" / "python")


def test_quick_fix_in_vscode(tmp_path: Path) -> None:
    require(missing_vscode_tools())
    vsix = built_vsix()
    environment = {
        **{key: value for key, value in os.environ.items() if key != "PYTHONPATH"},
        "CODE_SERVER": str(CODE_SERVER),
        "VSIX": str(vsix),
        "PYTHON": bare_python(tmp_path / "venv"),
        "CHROMIUM": str(CHROMIUM),
        "ARTIFACTS": str(ARTIFACTS),
        "PLAYWRIGHT": str(EXTENSION / "node_modules" / "playwright-core"),
    }
    run = subprocess.run(
        ["node", str(REPO / "tests" / "clients" / "vscode_e2e.mjs")],
        env=environment,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 0, f"{run.stdout}\n{run.stderr}"
    print(run.stdout)  # the steps with their timings (pytest -s or -rP shows them)
    assert "VSCODE E2E OK" in run.stdout
    for screenshot in (
        "quickfix",
        "hover",
        "hover-related",
        "typing",
        "notebook",
        "notebook-import",
    ):
        assert (ARTIFACTS / f"vscode-{screenshot}.png").is_file()

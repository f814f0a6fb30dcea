"""The VS Code extension in a real VS Code (code-server + headless Chromium via playwright-core):
the gotcha shows in the Problems panel, Ctrl+. applies the quick fix, the saved file is fixed."""

from __future__ import annotations

import os
import subprocess

import pytest

from tests.clients.tools import (
    ARTIFACTS,
    CHROMIUM,
    CODE_SERVER,
    EXTENSION,
    REPO,
    base_python,
    built_vsix,
    missing_vscode_tools,
)

pytestmark = pytest.mark.skipif(
    missing_vscode_tools() is not None, reason=str(missing_vscode_tools())
)


def test_quick_fix_in_vscode() -> None:
    vsix = built_vsix()
    environment = {
        **os.environ,
        "CODE_SERVER": str(CODE_SERVER),
        "VSIX": str(vsix),
        "PYTHON": base_python(),
        "CHROMIUM": str(CHROMIUM),
        "ARTIFACTS": str(ARTIFACTS),
        "PLAYWRIGHT": str(EXTENSION / "node_modules" / "playwright-core"),
    }
    run = subprocess.run(
        ["node", str(REPO / "tests" / "clients" / "vscode_e2e.mjs")],
        env=environment,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, f"{run.stdout}\n{run.stderr}"
    assert "VSCODE E2E OK" in run.stdout
    assert (ARTIFACTS / "vscode-quickfix.png").is_file()

"""Where the client tests find their tools: code-server, Chromium, Neovim (scripts/ci-clients.sh
installs them; each test skips with the reason when its tool is missing)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
ARTIFACTS = Path(__file__).resolve().parent / "artifacts"
EXTENSION = REPO / "vscode-extension"
CI_CACHE = Path(os.environ.get("JAX_LSP_CI_CACHE", "/opt/jax-lsp-ci"))
CODE_SERVER = CI_CACHE / "code-server" / "package" / "out" / "node" / "entry.js"
CHROMIUM = Path(os.environ.get("JAX_LSP_CHROMIUM", "/usr/bin/chromium"))


def missing_vscode_tools() -> str | None:
    """Why the VS Code test cannot run here, or None."""
    if shutil.which("node") is None or shutil.which("npm") is None:
        return "node/npm not installed (scripts/ci-clients.sh installs the client test tools)"
    if not CODE_SERVER.is_file():
        return f"code-server not installed at {CODE_SERVER} (scripts/ci-clients.sh installs it)"
    if not CHROMIUM.is_file():
        return f"chromium not installed at {CHROMIUM} (apt-get install chromium)"
    return None


def _newest_source_mtime() -> float:
    sources = [EXTENSION / "package.json", EXTENSION / "scripts" / "bundle_python.py"]
    sources += EXTENSION.joinpath("src").glob("*.ts")
    sources += REPO.joinpath("jax_lsp").rglob("*.py")
    return max(path.stat().st_mtime for path in sources)


def built_vsix() -> Path:
    """The packaged extension, rebuilt when a source is newer than it."""
    version = json.loads((EXTENSION / "package.json").read_text())["version"]
    vsix = EXTENSION / f"jax-lsp-{version}.vsix"
    if vsix.is_file() and vsix.stat().st_mtime >= _newest_source_mtime():
        return vsix
    if not (EXTENSION / "node_modules").is_dir():
        subprocess.run(["npm", "ci", "--no-fund", "--no-audit"], cwd=EXTENSION, check=True)
    environment = {**os.environ, "PYTHON": sys.executable}
    subprocess.run(["npm", "run", "package"], cwd=EXTENSION, env=environment, check=True)
    return vsix


def base_python() -> str:
    """The interpreter without this virtualenv's packages (so only the bundled libs serve)."""
    return getattr(sys, "_base_executable", None) or sys.executable


def require(reason: str | None) -> None:
    """Skip with `reason` when a tool is missing; fail instead where CI promised the tools
    (JAX_LSP_REQUIRE_CLIENT_TOOLS=1, set after scripts/ci-clients.sh ran)."""
    if reason is None:
        return
    if os.environ.get("JAX_LSP_REQUIRE_CLIENT_TOOLS") == "1":
        pytest.fail(f"client tool missing although required: {reason}")
    pytest.skip(reason)

"""Fixes sit on analysis and findings only: no module of `jax_lsp.codeactions` imports a rule
module, a face or the engine (rules import fixes, never the other way round)."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import jax_lsp.codeactions
from jax_lsp.codeactions import CODEMODS
from jax_lsp.findings import Codemod

PACKAGE = Path(jax_lsp.codeactions.__file__).parent
ALLOWED = ("jax_lsp.analysis", "jax_lsp.findings", "jax_lsp.codeactions")
BASE = ("jax_lsp.compat",)  # Python version differences, which analysis reads


def _imported(path: Path) -> list[str]:
    """Every jax_lsp module `path` imports, at run time or for type checking."""
    names = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            names.append(node.module)
        elif isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
    return [name for name in names if name.split(".")[0] == "jax_lsp"]


def test_fix_modules_import_only_analysis_findings_and_fixes():
    modules = sorted(PACKAGE.glob("*.py"))
    assert len(modules) > 5  # the scan sees the package
    outside = {
        f"{path.name}: {name}"
        for path in modules
        for name in _imported(path)
        if not name.startswith(ALLOWED)
    }
    assert outside == set()


def test_importing_every_fix_module_loads_no_rule_module():
    modules = [f"jax_lsp.codeactions.{path.stem}" for path in PACKAGE.glob("*.py")]
    program = (
        "import importlib, json, sys\n"
        f"for name in {modules!r}:\n"
        "    importlib.import_module(name)\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.startswith('jax_lsp.'))))\n"
    )
    run = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, check=True
    )
    loaded = json.loads(run.stdout)
    assert "jax_lsp.codeactions.static_argnames" in loaded
    assert [name for name in loaded if not name.startswith((*ALLOWED, *BASE))] == []


def test_every_codemod_is_registered_and_its_name_survives_json():
    assert set(CODEMODS) == set(Codemod)
    for codemod in Codemod:
        assert Codemod(json.loads(json.dumps(codemod.value))) is codemod

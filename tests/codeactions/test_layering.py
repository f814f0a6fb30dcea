"""Fixes sit on analysis and findings only: no module of `jax_lsp.codeactions` imports a rule
module, a face or the engine (rules import fixes, never the other way round). And every edit is
built there: a rule module builds no `Edit`, `Fix` or LSP edit and runs no libcst transform."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import jax_lsp.codeactions
import jax_lsp.diagnostics
from jax_lsp.codeactions import CODEMODS
from jax_lsp.findings import Codemod

PACKAGE = Path(jax_lsp.codeactions.__file__).parent
ALLOWED = ("jax_lsp.analysis", "jax_lsp.findings", "jax_lsp.text", "jax_lsp.codeactions")
# Below every floor: Python version differences, which analysis reads; the one-line code
# quoted in fix titles, which `Fix` makes.
BASE = ("jax_lsp.compat", "jax_lsp.snippets")
RULE_PACKAGE = Path(jax_lsp.diagnostics.__file__).parent
# What builds an edit: the findings' types, the LSP's, and codeactions' edit helpers.
EDIT_BUILDERS = frozenset(
    {"Edit", "Fix", "TextEdit", "WorkspaceEdit", "AnnotatedTextEdit", "node_edit"}
    | {"import_line_edit", "insert_lines"}
)
EDIT_LIBRARIES = ("libcst", "lsprotocol", "pygls")


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


def edit_building(source: str) -> list[str]:
    """What in `source` builds an edit: a call of an edit type or helper, an import of `Edit`,
    an import of libcst or of an LSP library."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call):
            func = node.func
            name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
            if name in EDIT_BUILDERS:
                found.append(f"line {node.lineno}: {name}(...)")
        elif isinstance(node, ast.Import | ast.ImportFrom):
            modules = [node.module or ""] if isinstance(node, ast.ImportFrom) else []
            modules += [alias.name for alias in node.names] if isinstance(node, ast.Import) else []
            if any(module.split(".")[0] in EDIT_LIBRARIES for module in modules):
                found.append(f"line {node.lineno}: import of {', '.join(modules)}")
            if isinstance(node, ast.ImportFrom) and any(a.name == "Edit" for a in node.names):
                found.append(f"line {node.lineno}: import of Edit")
    return found


def test_the_edit_finder_finds_edits():
    source = (
        "import libcst as cst\n"
        "from jax_lsp.findings import Edit, Fix\n"
        "def fix(ctx, node):\n"
        "    return Fix('t', (ctx.span(node),), None)\n"
        "def lsp(r):\n"
        "    return lsp_types.TextEdit(range=r, new_text='')\n"
    )
    assert len(edit_building(source)) == 4
    assert edit_building("from jax_lsp.findings import Fix\ndef f() -> Fix | None: ...\n") == []


def test_rule_modules_build_no_edit():
    modules = sorted(RULE_PACKAGE.rglob("*.py"))
    assert len(modules) > 5  # the scan sees the package
    found = {
        f"{path.name} {what}"
        for path in modules
        for what in edit_building(path.read_text(encoding="utf-8"))
    }
    assert found == set(), "fixes are built in jax_lsp/codeactions/"

"""jax-lsp supports Python >= 3.10 (the VS Code extension runs its bundled copy on the user's
interpreter): no `ast.TryStar` (3.11+) outside jax_lsp/compat.py, which guards it."""

from __future__ import annotations

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

"""Differences between the Python versions jax-lsp runs on (3.10 and newer)."""

from __future__ import annotations

import ast

# `try: ... except* E:` (ast.TryStar) exists from Python 3.11 on.
TRY_STATEMENTS: tuple[type[ast.stmt], ...] = (
    (ast.Try, ast.TryStar) if hasattr(ast, "TryStar") else (ast.Try,)
)

"""Rules of the purity family (see RULES.md)."""

from __future__ import annotations

from jax_lsp.diagnostics.base import Rule

RULES: tuple[type[Rule], ...] = ()

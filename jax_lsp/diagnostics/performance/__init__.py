"""Performance (JAX1001-JAX1002): recompiling jits, unhashable static arguments."""

from __future__ import annotations

from jax_lsp.diagnostics.base import Rule
from jax_lsp.diagnostics.performance.jit_in_loop import JitInLoop
from jax_lsp.diagnostics.performance.unhashable_static_arg import UnhashableStaticArg

RULES: tuple[type[Rule], ...] = (JitInLoop, UnhashableStaticArg)

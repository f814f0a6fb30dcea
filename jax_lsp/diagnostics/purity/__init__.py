"""Side effects in traced code (JAX101-JAX104): JAX runs the Python function once, to trace it.

Prints, global reads and writes, and iterator steps happen at trace time only; the compiled
function replays the recorded array operations without them.
"""

from __future__ import annotations

from jax_lsp.diagnostics.base import Rule
from jax_lsp.diagnostics.purity.global_read_in_traced import GlobalReadInTraced
from jax_lsp.diagnostics.purity.global_write_in_traced import GlobalWriteInTraced
from jax_lsp.diagnostics.purity.iterator_in_traced import IteratorInTraced
from jax_lsp.diagnostics.purity.print_in_traced import PrintInTraced

RULES: tuple[type[Rule], ...] = (
    PrintInTraced,
    GlobalReadInTraced,
    GlobalWriteInTraced,
    IteratorInTraced,
)

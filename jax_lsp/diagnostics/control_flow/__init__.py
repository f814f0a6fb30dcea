"""Python control flow and conversions on traced values (JAX701-JAX703).

While JAX traces a function abstractly (jit, vmap, lax control flow) a traced value has a shape
and dtype but no value: Python cannot branch on it, combine it with `and`/`or`/`not`, or turn
it into an `int`. Ownership of `if x > 0 and y > 0:` goes to JAX701: the branch is what must
change (`jnp.where`, `lax.cond`), and rewriting the `and` alone would not make it trace.
JAX702 reports `and`/`or`/`not` only where their result is used as a value.
"""

from __future__ import annotations

from jax_lsp.diagnostics.base import Rule
from jax_lsp.diagnostics.control_flow.concretize_traced import ConcretizeTraced
from jax_lsp.diagnostics.control_flow.python_branch_on_traced import PythonBranchOnTraced
from jax_lsp.diagnostics.control_flow.python_logic_on_traced import PythonLogicOnTraced

RULES: tuple[type[Rule], ...] = (PythonBranchOnTraced, PythonLogicOnTraced, ConcretizeTraced)

"""Adding a parameter to `static_argnames` of a `f = jax.jit(f, ...)` statement elsewhere in the
module: built on demand (JAX701/703/803 name it in `Finding.deferred`), because the statement's
position is not part of the flagged unit's cache key.

The anchor is the traced parameter inside a module-level function `f`; the fix extends the
`static_argnames=` of the one module-level `jax.jit(f, ...)` call, or adds it. Unsafe.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from jax_lsp.codeactions.source import ModuleSource
from jax_lsp.diagnostics.static_fix import extend_jit_call, looks_like_setting
from jax_lsp.findings import Applicability, Fix, Span


@dataclass(frozen=True)
class _Located:
    """Document spans and text of one unit's nodes (what `extend_jit_call` reads)."""

    module: ModuleSource
    offset: int

    def span(self, node: ast.AST) -> Span:
        return Span.of(*self.module.start(node, self.offset), *self.module.end(node, self.offset))

    def segment(self, node: ast.AST) -> str:
        return self.module.segment(
            self.module.start(node, self.offset), self.module.end(node, self.offset)
        )


def static_jit_fixes(source: str, line: int, column: int) -> tuple[Fix, ...]:
    module = ModuleSource(source)
    found = _parameter_at(module, line, column)
    if found is None:
        return ()
    name, function = found
    if not looks_like_setting(name, function):
        return ()
    calls = list(_jit_calls_of(module, function.name))
    if len(calls) != 1:
        return ()
    call, offset = calls[0]
    edits = extend_jit_call(call, [name], _Located(module, offset))
    if edits is None:
        return ()
    return (Fix(f"Make `{name}` static (`static_argnames`)", edits, Applicability.UNSAFE),)


def _parameter_at(
    module: ModuleSource, line: int, column: int
) -> tuple[str, ast.FunctionDef] | None:
    """The parameter name at (line, column) and its module-level function."""
    for node, ancestors, offset in module.nodes_at(line):
        if isinstance(node, ast.Name) and module.start(node, offset) == (line, column):
            function = ancestors[1] if len(ancestors) > 1 else None
            if isinstance(function, ast.FunctionDef) and not any(
                isinstance(a, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)
                for a in ancestors[2:]
            ):
                return node.id, function
    return None


def _jit_calls_of(module: ModuleSource, name: str):
    """Module-level `... = jax.jit(name, ...)` calls, with their unit's first line."""
    resolver = module.resolver
    for unit in module.document.units:
        for statement in unit.tree.body if unit.tree else ():
            value = getattr(statement, "value", None)
            if (
                isinstance(statement, ast.Assign | ast.AnnAssign)
                and isinstance(value, ast.Call)
                and resolver.qualname(value.func) == "jax.jit"
                and value.args
                and isinstance(value.args[0], ast.Name)
                and value.args[0].id == name
            ):
                yield value, unit.start_line

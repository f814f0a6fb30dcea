"""Module-level jitted callables and their static arguments: `@partial(jax.jit,
static_argnums=...)` definitions and `g = jax.jit(f, static_argnames=...)` bindings."""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass

from jax_lsp.analysis.imports import Resolver
from jax_lsp.analysis.summary import FunctionNode, transform_of
from jax_lsp.analysis.traced import positional_params, static_parameters

# Transformations whose static arguments must be hashable (they key the compilation cache).
_HASHED = frozenset({"jit", "pmap"})


@dataclass(frozen=True)
class StaticSignature:
    positions: frozenset[int]  # positional argument indexes that are static
    names: frozenset[str]  # keyword argument names that are static


def _literal_items(expr: ast.expr | None) -> tuple | None:
    if expr is None:
        return ()
    try:
        value = ast.literal_eval(expr)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None
    return tuple(value) if isinstance(value, list | tuple) else (value,)


def signature_of(
    keywords: dict[str, ast.expr], static_keywords: tuple[str, ...], function: FunctionNode | None
) -> StaticSignature | None:
    """Static positions/names of a jit application, from its keywords and (if known) target."""
    if function is not None:
        static = static_parameters(function, keywords, static_keywords)
        if static is None:
            return None
        positional = positional_params(function)
        positions = frozenset(i for i, name in enumerate(positional) if name in static)
        return StaticSignature(positions, static) if static else None
    positions: set[int] = set()
    names: set[str] = set()
    for keyword in static_keywords:
        items = _literal_items(keywords.get(keyword))
        if items is None:
            return None
        positions |= {i for i in items if isinstance(i, int) and not isinstance(i, bool)}
        names |= {i for i in items if isinstance(i, str)}
    if any(i < 0 for i in positions):
        return None  # negative indexes need the signature
    return StaticSignature(frozenset(positions), frozenset(names)) if positions or names else None


def jit_call_signature(
    call: ast.Call, resolver: Resolver, resolve: Callable[[str], FunctionNode | None]
) -> StaticSignature | None:
    """`jax.jit(f, static_argnums=1)` (or `partial(jax.jit, ...)(f)`) as an expression."""
    found = transform_of(call.func, resolver)
    if found is None or not call.args:
        return None
    spec, keywords = found
    if spec.label not in _HASHED:
        return None
    keywords = {**keywords, **{kw.arg: kw.value for kw in call.keywords if kw.arg}}
    target = call.args[0]
    if isinstance(target, ast.Lambda):
        function: FunctionNode | None = target
    elif isinstance(target, ast.Name):
        function = resolve(target.id)
    else:
        function = None
    return signature_of(keywords, spec.static_keywords, function)


def unit_signatures(
    tree: ast.Module, resolver: Resolver, resolve: Callable[[str], FunctionNode | None]
) -> dict[str, StaticSignature]:
    """Names a unit binds at module level to jitted callables with static arguments."""
    signatures: dict[str, StaticSignature] = {}
    for statement in tree.body:
        if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef):
            for decorator in statement.decorator_list:
                found = transform_of(decorator, resolver)
                if found is None or found[0].label not in _HASHED:
                    continue
                signature = signature_of(found[1], found[0].static_keywords, statement)
                if signature is not None:
                    signatures[statement.name] = signature
        elif (
            isinstance(statement, ast.Assign)
            and len(statement.targets) == 1
            and isinstance(statement.targets[0], ast.Name)
            and isinstance(statement.value, ast.Call)
        ):
            signature = jit_call_signature(statement.value, resolver, resolve)
            if signature is not None:
                signatures[statement.targets[0].id] = signature
    return signatures

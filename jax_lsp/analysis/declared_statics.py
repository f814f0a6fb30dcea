"""Parameters a function's decorators keep Python values on every call of its name: JAX
hashes the static arguments of a jitted function (`@partial(jax.jit, static_argnames=...)`)
and refuses a tracer among a `jax.custom_vjp`'s `nondiff_argnums`, both at the call. Inside
the function they are never tracers, whatever a traced caller passes (that call fails
first, and the rules flag it there)."""

from __future__ import annotations

import ast

from jax_lsp.analysis.imports import Resolver
from jax_lsp.analysis.nodes import positional_params
from jax_lsp.analysis.summary import transform_of
from jax_lsp.analysis.traced import static_parameters
from jax_lsp.analysis.transforms import PARTIAL, ParamPolicy

_CUSTOM_VJP = "jax.custom_vjp"


def declared_static(
    node: ast.FunctionDef | ast.AsyncFunctionDef, resolver: Resolver
) -> frozenset[str]:
    """The parameters of `node` its decorators declare static (see the module docstring);
    nothing for options that cannot be read."""
    found: set[str] = set()
    for decorator in node.decorator_list:
        transform = transform_of(decorator, resolver)
        if transform is not None:
            spec, keywords = transform
            if spec.policy is ParamPolicy.ALL_BUT_STATIC and not spec.abstract_only:
                found |= static_parameters(node, keywords, spec.static_keywords) or frozenset()
            continue
        found |= _nondiff_params(node, decorator, resolver)
    return frozenset(found)


def _nondiff_params(
    node: ast.FunctionDef | ast.AsyncFunctionDef, decorator: ast.expr, resolver: Resolver
) -> frozenset[str]:
    """The parameters at the `nondiff_argnums` of `@partial(jax.custom_vjp, nondiff_argnums=
    ...)` (`jax.custom_jvp` takes tracers there)."""
    if (
        not isinstance(decorator, ast.Call)
        or resolver.qualname(decorator.func) not in PARTIAL
        or len(decorator.args) != 1
        or resolver.qualname(decorator.args[0]) != _CUSTOM_VJP
    ):
        return frozenset()
    keywords = {k.arg: k.value for k in decorator.keywords if k.arg == "nondiff_argnums"}
    if not keywords:
        return frozenset()
    positional = positional_params(node)
    return (
        static_parameters(
            node, {"static_argnums": keywords["nondiff_argnums"]}, ("static_argnums",), positional
        )
        or frozenset()
    )


def declared_abstract(node: ast.AST, resolver: Resolver) -> bool:
    """Is `node` decorated with a transformation tracing it abstractly (`@jax.jit`)?"""
    for decorator in getattr(node, "decorator_list", ()):
        transform = transform_of(decorator, resolver)
        if transform is not None and transform[0].abstract:
            return True
    return False

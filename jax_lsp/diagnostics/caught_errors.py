"""Code that expects a tracer's error: it runs in the body of a `try` (of its own function)
whose handler catches that error. Libraries probe this way on purpose (`try: if rate == 0:
... except jax.errors.ConcretizationTypeError: pass` validates a Python rate and lets a traced
one through), so the error a rule predicts there is no bug.

The classes JAX 0.10.2 raises and their bases, as `type(error).__mro__` gives them:
`TracerBoolConversionError` derives from `ConcretizationTypeError`; it and the conversion
errors from `JAXTypeError`, a `TypeError`."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable

from jax_lsp.compat import TRY_STATEMENTS
from jax_lsp.diagnostics.base import RuleContext

_BASES = frozenset(["Exception", "BaseException"])
_JAX_TYPE_ERROR = _BASES | {"TypeError", "JAXTypeError"}

# An error's class name -> the names of the classes an `except` catches it by.
_CAUGHT_BY: dict[str, frozenset[str]] = {
    "TracerBoolConversionError": _JAX_TYPE_ERROR
    | {"TracerBoolConversionError", "ConcretizationTypeError"},
    "ConcretizationTypeError": _JAX_TYPE_ERROR | {"ConcretizationTypeError"},
    "TracerArrayConversionError": _JAX_TYPE_ERROR | {"TracerArrayConversionError"},
    "TracerIntegerConversionError": _JAX_TYPE_ERROR | {"TracerIntegerConversionError"},
    "TypeError": _BASES | {"TypeError"},
    "ValueError": _BASES | {"ValueError"},
    "IndexError": _BASES | {"IndexError", "LookupError"},
}

_ERROR_NAME = re.compile(r"\b[A-Z][A-Za-z]*Error\b")
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


def error_names(text: str) -> list[str]:
    """The error classes a finding's text names (`TracerArrayConversionError (or
    ConcretizationTypeError)`): the code raises one of them."""
    return _ERROR_NAME.findall(text)


def caught_here(ctx: RuleContext, node: ast.AST, errors: Iterable[str]) -> bool:
    """`node` (where the walker stands) runs in the body of a `try` of its function whose
    handlers catch each of `errors` (an unknown class is never taken as caught)."""
    wanted = [_CAUGHT_BY.get(error) for error in errors]
    if not wanted or any(names is None for names in wanted):
        return False
    ancestors = ctx.ancestors
    for index in range(len(ancestors) - 1, -1, -1):
        ancestor = ancestors[index]
        if isinstance(ancestor, _SCOPES):
            return False  # a function's body runs when it is called, not under this `try`
        child = ancestors[index + 1] if index + 1 < len(ancestors) else node
        if not (isinstance(ancestor, TRY_STATEMENTS) and child in ancestor.body):
            continue
        caught = [_caught_names(handler) for handler in ancestor.handlers]
        if all(any(found is None or found & names for found in caught) for names in wanted):
            return True
    return False


def _caught_names(handler: ast.ExceptHandler) -> frozenset[str] | None:
    """The class names a handler catches (None: every exception, a bare `except:`); none for
    a handler that only raises again, which expects nothing."""
    if all(isinstance(statement, ast.Raise) for statement in handler.body):
        return frozenset()
    if handler.type is None:
        return None
    types = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    names = [t.attr if isinstance(t, ast.Attribute) else getattr(t, "id", None) for t in types]
    return frozenset(name for name in names if isinstance(name, str))

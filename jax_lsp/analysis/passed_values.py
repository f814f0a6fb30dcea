"""What every traced call of a function gives a parameter, and the branches it decides.

A trace of a function is made by the calls that trace it: when each of them gives a parameter
the same Python constant (`validate=False` left at its default, `method="jax"`, `U=None`), the
traced body runs one way at every test of that parameter alone (`if validate:`,
`if method.lower() == "numpy":`, `if U is None:`), and the other branch is not traced code:
it records no values, and the functions only it calls are not traced through it
(`ScopeKinds.unreached`).

The facts are gathered per call where the trace already looks at each traced call
(`literal_flag_params`), merged over the traces of a function (`TraceInfo.merged`: a parameter
keeps a fact only where every trace gives it one), and crossed to other modules with the
traces (`IncomingTrace.literals`). Nothing is decided where one trace is unknown: a
transformation applied to the function, a call through a function value or from outside the
project give no fact, and the merge then keeps none.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping

from jax_lsp.analysis.nodes import is_none

# A parameter's value in every trace: True, False, None or a string. Numbers are left out:
# `1 == True` would let a set of facts take one for the other.
PassedValue = bool | str | None
Flags = Mapping[str, PassedValue]

# String methods whose result on a known string is known (`method.lower() == "numpy"`).
_STRING_METHODS = frozenset({"lower", "upper", "casefold", "strip", "lstrip", "rstrip"})
_UNKNOWN = object()
_LITERAL_COLLECTIONS = (ast.Tuple, ast.List, ast.Set)


def is_passed_constant(value: object) -> bool:
    """A value whose every trace the facts may hold: True, False, None or a string."""
    return value is None or type(value) is bool or type(value) is str


def argument_constant(argument: ast.expr, caller_flags: Flags) -> object:
    """The constant a call's argument is: a literal, or a parameter of the traced caller
    that every trace of it gives one (`clip=force_positivity`, with `force_positivity=True`
    from each call of the caller); `_UNKNOWN` otherwise."""
    if type(argument) is ast.Constant and is_passed_constant(argument.value):
        return argument.value
    if type(argument) is ast.Name and argument.id in caller_flags:
        return caller_flags[argument.id]
    return _UNKNOWN


def known(value: object) -> bool:
    return value is not _UNKNOWN


def flag_test(test: ast.expr, flags: Flags) -> bool | None:
    """Whether `test` holds, decided by the parameters' constants alone (`not skip_checks`,
    `cache is None`, `debug and x > 0` with `debug` False, `method.lower() == "numpy"` with
    `method` "jax"); None: not decided."""
    if type(test) is ast.Name:
        return bool(flags[test.id]) if test.id in flags else None
    if type(test) is ast.UnaryOp and type(test.op) is ast.Not:
        inner = flag_test(test.operand, flags)
        return None if inner is None else not inner
    if type(test) is ast.BoolOp:
        decided = [flag_test(value, flags) for value in test.values]
        deciding = type(test.op) is ast.Or  # one True decides an `or`, one False an `and`
        if deciding in decided:
            return deciding
        return None if None in decided else not deciding
    if type(test) is ast.Compare and len(test.ops) == 1:
        return _compared(test.left, test.ops[0], test.comparators[0], flags)
    return None


def _compared(left: ast.expr, op: ast.cmpop, right: ast.expr, flags: Flags) -> bool | None:
    """`p is None`, `p is not None`, `p == "a"`, `p != "a"`, `p in ("a", "b")` and
    `p not in (...)` with `p` (or a string method of it) a parameter of known constant."""
    value = _operand(left, flags)
    if not known(value):
        return None
    op_type = type(op)
    if op_type is ast.Is or op_type is ast.IsNot:
        if not is_none(right):
            return None
        return (value is None) == (op_type is ast.Is)
    if op_type is ast.Eq or op_type is ast.NotEq:
        other = _literal(right)
        if not known(other) or type(other) is not type(value):
            return None  # `True == 1`: a comparison across types is left undecided
        return (value == other) == (op_type is ast.Eq)
    if (op_type is ast.In or op_type is ast.NotIn) and type(right) in _LITERAL_COLLECTIONS:
        options = [_literal(element) for element in right.elts]  # type: ignore[attr-defined]
        if not all(known(option) and type(option) is type(value) for option in options):
            return None
        return (value in options) == (op_type is ast.In)
    return None


def _operand(node: ast.expr, flags: Flags) -> object:
    """The constant of a parameter, or of a string method called on one (`method.lower()`)."""
    if type(node) is ast.Name:
        return flags.get(node.id, _UNKNOWN)
    if (
        type(node) is ast.Call
        and not node.args
        and not node.keywords
        and type(node.func) is ast.Attribute
        and node.func.attr in _STRING_METHODS
        and type(node.func.value) is ast.Name
    ):
        value = flags.get(node.func.value.id, _UNKNOWN)
        return getattr(value, node.func.attr)() if type(value) is str else _UNKNOWN
    return _UNKNOWN


def _literal(node: ast.expr) -> object:
    if type(node) is ast.Constant and is_passed_constant(node.value):
        return node.value  # type: ignore[attr-defined]
    return _UNKNOWN


def calls_in(parts: list[ast.stmt] | list[ast.expr]) -> list[ast.AST]:
    """The calls (and lambdas) of code no trace runs: the functions they name are not
    traced through them."""
    return [
        node
        for part in parts
        for node in ast.walk(part)
        if type(node) is ast.Call or type(node) is ast.Lambda
    ]

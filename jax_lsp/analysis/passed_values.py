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
import enum
from collections.abc import Callable, Iterable, Mapping

from jax_lsp.analysis.nodes import NAMED_BINDINGS, is_none, rebound_names, walk_nodes, walk_once


class Passed(enum.Enum):
    """What every trace gives a parameter when no one constant is known."""

    NOT_NONE = "not None"  # a number, a literal container, different constants
    ARRAY = "array"  # a JAX array a `jnp` function made: never None

    __hash__ = object.__hash__


# A parameter's value in every trace: True, False, None, a string, or what is known of it.
# Numbers stand as `NOT_NONE`: `1 == True` would let a set of facts take one for the other.
PassedValue = bool | str | None | Passed
Flags = Mapping[str, PassedValue]
# Functions whose result is a JAX array (or a tuple of arrays), never None.
_ARRAY_MAKERS = ("jax.numpy.", "jax.random.", "jax.nn.")

# String methods whose result on a known string is known (`method.lower() == "numpy"`).
_STRING_METHODS = frozenset({"lower", "upper", "casefold", "strip", "lstrip", "rstrip"})
_UNKNOWN = object()
_LITERAL_COLLECTIONS = (ast.Tuple, ast.List, ast.Set)
_LITERAL_VALUES = (ast.Tuple, ast.List, ast.Set, ast.Dict, ast.JoinedStr, ast.Lambda)
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)
# Code that may run again after a later binding: loops, and comprehensions (a walrus).
_LOOPS = (
    ast.For,
    ast.AsyncFor,
    ast.While,
    ast.ListComp,
    ast.SetComp,
    ast.DictComp,
    ast.GeneratorExp,
)


def is_passed_constant(value: object) -> bool:
    """A value whose every trace the facts may hold: True, False, None or a string."""
    return value is None or type(value) is bool or type(value) is str


def argument_constant(argument: ast.expr, caller_flags: Flags) -> object:
    """The constant a call's argument is: a literal, or a parameter of the traced caller
    that every trace of it gives one (`clip=force_positivity`, with `force_positivity=True`
    from each call of the caller); `NOT_NONE` for another literal (a number, a tuple);
    `_UNKNOWN` otherwise."""
    if type(argument) is ast.Constant:
        value = argument.value
        return value if is_passed_constant(value) else Passed.NOT_NONE
    if type(argument) is ast.Name and argument.id in caller_flags:
        return caller_flags[argument.id]
    if type(argument) in _LITERAL_VALUES:
        return Passed.NOT_NONE
    return _UNKNOWN


def array_arguments(
    passed: Iterable[tuple[str, ast.expr]],
    is_jax: Callable[[ast.expr], bool],
    made_arrays: Callable[[], frozenset[str]],
    qualname: Callable[[ast.expr], str | None],
) -> frozenset[tuple[str, PassedValue]]:
    """Parameters a traced call gives a JAX array that a `jnp` function made: the call's
    result itself, or a name of the caller bound only to such results (`Q, R =
    jnp.linalg.qr(u)`). A caller's parameter is not one: a transformation may give it any
    pytree, None included. `is_jax`: the argument's kind is a JAX array here."""
    found = set()
    for name, argument in passed:
        if not is_jax(argument):
            continue
        if (type(argument) is ast.Call and makes_array(argument, qualname)) or (
            type(argument) is ast.Name and argument.id in made_arrays()
        ):
            found.add((name, Passed.ARRAY))
    return frozenset(found)


def makes_array(call: ast.Call, qualname: Callable[[ast.expr], str | None]) -> bool:
    return (qualname(call.func) or "").startswith(_ARRAY_MAKERS)


def names_bound_to_arrays(
    function: ast.FunctionDef | ast.AsyncFunctionDef, qualname: Callable[[ast.expr], str | None]
) -> frozenset[str]:
    """The names `function` binds only to what a `jnp` function returns (the whole result,
    or the items of the tuple it returns) or updates in place (`x += 1`); never one of its
    parameters, nor a name anything else binds (a loop target, an import, `nonlocal`)."""
    made: set[str] = set()
    kept: set[int] = set()  # the Store names of those bindings
    for node in walk_nodes(function):
        if type(node) is ast.Assign and type(node.value) is ast.Call:
            targets = [
                element
                for target in node.targets
                for element in (target.elts if type(target) is ast.Tuple else [target])
            ]
            if all(type(t) is ast.Name for t in targets) and makes_array(node.value, qualname):
                made.update(t.id for t in targets)  # type: ignore[attr-defined]
                kept.update(id(t) for t in targets)
        elif type(node) is ast.AugAssign and type(node.target) is ast.Name:
            kept.add(id(node.target))
    if not made:
        return frozenset()
    other = {arg.arg for arg in walk_once(function.args) if type(arg) is ast.arg}
    for node in walk_nodes(function):
        if node is function or id(node) in kept:
            continue
        if type(node) is ast.Global or type(node) is ast.Nonlocal:
            other.update(node.names)
        elif (bound := _bound_name(node)) is not None:
            other.add(bound)
    return frozenset(made - other)


def known(value: object) -> bool:
    return value is not _UNKNOWN


def flag_test(test: ast.expr, flags: Flags) -> bool | None:
    """Whether `test` holds, decided by the parameters' constants alone (`not skip_checks`,
    `cache is None`, `debug and x > 0` with `debug` False, `method.lower() == "numpy"` with
    `method` "jax"); None: not decided."""
    if type(test) is ast.Name:
        value = flags.get(test.id, _UNKNOWN)
        return bool(value) if known(value) and type(value) is not Passed else None
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


def joined(
    first: frozenset[tuple[str, PassedValue]], second: frozenset[tuple[str, PassedValue]]
) -> frozenset[tuple[str, PassedValue]]:
    """What two traces both give: a parameter keeps its value where both give the same one,
    and `NOT_NONE` where each gives another value that is not None."""
    if first == second:
        return first
    theirs = dict(second)
    found = set()
    for name, value in first:
        if name not in theirs:
            continue
        other = theirs[name]
        if value == other and type(value) is type(other):
            found.add((name, value))
        elif value is not None and other is not None:
            found.add((name, Passed.NOT_NONE))
    return frozenset(found)


def fixed_flags(
    facts: frozenset[tuple[str, PassedValue]], rebound: frozenset[str]
) -> dict[str, PassedValue]:
    """The values every trace gives the parameters that the code never rebinds."""
    return {name: value for name, value in facts if name not in rebound}


def flags_before_rebinding(
    function: ast.FunctionDef | ast.AsyncFunctionDef,
    facts: frozenset[tuple[str, PassedValue]],
    fixed: Flags,
) -> dict[ast.expr, Flags]:
    """The tests of `function`'s `if`s and conditional expressions that run before a
    parameter it rebinds is first bound again (`if U is None: U = init()`): the values of
    those parameters with the `fixed` ones. A test inside a loop runs again after the
    binding: it gets none; nor does a parameter a nested function binds."""
    late = {name: value for name, value in facts if name not in fixed}
    if not late:
        return {}
    first: dict[str, tuple[int, int]] = {}
    tests: list[ast.expr] = []
    pending: list[tuple[ast.AST, bool]] = [(statement, False) for statement in function.body]
    while pending:
        node, in_loop = pending.pop()
        node_type = type(node)
        bound = _bound_name(node)
        if bound in late:
            place = (node.lineno, node.col_offset)  # type: ignore[attr-defined]
            first[bound] = min(first.get(bound, place), place)
        if node_type in _SCOPES:
            late = {name: v for name, v in late.items() if name not in rebound_names(node)}
            continue
        if node_type is ast.Global or node_type is ast.Nonlocal:
            late = {name: v for name, v in late.items() if name not in node.names}  # type: ignore[attr-defined]
        elif (node_type is ast.If or node_type is ast.IfExp) and not in_loop:
            tests.append(node.test)  # type: ignore[attr-defined]
        looping = in_loop or node_type in _LOOPS
        pending += [(child, looping) for child in ast.iter_child_nodes(node)]
    found: dict[ast.expr, Flags] = {}
    for test in tests:
        # Bound after the test has run: a walrus inside the test binds before it is read.
        end = (test.end_lineno or test.lineno, test.end_col_offset or 0)
        known_here = {name: v for name, v in late.items() if end <= first.get(name, (0, 0))}
        if known_here:
            found[test] = {**fixed, **known_here}
    return found


def _bound_name(node: ast.AST) -> str | None:
    """The name a node binds (an assignment's or a loop's target, a `def`, an import, an
    `except ... as`); None for any other node."""
    node_type = type(node)
    if node_type is ast.Name:
        return None if type(node.ctx) is ast.Load else node.id  # type: ignore[attr-defined]
    if node_type is ast.alias:
        return (node.asname or node.name).split(".")[0]  # type: ignore[attr-defined]
    if node_type in NAMED_BINDINGS:
        return node.name  # type: ignore[attr-defined]
    return None


def calls_in(parts: list[ast.stmt] | list[ast.expr]) -> list[ast.AST]:
    """The calls (and lambdas) of code no trace runs: the functions they name are not
    traced through them."""
    return [
        node
        for part in parts
        for node in ast.walk(part)
        if type(node) is ast.Call or type(node) is ast.Lambda
    ]

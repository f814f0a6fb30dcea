"""Functions a function defines for itself that consume or derive from a key they are given
(a jitted training step nested in `train`, handed the dropout key on every iteration), and
its names bound to a transformation of a function that does (`step = jax.jit(draw)`): a call
of one uses the key it is given, as a call of a module's key helper does (`helper_key`)."""

from __future__ import annotations

import ast
from collections import ChainMap
from collections.abc import Callable, Mapping

from jax_lsp.analysis.imports import Resolver
from jax_lsp.analysis.key_calls import helper_key, in_place_transformed
from jax_lsp.analysis.key_consumers import KeySummary, derived_params, store_counts
from jax_lsp.analysis.keys import PASS, consumed_params, derived_helper_key
from jax_lsp.analysis.nodes import scope_statements
from jax_lsp.analysis.summary import FunctionRecord

_DEFS = ast.FunctionDef | ast.AsyncFunctionDef
_UNASKED = object()


def bound_once(function: ast.FunctionDef | ast.AsyncFunctionDef) -> dict[str, ast.AST]:
    """The names the function's own scope binds exactly once, by a `def` or by a plain
    `name = value`: name -> the definition or the value."""
    return _bound_once(function, _definitions(function))


def _definitions(function: ast.FunctionDef | ast.AsyncFunctionDef) -> dict[str, list[ast.AST]]:
    """The `def`s, classes and plain `name = value` values of the function's own scope, by
    name."""
    defined: dict[str, list[ast.AST]] = {}
    for node in scope_statements(function.body):
        if node is function:
            continue
        if isinstance(node, _DEFS | ast.ClassDef):
            defined.setdefault(node.name, []).append(node)
        elif isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
            if isinstance(target, ast.Name):
                defined.setdefault(target.id, []).append(node.value)
    return defined


def _bound_once(
    function: ast.FunctionDef | ast.AsyncFunctionDef, defined: dict[str, list[ast.AST]]
) -> dict[str, ast.AST]:
    stores = store_counts(function)
    once = {}
    for name, bindings in defined.items():
        # A `def` is no Name store; an assignment is one: either way bound once in all.
        assigned = sum(1 for b in bindings if not isinstance(b, _DEFS | ast.ClassDef))
        if len(bindings) == 1 and stores.get(name, 0) == assigned:
            once[name] = bindings[0]
    return once


def binds_transformation(
    function: ast.FunctionDef | ast.AsyncFunctionDef, resolver: Resolver
) -> bool:
    """Does the function's own scope bind a name once (by `defined`, before the stores are
    counted) to a transformation called in place (`step = jax.jit(draw)`)? Without one,
    `local_key_role` gives a call a role other than `classify`'s only for a call of a function
    the scope defines: PASS, unless `classify` gives some call in the function (nested ones
    included) a key (a key argument, or a `DerivedKey` of a parameter it derives from)."""
    return any(
        len(bindings) == 1
        and not isinstance(bindings[0], _DEFS)
        and in_place_transformed(bindings[0], resolver) is not None
        for bindings in _definitions(function).values()
    )


def local_key_role(
    function: ast.FunctionDef | ast.AsyncFunctionDef,
    classify: Callable[[ast.Call], object],
    resolver: Resolver,
    functions: Mapping[str, FunctionRecord],
    helpers: Mapping[str, frozenset[str]],
    maybe_none: frozenset[str],
) -> Callable[[ast.Call], object] | None:
    """`classify` of the calls in `function`, with its own functions that consume (or
    derive from) a key parameter, and its names bound to a transformation of one or of a
    module function, known: None when it has neither. `functions` and `helpers`: the
    module's records and key helpers."""
    defined = _definitions(function)
    # Neither a `def` nor a transformation bound once (most functions): no role of its own,
    # and the scope's stores need not be counted.
    if not any(
        len(bindings) == 1
        and (isinstance(bindings[0], _DEFS) or in_place_transformed(bindings[0], resolver))
        for bindings in defined.values()
    ):
        return None
    once = _bound_once(function, defined)
    if not once:
        return None
    nested = {name: node for name, node in once.items() if isinstance(node, _DEFS)}
    aliases = {}
    for name, value in once.items():
        target = in_place_transformed(value, resolver) if not isinstance(value, _DEFS) else None
        if target is not None and (target in nested or target not in once):
            aliases[name] = target
    if not nested and not aliases:
        return None
    records = {
        name: FunctionRecord(name, node, None, function)
        for name, node in nested.items()
        if node.args.args or node.args.posonlyargs or node.args.kwonlyargs
    }
    consumed: dict[str, frozenset[str]] = {}
    summaries: dict[str, KeySummary] = {}
    all_functions = ChainMap(records, functions)  # type: ignore[arg-type]
    # A function of the scope hides the module's function of its name, key helper or not.
    hidden = dict.fromkeys(records, frozenset())
    all_helpers = ChainMap(consumed, hidden, helpers)  # type: ignore[arg-type]
    # `classify`'s answer for each call, asked once: the passes below walk every nested
    # function two to four times, and the scope's own flow asks again of the calls it walks.
    classified: dict[ast.Call, object] = {}

    def role(call: ast.Call) -> object:
        func = call.func
        if isinstance(func, ast.Name) and func.id in aliases:
            call = ast.Call(ast.Name(aliases[func.id], ast.Load()), call.args, call.keywords)
            func = call.func
        if isinstance(func, ast.Name) and func.id in nested:
            if func.id not in records:
                return PASS  # shadows any module function of that name
            found = helper_key(call, all_functions, all_helpers, maybe_none, resolver)  # type: ignore[arg-type]
            if found is None and func.id in summaries:
                found = derived_helper_key(call, records, summaries)
            return PASS if found is None else found
        found = classified.get(call, _UNASKED)
        if found is _UNASKED:
            found = classified[call] = classify(call)
        return found

    # In order: a function may call one defined before it (twice, for one defined after).
    for _ in range(2):
        for name, record in records.items():
            node = record.node
            drawn = consumed_params(node, role)  # type: ignore[arg-type]
            if drawn:
                consumed[name] = drawn
            derived = derived_params(node, role)  # type: ignore[arg-type]
            if derived:
                summaries[name] = KeySummary(derived)
        if not consumed and not summaries:
            break  # the second pass would start where the first did: the same answers
    shadowing = any(name in functions for name in nested)
    if not consumed and not summaries and not aliases and not shadowing:
        return None
    return role

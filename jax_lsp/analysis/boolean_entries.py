"""Dicts holding boolean arrays passed into a trace: a batch whose `"mask"` entry is a boolean
array (a NumPy comparison built by a data loader, `{"mask": lengths[:, None] > pos}`), given
to a jitted function, holds a traced boolean array there, and `x[batch["mask"]]` fails under
abstract tracing as `x[mask]` does. A parameter's entry rides among the trace's
`boolean_params` spelled as `batch["mask"]` (no parameter's name holds a bracket), so the
traces of calls, of other modules and of untraced callers carry it as they carry a boolean
parameter."""

from __future__ import annotations

import ast
from collections.abc import Iterable

from jax_lsp.analysis.boolean_args import CallerScope, foreign_callee
from jax_lsp.analysis.booleans import Unpacked, bound_values, is_boolean, items_written
from jax_lsp.analysis.model_view import ModelView
from jax_lsp.analysis.names import binds_locally
from jax_lsp.analysis.nodes import dotted_name, own_returns
from jax_lsp.analysis.summary import FunctionNode, FunctionRef
from jax_lsp.analysis.traced import passed_arguments

_MAX_DEPTH = 3


def entry_spelling(parameter: str, key: str) -> str:
    """How `parameter`'s entry `key` given a boolean array is held in `boolean_params`."""
    return f'{parameter}["{key}"]'


def passed_booleans(
    model: ModelView,
    callee: FunctionNode,
    call: ast.Call,
    ref: FunctionRef,
    caller: FunctionNode | None,
    caller_booleans: frozenset[str] = frozenset(),
) -> frozenset[str]:
    """Parameters of `callee` to which `call`, made in `caller` (None: at module level; a
    run of it giving its parameters `caller_booleans` boolean arrays), passes a boolean
    array, and the entries of the dicts it passes that hold boolean arrays
    (`entry_spelling`)."""
    scope: CallerScope | None = None
    found = set()
    for name, argument in passed_arguments(callee, call, ref):
        if scope is None:
            scope = CallerScope(model, caller, caller_booleans)
        if is_boolean(argument, scope):
            found.add(name)
        elif isinstance(argument, ast.Dict | ast.Name | ast.Call):
            found.update(
                entry_spelling(name, key) for key in boolean_keys(argument, scope, caller_booleans)
            )
    return frozenset(found)


def boolean_keys(
    argument: ast.expr, scope: CallerScope, given: frozenset[str], depth: int = 0
) -> frozenset[str]:
    """The string keys under which the dict `argument` surely holds a boolean array: a dict
    display's, those of every value a name is bound to, those of what a function returns
    (`returned_boolean_keys`), or those a run of the calling function gives its parameter
    (`given`: its `boolean_params`). `scope`: a `boolean_args.CallerScope`."""
    if depth > _MAX_DEPTH:
        return frozenset()
    if isinstance(argument, ast.Dict):
        return _display_keys(argument, scope)
    if isinstance(argument, ast.Call):
        return _returned_keys(argument, scope)
    if not isinstance(argument, ast.Name):
        return frozenset()
    caller = scope.functions[-1] if scope.functions else None
    # A parameter the run gives entries of, never bound again: those entries. (A parameter
    # given none, never bound again, has no bound values either: none, as below.)
    prefix = f"{argument.id}["
    given_entries = [spelled for spelled in given if spelled.startswith(prefix)]
    if given_entries and caller is not None and _unbound_parameter(argument.id, caller):
        return frozenset(spelled[len(prefix) + 1 : -2] for spelled in given_entries)
    values = bound_values(argument.id, scope)
    if not values or any(type(value) is Unpacked for value in values):
        return frozenset()
    found: frozenset[str] | None = None
    for value in values:
        keys = boolean_keys(value, scope, given, depth + 1)
        found = keys if found is None else found & keys
        if not found:
            return frozenset()
    # Entries the function may store or change after binding the dict: none sure.
    if caller is not None and items_written(argument.id, caller):
        return frozenset()
    return found or frozenset()


def _unbound_parameter(name: str, function: ast.AST) -> bool:
    if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
        return False
    arguments = function.args
    parameters = [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]
    if not any(arg.arg == name for arg in parameters):
        return False
    return not any(
        isinstance(node, ast.Name) and node.id == name and not isinstance(node.ctx, ast.Load)
        for node in ast.walk(function)
    ) and not items_written(name, function)


def _display_keys(display: ast.Dict, scope) -> frozenset[str]:
    if None in display.keys:
        return frozenset()  # `**other` unpacked into it: any key may come from there
    return frozenset(
        key.value
        for key, value in zip(display.keys, display.values, strict=True)
        if isinstance(key, ast.Constant) and isinstance(key.value, str) and is_boolean(value, scope)
    )


def _returned_keys(call: ast.Call, scope) -> frozenset[str]:
    """`returned_boolean_keys` of the module-level function or the imported one a call
    names."""
    spelling = dotted_name(call.func)
    if spelling is None:
        return frozenset()
    model: ModelView = scope.model
    caller = scope.functions[-1] if scope.functions else None
    if "." not in spelling:
        record = model.functions.get(spelling)
        if record is not None:
            if record.parent is not None or record.class_name is not None:
                return frozenset()
            if len(model.tracing.definitions.get(spelling, ())) != 1:
                return frozenset()  # defined twice: which one runs depends on the line
            if caller is not None and binds_locally(spelling, caller):
                return frozenset()  # a name the calling function binds itself
            return returned_boolean_keys(model, record.node)
    facts = (model.external or {}).get(spelling)
    if facts is not None:
        return facts.returned_boolean_keys
    found = foreign_callee(model, call)
    return model._foreign.returned_boolean_keys(found) if found is not None else frozenset()


def returned_boolean_keys(model: ModelView, node: FunctionNode) -> frozenset[str]:
    """The keys under which every dict `node` returns holds a boolean array (`return
    {"tokens": tokens, "mask": lengths[:, None] > positions}`). Its parameters count as
    unknown."""
    if isinstance(node, ast.Lambda):
        return frozenset()
    memo = model.objects.returned_keys_memo
    found = memo.get(node)
    if found is None:
        memo[node] = frozenset()  # (a function returning its own call's result: none)
        found = memo[node] = _returned_boolean_keys(model, node)
    return found


def _returned_boolean_keys(model: ModelView, node: FunctionNode) -> frozenset[str]:
    returns = own_returns(node)  # type: ignore[arg-type]
    if not returns or any(value is None for value in returns):
        return frozenset()
    scope = CallerScope(model, node, pending=frozenset({node}))
    return _common(boolean_keys(value, scope, frozenset(), 1) for value in returns)


def _common(key_sets: Iterable[frozenset[str]]) -> frozenset[str]:
    found: frozenset[str] | None = None
    for keys in key_sets:
        found = keys if found is None else found & keys
        if not found:
            return frozenset()
    return found or frozenset()

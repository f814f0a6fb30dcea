"""What a call of a function or class of the module, or of an imported function, does with
the key it is given: which argument it consumes (`helper_key`, `method_argument`), and
whether this call's arguments leave the key unread (the function reads it only under a
condition they break: `draw_conditions`). Below `analysis/keys.py`, whose key flow asks these
for each call of a key helper it meets."""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable, Mapping
from functools import partial

from jax_lsp.analysis.external import ExternalFacts
from jax_lsp.analysis.imports import Resolver
from jax_lsp.analysis.key_consumers import (
    NEVER_READ,
    DrawCondition,
    breaks_condition,
    draw_conditions,
    given_values,
    handing_over,
    parameter_defaults,
    store_counts,
)
from jax_lsp.analysis.nodes import is_none, is_staticmethod
from jax_lsp.analysis.summary import FunctionRecord
from jax_lsp.analysis.traced import all_params, positional_params

NONE: frozenset[str] = frozenset()  # no name that may hold None


class KeyHelpers(dict[str, frozenset[str]]):
    """A model's key helpers once all are found (`KeyFacts.key_helpers`), with the conditions
    each function reads a key parameter under (`read_conditions`), found once for the model:
    a helper's are asked at every call of it."""

    def __init__(self, helpers: Mapping[str, frozenset[str]]) -> None:
        super().__init__(helpers)
        self.conditions: dict[tuple[ast.AST, str], frozenset[DrawCondition]] = {}


def helper_key(
    call: ast.Call,
    functions: dict,
    helpers: dict[str, frozenset[str]],
    maybe_none: frozenset[str] = NONE,
    resolver: Resolver | None = None,
):
    """The argument a call of a module function gives to a parameter it consumes (also
    through a transformation that passes the arguments on in place, `jax.grad(loss)(p, key)`,
    when `resolver` is given)."""
    if resolver is not None and isinstance(call.func, ast.Call):
        inner = call.func
        if resolver.qualname(inner.func) in IN_PLACE_TRANSFORMS and inner.args:
            call = ast.Call(inner.args[0], call.args, call.keywords)
    path = helper_path(call, functions)
    # The helpers first: a call of a function that draws no key reads nothing of its record
    # (which changes with each edit of the function).
    drawn = helpers.get(path) if path is not None else None
    if drawn:
        record = functions.get(path)
        bound = record is None  # a class called: its `__init__` takes the arguments after self
        if bound:
            record = functions.get(f"{path}.__init__")
            if record is not None and record.class_name != path:
                return None
        if record is not None:
            return _argument_for(call, record.node, drawn, maybe_none, functions, helpers, bound)
    return None


# Transformations whose result takes the function's arguments at the same places (and runs
# it once per call): a key the function draws with is drawn by the transformed call too.
IN_PLACE_TRANSFORMS = frozenset(
    {"jax.jit", "jax.grad", "jax.value_and_grad", "jax.checkpoint", "jax.remat"}
)


def in_place_transformed(value: ast.AST, resolver: Resolver) -> str | None:
    """The function name a `jax.jit(f)` (or another transformation that takes the
    arguments in place and runs `f` once per call) is given."""
    if not isinstance(value, ast.Call) or not value.args:
        return None
    if resolver.qualname(value.func) not in IN_PLACE_TRANSFORMS:
        return None
    inner = value.args[0]
    return inner.id if isinstance(inner, ast.Name) else None


def named_by_calls(record: FunctionRecord) -> bool:
    """Can a call name this module function as `helper_path` finds it: a top-level
    function, a static method of a top-level class, or the `__init__` of one (the class
    called: `Model(key)`)? (A nested function or another method is never a key helper's
    callee, whatever it consumes.)"""
    if "." not in record.path:
        return True
    return (
        record.class_name is not None
        and record.path == f"{record.class_name}.{record.node.name}"
        and (is_staticmethod(record.node) or record.node.name == "__init__")
    )


def called_as(record: FunctionRecord) -> str:
    """The name a call spells to run this function (`named_by_calls`): its path, or for a
    class's `__init__` the class (`Model(key)`)."""
    if record.class_name is not None and record.path == f"{record.class_name}.__init__":
        return record.class_name
    return record.path


def helper_path(call: ast.Call, functions: dict) -> str | None:
    """The module function a call names: `helper(...)`, or a staticmethod called through its
    class, `Noise.sample(key, shape)` (no instance is passed, so the arguments line up with
    the parameters)."""
    if isinstance(call.func, ast.Name):
        return call.func.id
    if isinstance(call.func, ast.Attribute) and isinstance(call.func.value, ast.Name):
        owner = call.func.value.id
        record = functions.get(f"{owner}.{call.func.attr}")
        if record is not None and record.class_name == owner and is_staticmethod(record.node):
            return f"{owner}.{call.func.attr}"
    return None


def own_static_call(call: ast.Call, me: str, class_name: str, functions: dict) -> ast.Call | None:
    """A method's call `self.f(...)` (`me`: its instance parameter) of a static method `f` of
    its class `class_name`, spelled as the class calls it, `Cls.f(...)`, which `helper_path`
    names (a static method is given no instance either way); None for another call."""
    func = call.func
    if not (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name)):
        return None
    record = functions.get(f"{class_name}.{func.attr}") if func.value.id == me else None
    if record is None or record.class_name != class_name or not is_staticmethod(record.node):
        return None
    owner = ast.Attribute(ast.Name(class_name, ast.Load()), func.attr, ast.Load())
    return ast.Call(owner, call.args, call.keywords)


def _argument_for(
    call: ast.Call,
    function: ast.FunctionDef,
    drawn: frozenset[str],
    maybe_none: frozenset[str],
    functions: dict,
    helpers: dict[str, frozenset[str]],
    bound: bool = False,
):
    if not drawn:
        return None
    positional = positional_params(function)[1:] if bound else positional_params(function)
    given = given_values(call, positional)
    if given is None:
        return None
    for name, arg in given.items():
        if name not in drawn:
            continue
        conditions = read_conditions(function, name, functions, helpers)
        may_be_none = partial(_may_be_none, maybe_none=maybe_none)
        if _breaks_any(conditions, function, call, given, may_be_none) is None:
            return arg
    return None


def method_argument(
    call: ast.Call,
    method: ast.FunctionDef,
    drawn: frozenset[str],
    maybe_none: frozenset[str],
    model,
):
    """The argument an object's call of its method (`obj(x, key=key)`, `obj.sample(key)`)
    gives a parameter the method consumes (`drawn`, after `self`)."""
    return _argument_for(
        call, method, drawn, maybe_none, model.functions, model.key_helpers, bound=True
    )


def _breaks_any(
    conditions: frozenset[DrawCondition],
    function: ast.FunctionDef,
    call: ast.Call,
    given: Mapping[str, ast.expr],
    may_be_none: Callable[[ast.expr], bool],
) -> DrawCondition | None:
    """The condition the function reads its key under (`draw_conditions`: `if train:`, `if
    cache is None:`) that this call breaks: it passes `train=False`, or leaves a default that
    does, or gives `cache` a value that cannot be None (`may_be_none`). The key stays unread."""
    if not conditions:
        return None
    seen = _values_seen(call, given, parameter_defaults(function))
    return _broken(conditions, seen, may_be_none)


def _values_seen(
    call: ast.Call, given: Mapping[str, ast.expr], defaults: Mapping[str, ast.expr]
) -> Mapping[str, ast.expr]:
    """What the function a call runs sees in its parameters: the arguments `given`, and the
    `defaults` of those it leaves (none past a `**kwargs`, which may pass any of them)."""
    if any(k.arg is None for k in call.keywords):
        return given
    return {**defaults, **given}


def _broken(
    conditions: Iterable[DrawCondition],
    seen: Mapping[str, ast.expr],
    may_be_none: Callable[[ast.expr], bool],
) -> DrawCondition | None:
    """The first of `conditions` that the values `seen` (`_values_seen`) make false."""
    for condition in conditions:
        value = seen.get(condition[0])
        if value is not None and breaks_condition(condition, value, may_be_none):
            return condition
    return None


def read_conditions(
    function: ast.FunctionDef, key: str, functions: dict, helpers: dict[str, frozenset[str]]
) -> frozenset[DrawCondition]:
    """`_read_conditions`, found once per model when `helpers` are its final ones (while they
    are being found, a function's answer may change)."""
    if not isinstance(helpers, KeyHelpers):
        return _read_conditions(function, key, functions, helpers)
    found = helpers.conditions.get((function, key))
    if found is None:
        found = helpers.conditions[function, key] = _read_conditions(
            function, key, functions, helpers
        )
    return found


def _read_conditions(
    function: ast.FunctionDef,
    key: str,
    functions: dict,
    helpers: dict[str, frozenset[str]],
    depth: int = 2,
) -> frozenset[DrawCondition]:
    """`draw_conditions` of the function's parameter `key`, following the key into the helpers
    of the module it is handed to (`depth` calls deep): `forward(x, key, train)` reads it
    only where the function's own `train` is true when `forward` reads it only then."""
    if depth == 0 or not any(
        helpers.get(helper_path(call, functions) or "") for call in handing_over(function, key)
    ):
        return draw_conditions(function, key)
    stores = store_counts(function)

    def passed(inner: ast.Call, name: str) -> frozenset[DrawCondition] | None:
        path = helper_path(inner, functions)
        record = functions.get(path) if path else None
        if record is None or isinstance(record.node, ast.Lambda) or not helpers.get(path):
            return None
        callee = record.node
        given = given_values(inner, positional_params(callee))
        if given is None:
            return None
        received = [p for p, v in given.items() if isinstance(v, ast.Name) and v.id == name]
        if len(received) != 1 or received[0] not in helpers[path]:
            return None
        inner_conditions = _read_conditions(callee, received[0], functions, helpers, depth - 1)
        seen = _values_seen(inner, given, parameter_defaults(callee))
        if _broken(inner_conditions, seen, _unless_literal) is not None:
            return NEVER_READ
        mapped = set()
        for parameter, state in inner_conditions:
            value = seen.get(parameter)
            # The function's own parameter, passed on as it came: the same condition on it.
            if isinstance(value, ast.Name) and value.id in own and not stores.get(value.id):
                mapped.add((value.id, state))
        return frozenset(mapped) or None

    own = frozenset(all_params(function))
    return draw_conditions(function, key, passed)


def key_conditions(
    function: ast.FunctionDef, consumed: frozenset[str], functions: dict, helpers: dict
) -> dict[str, tuple]:
    """`ExternalFacts.key_conditions` and `condition_defaults` of a function consuming the
    keys `consumed`: what an importer needs to see a call leave a key unread."""
    conditions = tuple(
        (key, tuple(sorted(found)))
        for key in sorted(consumed)
        if (found := read_conditions(function, key, functions, helpers))
    )
    if not conditions:
        return {}
    tested = {parameter for _, found in conditions for parameter, _ in found}
    defaults = tuple(
        sorted(
            (parameter, default.value)
            for parameter, default in parameter_defaults(function).items()
            if parameter in tested and isinstance(default, ast.Constant)
        )
    )
    return {"key_conditions": conditions, "condition_defaults": defaults}


def spared_by_imported(
    call: ast.Call, facts: ExternalFacts, key: str, given: Mapping[str, ast.expr]
) -> bool:
    """An imported function reads `key` only under conditions (`key_conditions`) that this
    call's literal arguments, or the defaults it leaves, break."""
    conditions = dict(facts.key_conditions).get(key)
    if not conditions:
        return False
    defaults = {parameter: ast.Constant(value) for parameter, value in facts.condition_defaults}
    return _broken(conditions, _values_seen(call, given, defaults), _unless_literal) is not None


def _unless_literal(value: ast.expr) -> bool:
    """May `value` be None, in code that only its literal tells: unless it is a literal."""
    return not isinstance(value, ast.Constant) or value.value is None


def _may_be_none(value: ast.expr, maybe_none: frozenset[str]) -> bool:
    return is_none(value) or (isinstance(value, ast.Name) and value.id in maybe_none)

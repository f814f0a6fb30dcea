"""The roles of the calls in a function as JAX602's key flow sees them (`classify_call`, with
what the function binds and holds), and the key reuses of its scope."""

from __future__ import annotations

import ast
from collections.abc import Callable
from functools import partial

from jax_lsp.analysis.imported_key_holders import held_imported_role
from jax_lsp.analysis.imports import Resolver
from jax_lsp.analysis.key_calls import own_static_call
from jax_lsp.analysis.key_consumers import LIBRARY_MAKER_ROOTS
from jax_lsp.analysis.keys import (
    PASS,
    KeyFlow,
    Reuse,
    attribute_makers,
    carried_key_reuses,
    classify_call,
    library_makers,
    may_consume,
    method_argument,
    object_key,
    opaque_global,
    path_root,
    rebuilt_key_draws,
    returned_arguments,
)
from jax_lsp.analysis.local_key_helpers import binds_transformation, local_key_role
from jax_lsp.analysis.names import local_names
from jax_lsp.diagnostics.base import RuleContext


def may_call_a_stored_layer(text: str, resolver: Resolver) -> bool:
    """`self.drop(x, key=key)`: a method handing a key to a library layer its object holds
    (`attribute_makers`)."""
    return (
        "self." in text
        and ("key=" in text or "rng=" in text)
        and any(resolver.binds_module(root) for root in LIBRARY_MAKER_ROOTS)
    )


def scope_classify(
    node: ast.FunctionDef | ast.AsyncFunctionDef,
    ctx: RuleContext,
    resolver: Resolver,
    params: frozenset[str],
    record,
    me: str | None,
) -> Callable[[ast.Call], object] | None:
    """The KeyFlow role of a call in a function (`classify_call`), with the library objects
    its body binds, the library layers its object stores (`self.drop`), and the objects of
    the module's classes it holds (`_held_object_key`); None where no call consumes a key."""
    key_facts = ctx.model.key_facts
    local_makers = library_makers(
        node.body, resolver, key_facts.rng_stream_drawers, key_facts.quiet_linen_makers
    )
    # (The class read only where the text may call a stored layer: a method's findings that
    # read its class are not kept across edits of the other methods.)
    stored_layer = me is not None and may_call_a_stored_layer(ctx.code_text(node), resolver)
    owner = ctx.model.classes.get(record.class_name) if stored_layer else None
    if owner is not None:  # `self.drop(x, key=key)`: a layer the class stores
        held = attribute_makers(owner.node, ctx.model.aliases)
        local_makers = {**{f"{me}.{a}": maker for a, maker in held.items()}, **local_makers}
    makers = {**ctx.model.key_makers, **local_makers} if local_makers else None
    base = partial(
        classify_call, resolver=resolver, model=ctx.model, maybe_none=params, makers=makers
    )
    held = _held_roles(node, base, ctx, params, record, me)
    either = base if held is base else lambda call: _key_role(base(call)) or held(call)
    if not binds_transformation(node, resolver) and not may_consume(node.body, either):
        # No call consumes a key by `base` nor by the roles of held objects, so the
        # functions the scope defines consume and derive none either (`local_key_role`
        # gives a call of one PASS): no call consumes a key, and no reuse is found.
        return None
    # Functions the scope defines (or jits) itself and hands a key to.
    model = ctx.model
    local = local_key_role(node, base, resolver, model.functions, model.key_helpers, params)
    return held if local is None else _held_roles(node, local, ctx, params, record, me)


def _key_role(role: object) -> object:
    """`role` where it consumes a key (not None nor PASS), else None."""
    return None if role is None or role == PASS else role


def _held_roles(
    node: ast.FunctionDef | ast.AsyncFunctionDef,
    classify: Callable[[ast.Call], object],
    ctx: RuleContext,
    params: frozenset[str],
    record,
    me: str | None,
) -> Callable[[ast.Call], object]:
    """`classify`, with the roles of the objects the function holds: of imported classes
    (`held_imported_role`), of the module's classes, or its own class's static methods."""
    model = ctx.model
    classify = held_imported_role(node, classify, model) or classify
    # Objects of the module's classes a function (not a method: a method's findings are kept
    # while its siblings change) holds: a method drawing from a key the class stores once
    # (`sampler.sample(n)` twice draws the same numbers), or consuming a key it is given
    # (`model(x, key=key)`). Only a class whose code may draw has such methods: the classes
    # held (found through every call of the module) are asked only when one does.
    drawing = ctx.model.key_drawing_classes if me is None and ctx.model.classes else frozenset()
    objects = ctx.model.classes_in(node) if drawing else {}
    holding = {name: held for name, held in objects.items() if held in drawing}
    if holding:
        return partial(_held_object_key, held=holding, ctx=ctx, maybe_none=params, base=classify)
    if me is not None:  # `self.sample(key)`: a static method of the class, `Cls.sample(key)`
        return partial(_own_static_key, me=me, class_name=record.class_name, ctx=ctx, base=classify)
    return classify


def scope_reuses(
    node: ast.FunctionDef | ast.AsyncFunctionDef,
    ctx: RuleContext,
    classify: Callable[[ast.Call], object],
    resolver: Resolver,
    record,
    me: str | None,
) -> list[Reuse]:
    """The key reuses of a function's own scope (`KeyFlow`), and those of a loop body that
    passes a used key on to the next iteration."""

    def opaque(path: str) -> bool:
        root = path_root(path)
        if root == me:  # `self.rng_key`: maybe a property of a base the model cannot see
            attribute = path[len(root) + 1 :]
            return attribute.isidentifier() and ctx.model.from_unseen_base(
                record.class_name, attribute
            )
        # The local names are walked for only when a path is asked about.
        return root not in local_names(node) and opaque_global(ctx.model.global_values, root)

    returned = partial(returned_arguments, model=ctx.model)
    flow = KeyFlow(classify, opaque, resolver, returned)
    reuses = flow.run(node.body, unit=ctx.unit_start)
    info = ctx.model.context_of(node)
    if info is not None and info.direct:  # a loop body may pass a used key on
        seen = {reuse.call for reuse in reuses}
        carried = [
            flow.next_iteration(reuse, node)
            for reuse in carried_key_reuses(node, info.via, classify, resolver)
        ]
        carried += rebuilt_key_draws(node, info.via, classify, resolver)
        reuses += [reuse for reuse in carried if reuse.call not in seen]
    return reuses


def _own_static_key(
    call: ast.Call, me: str, class_name: str, ctx: RuleContext, base: Callable[[ast.Call], object]
) -> object:
    """What `base` says of a call, `self.f(...)` of a static method as `Cls.f(...)`."""
    spelled = own_static_call(call, me, class_name, ctx.model.functions)
    return base(call if spelled is None else spelled)


def _held_object_key(
    call: ast.Call,
    held: dict[str, str],
    ctx: RuleContext,
    maybe_none: frozenset[str],
    base: Callable[[ast.Call], object],
) -> object:
    """The role of `obj(...)` or `obj.method(...)` for an object of a class of the module the
    function holds (`held`: name -> class): the stored key its method draws from
    (`stored_key_draws`), or the argument it gives a key parameter the method consumes
    (`method_key_params`); else what `base` says."""
    func = call.func
    if isinstance(func, ast.Name):
        name, method = func.id, "__call__"
    elif isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
        name, method = func.value.id, func.attr
    else:
        return base(call)
    class_name = held.get(name)
    if class_name is None:
        return base(call)
    stored = dict(ctx.model.stored_key_draws(class_name)).get(method)
    if stored is not None:
        spelling = name if method == "__call__" else f"{name}.{method}"
        return object_key(call, {spelling: (f"{class_name}.{method}", stored)})
    drawn = ctx.model.method_key_params(class_name, method)
    if drawn:
        record = ctx.model.functions.get(f"{class_name}.{method}")
        found = method_argument(call, record.node, drawn, maybe_none, ctx.model)
        if found is not None:
            return found
    return base(call)

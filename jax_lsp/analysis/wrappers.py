"""Functions of the module that transform the function they are given: whatever they wrap is
traced as their transformation says.

    def my_jit(f):                          # applies jit to its parameter
        return jax.jit(f)

    def jit_with(**options):                # a factory: the decorator it returns does
        def deco(f):
            return jax.jit(f, **options)
        return deco

    def jit_static(*names):                 # a factory returning a lambda
        return lambda f: jax.jit(f, static_argnames=names)

    def module_jit(meth):                   # jits a function that calls its parameter
        def fun(*args, **kwargs):
            return meth.__func__(*args, **kwargs)
        return jax.jit(fun)

A wrapper's parameter is bound by the sites that give it a function: `@my_jit`,
`@jit_with(static_argnames="n")`, `my_jit(step)`, `jit_with(...)(step)`. Each transformation the
wrapper applies to the parameter applies to every function bound to it, with the options the
site passes through `**options` or gives a parameter an option names (`static_argnames=names`
is `("n",)` at `@jit_static("n")`); a function traced inside the wrapper that calls the
parameter calls every function bound to it. Options passed through `**options` that the model
cannot read leave the function untraced, and an option naming what the site does not show
stays unread (a jitted function with unreadable static arguments has no parameter known
traced): a wrongly traced parameter costs more than a missed one.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import Protocol

from jax_lsp.analysis.document import Document, UnitSource
from jax_lsp.analysis.imports import Resolver
from jax_lsp.analysis.names import scope_bound_names, stored_names
from jax_lsp.analysis.nodes import all_params, contains, own_returns, positional_params, walk_nodes
from jax_lsp.analysis.summary import (
    Application,
    FunctionNode,
    FunctionRecord,
    FunctionRef,
    UnitSummary,
    function_ref_of,
    unit_summary,
)
from jax_lsp.analysis.traced import parameter_default_items
from jax_lsp.analysis.unit_memo import Keyed, per_unit


class WrapperInputs(Protocol):
    """What the wrappers read of the module's model (`ModuleModel` is one)."""

    document: Document
    summaries: list[UnitSummary]
    resolver: Resolver
    aliases: Keyed[Resolver]
    functions: dict[str, FunctionRecord]
    records: dict[FunctionNode, FunctionRecord]

    def resolve_ref(
        self, ref: FunctionRef, line: int | None = None, caller: FunctionNode | None = None
    ) -> tuple[FunctionNode, FunctionRef] | None: ...

    def resolve_transformed(
        self,
        ref: FunctionRef,
        line: int | None = None,
        caller: FunctionNode | None = None,
        class_method: str | None = None,
    ) -> tuple[FunctionNode, FunctionRef] | None: ...

    def enclosing_chain(self, node: ast.AST) -> list[FunctionNode]: ...


_UNBOUND_METHOD = ".__func__"


@dataclass(frozen=True)
class Binding:
    """A function given to a wrapper's parameter, and where."""

    ref: FunctionRef  # the function, as the site names it
    line: int  # the site's document line
    caller: FunctionNode | None  # the function holding the site (None: module level)
    # The calls of the wrapper (and of the factory that made it) at the site; a bare decorator
    # (`@my_jit`) calls it with the function alone.
    calls: tuple[tuple[FunctionNode, ast.Call], ...]


class Wrappers:
    """The module's transforming wrappers, the functions bound to their parameters, and the
    applications and calls these give."""

    def __init__(self, model: WrapperInputs, applications: list[tuple[Application, int]]) -> None:
        self._model = model
        # Transformations a wrapper applies to its parameter: (application, unit start, the
        # wrapper, the parameter).
        self.applied: list[tuple[Application, int, FunctionNode, str]] = []
        # Calls of a wrapper's parameter from a function nested in it: the wrapper, parameter.
        self._called: dict[ast.Call, tuple[FunctionNode, str]] = {}
        self.plain: list[tuple[Application, int]] = []  # the other applications
        # Applications inside functions to a function they name or define, by its name.
        self._nested_applications: dict[str, list[Application]] = {}
        # The function holding each wrapper that is a lambda (`lambda f: jax.jit(f)`).
        self._lambda_homes: dict[ast.Lambda, FunctionNode] = {}
        self._lambdas_by_param: dict[str, list[ast.Lambda]] | None = None
        for application, unit_start in applications:
            owner = self._applied_to_param(application)
            if owner is None:
                self.plain.append((application, unit_start))
                target = application.target
                if application.enclosing is not None and (
                    target.node is not None or "." not in target.name
                ):  # `jax.jit(fun)`, `@jax.jit def fun` inside a function
                    name = target.name.rpartition(".")[2]
                    self._nested_applications.setdefault(name, []).append(application)
            else:
                self.applied.append((application, unit_start, *owner))
        self._bindings: dict[tuple[FunctionNode, str], list[Binding]] = {}
        if not applications:
            # No transformation anywhere (most modules): no wrapper applies one, and no call
            # of a parameter runs in a function one transforms (`called`).
            return
        self._find_param_calls()
        owners = {owner for _, _, owner, _ in self.applied}
        owners |= {owner for owner, _ in self._called.values()}
        if owners:
            self._bind(owners)

    # -- what wrappers do with their parameters -------------------------------------------
    def _owner(self, name: str, function: FunctionNode | None) -> FunctionNode | None:
        """The function, `function` or one enclosing it, whose parameter `name` is."""
        return _param_owner(self._model.records, name, function)

    def _applied_to_param(self, application: Application) -> tuple[FunctionNode, str] | None:
        """`jax.jit(f)` where `f` is a parameter of the function applying it (or of one
        enclosing that)."""
        target = application.target
        if target.node is not None or "." in target.name or application.enclosing is None:
            return None
        owner = self._owner(target.name, application.enclosing)
        if owner is None:
            owner = self._lambda_owner(target.name, application)
            if owner is None:
                return None
            self._lambda_homes[owner] = application.enclosing
        if _maybe_untransformed(owner, target.name, application.node):
            return owner, ""  # a parameter it may leave alone: traced by nothing known
        return owner, target.name

    def _lambda_owner(self, name: str, application: Application) -> ast.Lambda | None:
        """The lambda of the applying function whose parameter `name` the application
        transforms (`lambda f: jax.jit(f, ...)`)."""
        if self._lambdas_by_param is None:
            found: dict[str, list[ast.Lambda]] = {}
            for summary in self._model.summaries:
                for node in summary.lambdas:
                    for param in all_params(node):
                        found.setdefault(param, []).append(node)
            self._lambdas_by_param = found
        for node in self._lambdas_by_param.get(name, ()):
            if contains(node, application.node):
                return node
        return None

    def _find_param_calls(self) -> None:
        """`meth(*args)` / `meth.__func__(*args)` in a function nested in the wrapper whose
        parameter `meth` is (a function the wrapper transforms: see `called`). Found once per
        unit text: they depend on nothing else."""
        for unit in self._model.document.units:
            if unit.tree is not None:
                self._called.update(_unit_param_calls(unit.source, self._model.aliases))

    # -- the functions bound to their parameters ------------------------------------------
    def _bind(self, owners: set[FunctionNode]) -> None:
        model = self._model
        # Factories: a function whose every return gives one wrapper defined in it.
        factories: dict[FunctionNode, FunctionNode] = {}
        for owner in owners:
            if type(owner) is ast.Lambda:
                parent = self._lambda_homes.get(owner)
                if isinstance(parent, ast.FunctionDef) and _returns_only(parent, owner):
                    factories[parent] = owner
                continue
            record = model.records.get(owner)
            parent = record.parent if record is not None else None
            if isinstance(parent, ast.FunctionDef) and _returns_only(parent, owner.name):
                factories[parent] = owner
        names = {node.name for node in [*owners, *factories] if type(node) is not ast.Lambda}
        units = model.document.parsed_units
        for unit, summary in zip(units, model.summaries, strict=True):
            for decorator, decorated, enclosing in summary.decorations:
                called = decorator.func if isinstance(decorator, ast.Call) else decorator
                if called.id not in names:
                    continue
                line = unit.start_line + decorator.lineno
                found = self._named_function(called.id, line, enclosing)
                ref = FunctionRef(model.records[decorated].path, (), decorated)
                if found in owners:  # `@my_jit`
                    self._bind_first(found, Binding(ref, line, enclosing, ()))
                elif found in factories and isinstance(decorator, ast.Call):
                    site = Binding(ref, line, enclosing, ((found, decorator),))
                    self._bind_first(factories[found], site)
            for call in summary.calls:
                head = call.callee.name.removesuffix(".__call__")
                if head not in names or "." in head:
                    continue
                line = unit.start_line + call.node.lineno
                if call.callee.name == head:  # `my_jit(step)`
                    found = self._named_function(head, line, call.caller)
                    if found in owners:
                        self._bind_call(found, call.node, line, call.caller, ())
                elif isinstance(call.node.func, ast.Call):  # `jit_with(...)(step)`
                    found = self._named_function(head, line, call.caller)
                    if found in factories:
                        made = ((found, call.node.func),)
                        self._bind_call(factories[found], call.node, line, call.caller, made)

    def _named_function(
        self, name: str, line: int, caller: FunctionNode | None
    ) -> FunctionNode | None:
        model = self._model
        found = model.resolve_ref(FunctionRef(name, _scopes(model, caller)), line, caller)
        return found[0] if found is not None else None

    def _bind_first(self, wrapper: FunctionNode, binding: Binding) -> None:
        positional = positional_params(wrapper)
        if positional:
            self._bindings.setdefault((wrapper, positional[0]), []).append(binding)

    def _bind_call(
        self,
        wrapper: FunctionNode,
        call: ast.Call,
        line: int,
        caller: FunctionNode | None,
        made: tuple[tuple[FunctionNode, ast.Call], ...],
    ) -> None:
        """The functions `wrapper(f, ...)` gives its parameters."""
        positional = positional_params(wrapper)
        passed = list(zip(positional, call.args, strict=False))
        passed += [(k.arg, k.value) for k in call.keywords if k.arg in all_params(wrapper)]
        for name, arg in passed:
            if isinstance(arg, ast.Starred):
                break
            ref = given_function(self._model, arg, caller)
            if ref is not None:
                binding = Binding(ref, line, caller, (*made, (wrapper, call)))
                self._bindings.setdefault((wrapper, name), []).append(binding)

    # -- what they give the trace ---------------------------------------------------------
    def applications(self) -> Iterator[tuple[Application, int]]:
        """Each transformation a wrapper applies, applied to each function bound to the
        parameter it transforms (with the options the binding site passes through)."""
        for application, unit_start, owner, param in self.applied:
            for binding in self._bindings.get((owner, param), ()):
                keywords = self._keywords(application, binding, owner)
                found = self._model.resolve_ref(binding.ref, binding.line, binding.caller)
                if keywords is None or found is None:
                    continue
                node, ref = found
                target = replace(ref, node=node)
                yield replace(application, target=target, keywords=keywords), unit_start

    def _keywords(
        self, application: Application, binding: Binding, wrapper: FunctionNode
    ) -> dict | None:
        """The application's options with those a `**options` parameter of the wrapper (or
        its factory) receives at the binding site; None when they cannot be read."""
        forwarded = application.forwarded
        if forwarded is None:
            return self._passed_options(application, binding, wrapper)
        owner = application.enclosing
        records = self._model.records
        while owner is not None:
            kwarg = owner.args.kwarg
            if kwarg is not None and kwarg.arg == forwarded:
                break
            record = records.get(owner)
            owner = record.parent if record is not None else None
        if owner is None:
            return None  # a dict of the wrapper's own, or unreadable
        call = dict(binding.calls).get(owner)
        if call is None:
            return application.keywords if not binding.calls else None  # `@my_jit`: none
        if any(keyword.arg is None for keyword in call.keywords):
            return None
        named = set(all_params(owner))
        extra = {k.arg: k.value for k in call.keywords if k.arg not in named}
        return {**self._passed_options(application, binding, wrapper), **extra}

    def _passed_options(
        self, application: Application, binding: Binding, wrapper: FunctionNode
    ) -> dict:
        """The application's options, each naming a parameter of the wrapper or its factory
        (`static_argnames=names`) replaced by what the binding site gives that parameter,
        where the site shows it; the others as they are written."""
        keywords = application.keywords
        if not any(type(value) is ast.Name for value in keywords.values()):
            return keywords
        # A lambda wrapper sits inside the applying function; a def wrapper is that function
        # or one enclosing it.
        chain: list[FunctionNode] = [wrapper] if type(wrapper) is ast.Lambda else []
        function: FunctionNode | None = application.enclosing
        records = self._model.records
        while function is not None:
            chain.append(function)
            record = records.get(function)
            function = record.parent if record is not None else None
        passed = dict(binding.calls)
        found = dict(keywords)
        for option, value in keywords.items():
            if type(value) is not ast.Name:
                continue
            owner = next((f for f in chain if value.id in all_params(f)), None)
            if owner is None or _rebinds(owner, value.id):
                continue
            call = passed.get(owner)
            if call is None and owner is not wrapper:
                continue  # a factory whose call the site does not show
            given = _argument(owner, value.id, call)
            if given is not None:
                found[option] = given
        return found

    def called(
        self, call: ast.Call, caller: FunctionNode, unit_start: int
    ) -> list[tuple[FunctionNode, FunctionRef]]:
        """The functions a call of a wrapper's parameter runs (`meth.__func__(module, *args)`
        runs the method bound to `meth`, `self` passed explicitly), when the wrapper itself
        transforms the function making the call: a closure returned to be transformed
        elsewhere (`make_loss(fn)`) may be made with many functions, traced or not. Sites
        that pass the wrapper more than the function (options its inner transformation may
        take) give nothing."""
        found = self._called.get(call)
        if found is None:
            return []
        owner, param = found
        if owner not in self._transforming(caller, unit_start):
            return []
        unbound = isinstance(call.func, ast.Attribute) and call.func.attr == "__func__"
        functions = []
        for binding in self._bindings.get((owner, param), ()):
            if any(not _only_named(wrapper, site) for wrapper, site in binding.calls):
                continue
            resolved = self._model.resolve_ref(binding.ref, binding.line, binding.caller)
            if resolved is None:
                continue
            node, ref = resolved
            if unbound:
                if ref.bound_positional < 1:
                    continue  # `__func__` of a function that is no bound method
                ref = replace(ref, bound_positional=ref.bound_positional - 1, bound_self=False)
            functions.append((node, ref))
        return functions

    def _transforming(self, function: FunctionNode, unit_start: int) -> list[FunctionNode]:
        """The functions (and those enclosing them) that apply a transformation to the
        nested `function`."""
        model = self._model
        found = []
        for application in self._nested_applications.get(function.name, ()):
            line = unit_start + application.node.lineno
            resolved = model.resolve_transformed(application.target, line, application.enclosing)
            if resolved is not None and resolved[0] is function:
                found += [*model.enclosing_chain(application.enclosing), application.enclosing]
        return found


def given_function(
    model: WrapperInputs, arg: ast.expr, caller: FunctionNode | None
) -> FunctionRef | None:
    """The function an argument of a call made in `caller` names (`step`, `self.update`,
    `partial(f, a)`); None for a value of the caller's own (a parameter, or a variable such
    as `fn = make_fn(...)`), which may hold any function."""
    if isinstance(arg, ast.Name) and _local_value(model, arg.id, caller):
        return None
    record = model.records.get(caller) if caller is not None else None
    class_name = record.class_name if record is not None else None
    return function_ref_of(arg, _scopes(model, caller), class_name, model.resolver)


def _local_value(model: WrapperInputs, name: str, caller: FunctionNode | None) -> bool:
    """`name` is a parameter or variable of the calling function, not a function it
    defines (`ntk_fn = make_fn(...)`, or a function it was given)."""
    if caller is None or name not in scope_bound_names(caller):
        return False
    record = model.records.get(caller)
    nested = model.functions.get(f"{record.path}.{name}") if record else None
    return nested is None or name in all_params(caller)


def _scopes(model: WrapperInputs, caller: FunctionNode | None) -> tuple[str, ...]:
    """The paths of `caller` and the functions enclosing it, outermost first."""
    if caller is None or caller not in model.records:
        return ()
    return tuple(model.records[node].path for node in [*model.enclosing_chain(caller), caller])


def _maybe_untransformed(owner: FunctionNode, param: str, applied: ast.AST) -> bool:
    """The wrapper may return its parameter as it is: the transformation sits in a branch
    (`jax.jit(f) if enabled else f`), or some path returns the parameter itself."""
    for node in walk_nodes(owner):
        if isinstance(node, ast.If | ast.IfExp):
            branches = [*_as_list(node.body), *_as_list(node.orelse)]
            if any(contains(branch, applied) for branch in branches):
                return True
        elif isinstance(node, ast.BoolOp):
            if any(contains(value, applied) for value in node.values[1:]):
                return True
        elif isinstance(node, ast.Match):
            if any(contains(case, applied) for case in node.cases):
                return True
        elif isinstance(node, ast.Return) and _is_name(node.value, param):
            return True
    return False


def _is_name(node: ast.expr | None, name: str) -> bool:
    return isinstance(node, ast.Name) and node.id == name


def _as_list(value: ast.AST | list) -> list:
    return value if isinstance(value, list) else [value]


def _returns_only(function: ast.FunctionDef, wrapper: str | ast.Lambda) -> bool:
    """Every return of `function` gives the wrapper: the def of that name, or the lambda."""
    returns = own_returns(function)
    if isinstance(wrapper, ast.Lambda):
        return bool(returns) and all(value is wrapper for value in returns)
    return bool(returns) and all(
        isinstance(value, ast.Name) and value.id == wrapper for value in returns
    )


def _rebinds(function: FunctionNode, name: str) -> bool:
    """The function's body may bind its parameter `name` anew."""
    body = function.body if isinstance(function.body, list) else [function.body]
    return any(name in stored_names(statement) for statement in body)


def _argument(function: FunctionNode, name: str, call: ast.Call | None) -> ast.expr | None:
    """What `call` of `function` gives its parameter `name` (None: the site does not show
    it): the argument, a tuple of those `*name` collects, or the parameter's default where
    the call leaves it out (with no call, a bare decorator: every default)."""
    args = function.args
    positional = positional_params(function)
    if call is not None:
        if any(isinstance(arg, ast.Starred) for arg in call.args) or any(
            keyword.arg is None for keyword in call.keywords
        ):
            return None
        if args.vararg is not None and name == args.vararg.arg:
            extra = call.args[len(positional) :]
            return ast.Tuple(elts=list(extra), ctx=ast.Load())
        if name in positional and positional.index(name) < len(call.args):
            return call.args[positional.index(name)]
        for keyword in call.keywords:
            if keyword.arg == name:
                return keyword.value
    elif args.vararg is not None and name == args.vararg.arg:
        return ast.Tuple(elts=[], ctx=ast.Load())
    return dict(parameter_default_items(function)).get(name)


def _only_named(wrapper: FunctionNode, call: ast.Call) -> bool:
    """The call passes the wrapper nothing beyond its named parameters."""
    positional = positional_params(wrapper)
    named = {*positional, *(a.arg for a in wrapper.args.kwonlyargs)}
    return (
        len(call.args) <= len(positional)
        and not any(isinstance(arg, ast.Starred) for arg in call.args)
        and all(keyword.arg in named for keyword in call.keywords)
    )


def _param_owner(
    records: dict[FunctionNode, FunctionRecord], name: str, function: FunctionNode | None
) -> FunctionNode | None:
    """The function, `function` or one enclosing it, whose parameter `name` is."""
    while function is not None:
        if name in all_params(function):
            return None if isinstance(function, ast.Lambda) else function
        record = records.get(function)
        function = record.parent if record is not None else None
    return None


@per_unit
def _unit_param_calls(
    source: UnitSource, aliases: Keyed[Resolver]
) -> tuple[tuple[ast.Call, tuple[FunctionNode, str]], ...]:
    """`meth(*args)` calls in a nested function of the unit, whose parameter `meth` is (of the
    function enclosing it): read from the unit's summary alone."""
    summary = unit_summary(source, aliases)
    records = {record.node: record for record in summary.functions}
    found = []
    for call in summary.calls:
        caller = call.caller
        record = records.get(caller) if caller is not None else None
        if record is None or record.parent is None:
            continue
        name = call.callee.name.removesuffix(_UNBOUND_METHOD)
        if "." in name or name in all_params(caller):
            continue
        owner = _param_owner(records, name, record.parent)
        if owner is not None:
            found.append((call.node, (owner, name)))
    return tuple(found)

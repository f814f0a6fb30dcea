"""How the trace follows what a traced function does: the functions its calls run
(`trace_call`), the properties and items it reads, the objects it constructs, the lambdas it
calls and the initializers its parameters get, each traced with the parameters it is given.
Reads the references and the objects; writes the trace through `Tracing.set_trace`."""

from __future__ import annotations

import ast
from dataclasses import replace

from jax_lsp.analysis.boolean_entries import passed_booleans
from jax_lsp.analysis.cached import cached_property
from jax_lsp.analysis.document import Unit, UnitSource
from jax_lsp.analysis.kinds import Kind
from jax_lsp.analysis.model_parts import ScopeKinds
from jax_lsp.analysis.model_view import ModelFact
from jax_lsp.analysis.nodes import (
    child_nodes,
    is_staticmethod,
    positional_params,
    rebound_names,
    walk_nodes,
    walk_once,
)
from jax_lsp.analysis.passed_values import (
    PassedValue,
    array_arguments,
    fixed_flags,
    names_bound_to_arrays,
)
from jax_lsp.analysis.pytrees import LINEN_MODULE
from jax_lsp.analysis.summary import CallSite, FunctionNode, FunctionRef
from jax_lsp.analysis.traced import (
    TraceInfo,
    TraceOrigin,
    all_params,
    array_function_params,
    call_site_containers,
    call_site_params,
    imported_default_params,
    literal_default_params,
    literal_flag_params,
    passed_arguments,
    python_value_params,
)
from jax_lsp.analysis.transforms import TREE_MAPS
from jax_lsp.analysis.unit_memo import per_unit
from jax_lsp.analysis.values import Instance, Object, Value, contains_traced

# Decorators making a method a property: reading the attribute runs it.
_PROPERTY_DECORATORS = frozenset({"builtins.property", "functools.cached_property"})
_JAX_KINDS = (Kind.TRACED, Kind.ARRAY)


class TraceSteps(ModelFact):
    """The steps of the trace's fixpoint (see the module docstring)."""

    @cached_property
    def _made_arrays(self) -> dict[FunctionNode, frozenset[str]]:
        """By traced caller, the names it binds only to arrays `jnp` makes (memo)."""
        return {}

    def _names_made_arrays(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> frozenset[str]:
        found = self._made_arrays.get(node)
        if found is None:
            qualname = self.model.resolver.qualname
            found = self._made_arrays[node] = names_bound_to_arrays(node, qualname)
        return found

    def param_initializers(self, node: FunctionNode) -> list[CallSite]:
        """`self.param(name, init_fn, *args)` in a traced method of a linen module, as the
        call of the initializer (a function of the module, named) flax makes: `init_fn(key,
        *args)`. Traced `init` runs it in the trace; `apply` (jitted or not) runs it too,
        abstractly, under `jax.eval_shape` with a key made there, to check the shape of the
        parameter it was given (flax's `Scope.param`): either way on a traced key."""
        positional = positional_params(node)
        record = self.model.records.get(node)
        if (
            not positional
            or record is None
            or record.class_name not in self.model.classes
            or LINEN_MODULE not in self.model.classes[record.class_name].bases
        ):
            return []
        found = []
        for call in walk_nodes(node):
            if (
                type(call) is ast.Call
                and type(call.func) is ast.Attribute
                and call.func.attr == "param"
                and type(call.func.value) is ast.Name
                and call.func.value.id == positional[0]
                and len(call.args) >= 2
                and type(call.args[1]) is ast.Name
                and not any(type(arg) is ast.Starred for arg in call.args)
            ):
                runs = ast.copy_location(ast.Call(call.args[1], call.args[2:], []), call)
                ref = FunctionRef(call.args[1].id, (), bound_positional=1)  # the key first
                found.append(CallSite(node, ref, runs))
        return found

    @cached_property
    def _properties(self) -> dict[str, frozenset[str]]:
        """Property name -> the classes of the module defining a property of that name
        (`@property def array(self)`): reading it runs the getter."""
        found: dict[str, set[str]] = {}
        for name, record in self.model.classes.items():
            for statement in record.node.body:
                if isinstance(statement, ast.FunctionDef) and any(
                    self.model.resolver.qualname(d) in _PROPERTY_DECORATORS
                    for d in statement.decorator_list
                ):
                    found.setdefault(statement.name, set()).add(name)
        return {name: frozenset(classes) for name, classes in found.items()}

    def property_reads(
        self, node: FunctionNode, scope: ScopeKinds
    ) -> list[tuple[ast.Attribute, CallSite]]:
        """Reads in `node` of a property of an object the trace built from tracers
        (`Rx(theta).array`), each as the call of its getter Python makes. Nothing in a
        module whose classes define no property (most)."""
        properties = self._properties
        if not properties:
            return []
        reads = self.model.tracing.property_named_reads.get(node)
        if reads is None:  # syntax: once per function (the trace visits it again and again)
            reads = self.model.tracing.property_named_reads[node] = [
                read
                for read in walk_nodes(node)
                if type(read) is ast.Attribute
                and type(read.ctx) is ast.Load
                and read.attr in properties
            ]
        found = []
        for read in reads:
            holder = scope.values.get(read.value)
            if type(holder) is not Object or holder.class_name not in properties[read.attr]:
                continue
            getter = ast.copy_location(ast.Call(read, [], []), read)
            ref = FunctionRef(f"{holder.class_name}.{read.attr}", (), bound_positional=1)
            found.append((read, CallSite(node, ref, getter)))
        return found

    def item_reads(
        self, units: list[Unit]
    ) -> dict[FunctionNode | None, list[tuple[str, ast.Subscript, int]]]:
        """`obj[index]` read in each function, with the first line of its unit: where `obj` is
        an instance of a class of the module that defines `__getitem__`, Python runs that
        method there (`d[mask]` of a distribution class). Nothing in a module with no such
        method (most), which pays nothing more."""
        if not any(
            f"{name}.__getitem__" in self.model.tracing.definitions for name in self.model.classes
        ):
            return {}
        found: dict[FunctionNode | None, list[tuple[str, ast.Subscript, int]]] = {}
        for unit, summary in zip(units, self.model.summaries, strict=True):
            for caller, name, read in summary.item_reads:
                found.setdefault(caller, []).append((name, read, unit.start_line))
        return found

    def trace_construction(
        self, node: FunctionNode, info: TraceInfo, scope: ScopeKinds, call: CallSite, start: int
    ) -> list[FunctionNode]:
        """`Cls(m=m, a=a)` of a class of the module in traced code: its `__init__` runs in
        the trace, given what the call passes; given a tracer, the checks a generated
        constructor runs after it (a dataclass's `__post_init__`, an `eqx.Module`'s
        `__check_init__`) see fields holding tracers. The methods whose trace changed."""
        class_name, line = call.callee.name, start + call.node.lineno
        changed: list[FunctionNode] = []
        init = self.model.references.definition(f"{class_name}.__init__", line)
        if init is not None and not isinstance(init, ast.Lambda):
            ref = replace(call.callee, bound_positional=call.callee.bound_positional + 1)
            if self.trace_call(node, info, scope, call, init, ref, start):
                changed.append(init)
        arguments = [*call.node.args, *(keyword.value for keyword in call.node.keywords)]
        if init is not None or not any(scope.kinds.get(a) is Kind.TRACED for a in arguments):
            return changed
        for hook in ("__post_init__", "__check_init__"):
            method = self.model.references.definition(f"{class_name}.{hook}", line)
            if method is None or isinstance(method, ast.Lambda):
                continue
            positional = positional_params(method)
            if not positional:
                continue
            checked = TraceInfo(
                f"called from {self.model.scopes.display_name(node)}",
                info.abstract,
                frozenset(positional[:1]),
                frozenset(),
                False,
                TraceOrigin(call.node, start, node, called=True),
                eager=info.eager,
            )
            if self.model.tracing.set_trace(method, checked, call.node):
                changed.append(method)
        return changed

    def trace_lambda_calls(
        self,
        node: ast.Lambda,
        info: TraceInfo,
        calls_by_caller: dict[ast.AST | None, list[tuple[CallSite, int]]],
        sources: dict[int, UnitSource],
    ) -> list[FunctionNode]:
        """Trace the functions the traced lambda `node` calls; those whose trace changed."""
        home = self.model.tracing.lambda_homes.get(node)
        if home is None:
            return []  # traced inside a traced function: its calls are that function's
        enclosing, lambda_start = home
        inside = {id(sub) for sub in walk_once(node.body) if type(sub) is ast.Call}
        sites = [
            (call, unit_start)
            for call, unit_start in calls_by_caller.get(enclosing, [])
            if unit_start == lambda_start and id(call.node) in inside
        ]
        if not sites:
            return []
        if enclosing is None:
            scope = ScopeKinds(self.model.module_globals.module_kinds(sources[lambda_start]), {})
        else:
            scope = self.model.scopes.scope_kinds(enclosing)
        changed = []
        for call, unit_start in sites:
            line = unit_start + call.node.lineno
            found = self.model.references.resolve_ref(call.callee, line, enclosing)
            if found and self.trace_call(node, info, scope, call, *found, unit_start):
                changed.append(found[0])
        return changed

    def _module_lambda(self, node: ast.Lambda) -> bool:
        """A lambda bound at module level that traced code calls by a name (`model.apply`
        of `model = hk.transform(lambda x: Net()(x))`): it runs in the caller's trace, and
        the functions it calls with it. Its home is its own unit, at module level."""
        written = self.model.tracing.lambda_units.get(node)
        if written is None or node not in _module_level_lambdas(written[1]):
            return False
        start, source = written
        self.model._source_of.setdefault(node, source)
        self.model.tracing.lambda_homes.setdefault(node, (None, start))
        return True

    def trace_call(
        self,
        node: FunctionNode,
        info: TraceInfo,
        scope: ScopeKinds,
        call: CallSite,
        callee: FunctionNode,
        ref: FunctionRef,
        unit_start: int,
        given_tracers: frozenset[str] = frozenset(),
    ) -> bool:
        """Trace `callee` as the traced `node` calls it (`given_tracers`: parameters it gives
        tracers beyond the arguments); True if its trace changed."""
        if callee is node or (isinstance(callee, ast.Lambda) and not self._module_lambda(callee)):
            return False
        if self._on_module_object(call.callee, node):
            self.model.tracing.module_object_methods.add(callee)
        # A container of tracers passed on (`f((n, n))`, `tree_map(f, tree)`).
        leaves = self.model.resolver.qualname(call.node.func) in TREE_MAPS
        in_containers, containers = call_site_containers(
            callee, call.node, scope.values, ref, leaves
        )
        receiver = self._object_receiver(callee, ref, call.node.func, scope)
        if receiver is not None:
            in_containers |= {receiver[0]}
            containers |= {receiver}
        statics = python_value_params(callee, call.node, scope.kinds, ref)
        own_defaults = literal_default_params(node) if not isinstance(node, ast.Lambda) else ()
        given = frozenset(
            name
            for name, argument in passed_arguments(callee, call.node, ref)
            if scope.kinds.get(argument) is Kind.TRACED
            and not (isinstance(argument, ast.Name) and argument.id in own_defaults)
        )
        if given - self.model.tracing.given_tracers.get(callee, frozenset()):
            self.model.tracing.given_tracers[callee] = (
                self.model.tracing.given_tracers.get(callee, frozenset()) | given
            )
        new = TraceInfo(
            f"called from {self.model.scopes.display_name(node)}",
            info.abstract,
            call_site_params(callee, call.node, scope.kinds, ref)
            | in_containers
            | given_tracers
            | self.traced_receiver(callee, ref, call.node.func, scope),
            statics,
            False,
            TraceOrigin(call.node, unit_start, node, called=True),
            containers,
            info.eager,
            module_defaults=self._imported_defaults(callee, call.node, ref),
            literals=self._passed_values(node, info, scope, callee, call.node, ref),
            array_functions=self._array_functions(callee, call.node, ref),
            boolean_params=passed_booleans(
                self.model, callee, call.node, ref, node, info.boolean_params
            ),
            all_leaves=self._leaves_passed(node, info, callee, call.node, ref),
            differentiated=info.differentiated,
            differentiated_abstractly=info.differentiated_abstractly,
        )
        return self.model.tracing.set_trace(callee, new, call.node)

    def _caller_flags(self, node: FunctionNode, info: TraceInfo) -> dict[str, PassedValue]:
        """The values every trace of the traced caller `node` gives its parameters, which its
        calls pass on (`clip=force_positivity`)."""
        if not info.literals or isinstance(node, ast.Lambda):
            return {}
        return fixed_flags(info.literals, self._rebound(node))

    def _rebound(self, node: FunctionNode) -> frozenset[str]:
        rebound = self.model.scopes.rebound.get(node)
        if rebound is None:
            rebound = self.model.scopes.rebound[node] = rebound_names(node)
        return rebound

    def _passed_values(
        self,
        node: FunctionNode,
        info: TraceInfo,
        scope: ScopeKinds,
        callee: FunctionNode,
        call: ast.Call,
        ref: FunctionRef,
    ) -> frozenset[tuple[str, PassedValue]]:
        """What the traced call gives the parameters of `callee` (`passed_values`)."""
        constants = literal_flag_params(callee, call, ref, self._caller_flags(node, info))
        if isinstance(node, ast.Lambda):
            return constants
        given = {name for name, _ in constants}
        qualname = self.model.resolver.qualname
        arrays = array_arguments(
            [(name, arg) for name, arg in passed_arguments(callee, call, ref) if name not in given],
            lambda argument: scope.kinds.get(argument) in _JAX_KINDS,
            lambda: self._names_made_arrays(node),
            qualname,
        )
        return constants | arrays

    def _leaves_passed(
        self,
        node: FunctionNode,
        info: TraceInfo,
        callee: FunctionNode,
        call: ast.Call,
        ref: FunctionRef,
    ) -> frozenset[str]:
        """Parameters of `callee` given, as it is, a parameter of the traced `node` each of
        whose leaves is a tracer (`batch` of a jitted step passed on to a helper): the
        helper's parameter is such a pytree too."""
        if not info.all_leaves or isinstance(node, ast.Lambda):
            return frozenset()
        rebound = self._rebound(node)
        return frozenset(
            name
            for name, argument in passed_arguments(callee, call, ref)
            if type(argument) is ast.Name
            and argument.id in info.all_leaves
            and argument.id not in rebound
        )

    def _imported_defaults(
        self, callee: FunctionNode, call: ast.Call, ref: FunctionRef
    ) -> frozenset[tuple[str, str]]:
        """`imported_default_params` of a function defined at module level or in a class
        body (its defaults see the module's imports, not an enclosing function's names),
        but for parameters it rebinds (`xp = array_namespace(x)`)."""
        record = self.model.records.get(callee)
        if record is None or record.parent is not None or isinstance(callee, ast.Lambda):
            return frozenset()
        found = imported_default_params(callee, call, ref, self.model.resolver.qualname)
        if not found:
            return found
        rebound = rebound_names(callee)
        return frozenset((name, qualname) for name, qualname in found if name not in rebound)

    def _array_functions(
        self, callee: FunctionNode, call: ast.Call, ref: FunctionRef
    ) -> frozenset[str]:
        """`array_function_params` of a function defined at module level or in a class body
        (its defaults see the module's imports), but for parameters it rebinds."""
        if isinstance(callee, ast.Lambda):
            return frozenset()
        qualname = self.model.resolver.qualname
        foreign = self.model.references.foreign_nodes.get(callee)
        if foreign is not None:  # its module judges the defaults left (`_seed_incoming`)
            found = array_function_params(callee, call, ref, qualname, any_default=True)
            return found - rebound_names(callee) if found else found
        record = self.model.records.get(callee)
        if record is None or record.parent is not None:
            return frozenset()
        found = array_function_params(callee, call, ref, qualname)
        return found - rebound_names(callee) if found else found

    def _on_module_object(self, ref: FunctionRef, caller: FunctionNode) -> bool:
        """Does the call `ref` run a method of a module-level instance (not shadowed in the
        calling function)?"""
        owner, dot, _ = ref.name.partition(".")
        return (
            bool(dot)
            and ref.owner_class is None
            and owner in self.model.objects.instances
            and owner not in self.model.objects.classes_in(caller)
            and owner not in all_params(caller)
        )

    def _object_receiver(
        self, callee: FunctionNode, ref: FunctionRef, func: ast.expr, scope: ScopeKinds
    ) -> tuple[str, Value] | None:
        """`self` of a method run on an object the trace built from tracers (`Term(q).psd(w)`,
        a property of it read), with the object: its attributes hold the tracers."""
        record = self.model.records.get(callee)
        if (
            record is None
            or record.class_name is None
            or ref.bound_positional < 1
            or ref.leading_args
            or not isinstance(func, ast.Attribute)
            or func.attr != callee.name
            or is_staticmethod(callee)
        ):
            return None
        value = scope.values.get(func.value)
        if type(value) is not Object or not contains_traced(value):
            return None
        if value.class_name != record.class_name:
            return None  # a method the class inherits sees the same attributes, but not here
        positional = positional_params(callee)
        return (positional[0], value) if positional else None

    def traced_receiver(
        self, callee: FunctionNode, ref: FunctionRef, func: ast.expr | None, scope: ScopeKinds
    ) -> frozenset[str]:
        """`self` of a method run on a traced object (`model(x)`, `model.encode(x)`,
        `self.layer(x)`, `jax.vmap(model)`), whose leaves are tracers there: `func` is the
        callable expression."""
        record = self.model.records.get(callee)
        if record is not None:
            method = record.class_name is not None
        else:  # a method of a class of another module
            method = (
                callee in self.model.references.foreign_nodes
                and self.model.references.foreign_nodes[callee].method
            )
        if not method or ref.bound_positional < 1:
            return frozenset()
        if ref.leading_args:  # a linen module's `apply`: its `self` holds configuration
            return frozenset()
        receiver = func
        if isinstance(func, ast.Attribute) and func.attr in (callee.name, "apply"):
            receiver = func.value  # a method of the object; else the object is called
        if not isinstance(receiver, ast.Name | ast.Attribute):
            return frozenset()
        traced = scope.kinds.get(receiver) is Kind.TRACED
        if not traced and isinstance(receiver, ast.Attribute):
            # An object held by a traced PyTree object is traced, unless a static field holds it.
            base = scope.values.get(receiver.value)
            traced = type(base) is Instance and base.attribute(receiver.attr) is not Kind.STATIC
        return frozenset(positional_params(callee)[:1]) if traced else frozenset()


@per_unit
def _module_level_lambdas(source: UnitSource) -> frozenset[ast.Lambda]:
    """The lambdas of a unit outside any function or class (`f = lambda x: ...`,
    `hk.transform(lambda x: ...)`), memoised on its parse."""
    lambdas: set[ast.Lambda] = set()
    pending: list[ast.AST] = list(source.tree.body) if source.tree is not None else []
    while pending:
        node = pending.pop()
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            continue
        if isinstance(node, ast.Lambda):
            lambdas.add(node)
            continue  # a lambda inside it belongs to it
        pending.extend(child_nodes(node))
    return frozenset(lambdas)

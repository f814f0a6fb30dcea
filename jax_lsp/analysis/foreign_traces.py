"""The traces this module gives functions of other workspace modules (`outgoing_traces`):
the fixpoint replayed with the other modules' definitions resolvable, on copies of the
model's state so that the module's own facts never depend on other modules' code."""

from __future__ import annotations

import ast
from collections.abc import Callable, Hashable
from dataclasses import replace
from functools import cached_property

from jax_lsp.analysis.crossing import (
    NO_FOREIGN,
    ForeignDefinitions,
    ForeignFunction,
    ForeignStep,
    IncomingTrace,
)
from jax_lsp.analysis.document import Unit, UnitSource
from jax_lsp.analysis.kinds import Kind
from jax_lsp.analysis.model_parts import (
    ScopeKinds,
)
from jax_lsp.analysis.model_view import ModelFact, ModelView
from jax_lsp.analysis.names import binds_locally
from jax_lsp.analysis.nodes import (
    is_staticmethod,
    positional_params,
    rebound_names,
    walk_nodes,
)
from jax_lsp.analysis.pytrees import LINEN_MODULE
from jax_lsp.analysis.summary import (
    Application,
    CallSite,
    FunctionNode,
    FunctionRef,
)
from jax_lsp.analysis.text import document_span
from jax_lsp.analysis.traced import (
    TraceInfo,
    TraceOrigin,
    TraceStep,
    all_params,
    array_function_params,
    call_site_containers,
    call_site_params,
    imported_default_params,
    literal_default_params,
    literal_flag_params,
    passed_arguments,
    python_value_params,
    transform_name,
)
from jax_lsp.analysis.transforms import (
    OPTAX_UPDATE_FUNCTION,
    TREE_MAPS,
)
from jax_lsp.analysis.values import (
    Instance,
    Object,
    Value,
    contains_traced,
)

# Decorators making a method a property: reading the attribute runs it.
_PROPERTY_DECORATORS = frozenset({"builtins.property", "functools.cached_property"})


class ForeignTraces(ModelFact):
    """What this module's traced code traces in other modules (see the module docstring)."""

    def __init__(self, model: ModelView) -> None:
        super().__init__(model)

    def outgoing_traces(
        self, foreign: ForeignDefinitions
    ) -> tuple[tuple[ForeignFunction, IncomingTrace], ...]:
        """The traces this module gives functions of other modules (`foreign` names them): a
        transformation applied to one (`jax.jit(env.step)`), a call of one in traced code
        (`clip(grads)`), a property of an imported class read there; each with why it is
        traced here (the site, then the chain that traces its caller). The module's own
        trace is left as it was: the other functions are their modules' to analyse."""
        if foreign is NO_FOREIGN:
            return ()
        known = self._outgoing.get(foreign.key)
        if known is None:
            known = self._outgoing[foreign.key] = self._compute_outgoing(foreign)
        return known

    @cached_property
    def _outgoing(self) -> dict[Hashable, tuple]:
        return {}

    def _compute_outgoing(
        self, foreign: ForeignDefinitions
    ) -> tuple[tuple[ForeignFunction, IncomingTrace], ...]:
        # The pass works on copies of the model's state: what it learns with the other
        # modules' classes known (objects of imported classes, their methods' traces) must
        # not reach the module's own facts, which never depend on other modules' code.
        holders = self.model.state_holders()
        saved = [dict(holder.__dict__) for holder in holders]
        for holder, own in zip(holders, saved, strict=True):
            for name, value in own.items():
                if type(value) is dict:
                    holder.__dict__[name] = dict(value)
        for memo in ("_constructed", "passed_classes"):
            self.model.objects.__dict__.pop(memo, None)
        for memo in ("_foreign_instances", "_foreign_attribute_classes"):
            self.model.references.__dict__.pop(memo, None)
        (
            self.model.objects._param_classes,
            self.model.objects._objects,
            self.model.scopes._contexts,
        ) = {}, {}, {}
        # Scopes settled by the rules were read without the imported classes known, and the
        # trace grows again here.
        self.model.scopes._settled_scopes = None
        self.model._foreign = foreign
        try:
            # Objects of imported classes, found with the other modules' classes known.
            self.model.objects._constructed, self.model.objects.passed_classes  # noqa: B018
            self._trace_into_foreign()
            found = self._foreign_traces()
        finally:
            for holder, own in zip(holders, saved, strict=True):
                holder.__dict__.clear()
                holder.__dict__.update(own)
        return found

    def _trace_into_foreign(self) -> None:
        """Replay, with other modules' definitions resolvable, the steps of the fixpoint that
        found nothing in the module: transformations of a name it cannot resolve, and the
        calls and property reads of its traced functions."""
        units = [unit for unit in self.model.document.units if unit.tree is not None]
        # With imported classes known, more parameters hold an object a transformation runs.
        applications = list(self.model.tracing._trace_applications)
        applications += [
            item
            for item in self.model.tracing._applied_to_instances(
                self.model.tracing._wrapper_applied
            )
            if item not in applications
        ]
        for application, unit_start in applications:
            line = unit_start + application.node.lineno
            if self._local_ref(application.target, line, application.enclosing) is None:
                self._replayed(self.model.tracing._apply, application, unit_start)
        calls_by_caller: dict[ast.AST | None, list[tuple[CallSite, int]]] = {}
        for unit, summary in zip(units, self.model.summaries, strict=True):
            for call in summary.calls:
                calls_by_caller.setdefault(call.caller, []).append((call, unit.start_line))
        sources = {unit.start_line: unit.source for unit in units}
        unit_starts = {id(unit.source): unit.start_line for unit in units}
        applied_in: dict[ast.AST | None, list[tuple[Application, int]]] = {}
        for application, unit_start in applications:
            applied_in.setdefault(application.enclosing, []).append((application, unit_start))
        for node, info in list(self.model.tracing.trace.items()):
            if node in self.model.references._foreign_nodes:
                continue
            if isinstance(node, ast.Lambda):
                self._replayed(self._trace_lambda_calls, node, info, calls_by_caller, sources)
                continue
            scope = self._replayed(self.model.scopes.scope_kinds, node)
            if scope is None:
                continue
            for application, unit_start in applied_in.get(node, []):
                line = unit_start + application.node.lineno
                if self._local_ref(application.target, line, node) is None:
                    self._replayed(
                        self.model.tracing._trace_application_in,
                        node,
                        info,
                        scope,
                        application,
                        unit_start,
                    )
            for call, unit_start in calls_by_caller.get(node, []):
                line = unit_start + call.node.lineno
                if self._local_ref(call.callee, line, node) is not None:
                    continue
                found = self._replayed(self.model.references.resolve_ref, call.callee, line, node)
                if found is not None:
                    self._replayed(self._trace_call, node, info, scope, call, *found, unit_start)
            start = unit_starts.get(id(self.model._source_of.get(node)), 0)
            for call in self.model.references._foreign_property_reads(node):
                found = self._replayed(
                    self.model.references.resolve_ref, call.callee, start + call.node.lineno, node
                )
                if found is not None:
                    self._replayed(self._trace_call, node, info, scope, call, *found, start)

    @staticmethod
    def _replayed(step: Callable, *args: object) -> object:
        """One step of `_trace_into_foreign`. The model's facts were built for its own
        classes; one that meets an imported class it cannot read gives up that step (the
        trace it would have found), never the module's analysis."""
        try:
            return step(*args)
        except (KeyError, AttributeError, TypeError, ValueError, RecursionError):
            return None

    def _local_ref(
        self, ref: FunctionRef, line: int, caller: FunctionNode | None
    ) -> tuple[FunctionNode, FunctionRef] | None:
        """`resolve_ref` within the module's own definitions."""
        foreign, self.model._foreign = self.model._foreign, NO_FOREIGN
        try:
            return self.model.references.resolve_ref(ref, line, caller)
        finally:
            self.model._foreign = foreign

    def _foreign_traces(self) -> tuple[tuple[ForeignFunction, IncomingTrace], ...]:
        """The traces of other modules' functions, each with why it is traced here."""
        path = self.model.document.path
        lines = self.model.document.lines
        outgoing = []
        for node, info in self.model.tracing.trace.items():
            function = self.model.references._foreign_nodes.get(node)
            if function is None:
                continue
            origin = info.origin
            steps: tuple[ForeignStep, ...] = ()
            if origin is not None and origin.node is not None:
                caller = origin.caller
                here = ForeignStep(
                    function.path,
                    None if origin.called else transform_name(info.via),
                    self.model.scopes._display_name(caller) if caller is not None else None,
                    path,
                    document_span(lines, origin.unit_start, origin.node),
                )
                chain = (
                    self.model.scopes.explain(caller)
                    if caller is not None and caller in self.model.tracing.trace
                    else ()
                )
                steps = (here, *(self._foreign_step(step, lines) for step in chain))
            seed = IncomingTrace(
                function.path,
                info.via,
                info.abstract,
                info.direct,
                info.traced_params,
                info.static_params,
                steps,
                info.all_leaves,
                info.module_defaults,
                info.literals,
                array_functions=info.array_functions,
            )
            outgoing.append((function, seed))
        outgoing += self._optimizer_update_traces()
        return tuple(outgoing)

    def _optimizer_update_traces(self) -> list[tuple[ForeignFunction, IncomingTrace]]:
        """The imported functions that made the optimizers whose `update` the module's
        traced code runs (`tx = make_optimizer(lr)` at module level, then `tx.update(grads,
        state)` under `jax.jit`): optax runs the update functions and schedules they give it
        in that trace."""
        found = []
        lines = self.model.document.lines
        units = [unit for unit in self.model.document.units if unit.tree is not None]
        for unit, summary in zip(units, self.model.summaries, strict=True):
            for function, call in summary.optimizer_updates:
                info = self.model.tracing.trace.get(function)
                receiver = call.func.value  # type: ignore[attr-defined]
                if info is None or type(receiver) is not ast.Name:
                    continue
                # Bound once at module level (its `update` calls count as mutations of it).
                made = self.model.module_globals._top_level_values.get(receiver.id, ())
                if len(made) != 1 or type(made[0]) is not ast.Call:
                    continue
                if binds_locally(receiver.id, function):
                    continue
                maker = self._foreign_function(made[0].func)
                if maker is None:
                    continue
                here = ForeignStep(
                    maker.path,
                    transform_name(OPTAX_UPDATE_FUNCTION.label),
                    self.model.scopes._display_name(function),
                    self.model.document.path,
                    document_span(lines, unit.start_line, call),
                )
                chain = (
                    self._foreign_step(step, lines) for step in self.model.scopes.explain(function)
                )
                seed = IncomingTrace(
                    maker.path,
                    OPTAX_UPDATE_FUNCTION.label,
                    info.abstract,
                    True,
                    frozenset(),
                    frozenset(),
                    (here, *chain),
                    runs_updates=True,
                )
                found.append((maker, seed))
        return found

    def _foreign_function(self, func: ast.expr) -> ForeignFunction | None:
        """The function of another workspace module that `func` names (`make_optimizer`,
        `optim.make_optimizer`), not rebound here."""
        if type(func) is ast.Name and func.id not in self.model.functions:
            found = self.model._foreign.function(func.id)
        elif type(func) is ast.Attribute and type(func.value) is ast.Name:
            found = self.model._foreign.member(func.value.id, func.attr)
        else:
            return None
        return found if found is not None and found.node is not None else None

    def _foreign_step(self, step: TraceStep, lines: list[str]) -> ForeignStep:
        """A link of this module's explanation, as another module shows it."""
        if step.file is not None and step.span is not None:
            return ForeignStep(step.function, step.label, step.caller, step.file, step.span)
        span = document_span(lines, step.unit_start, step.site)
        return ForeignStep(step.function, step.label, step.caller, self.model.document.path, span)

    def _param_initializers(self, node: FunctionNode) -> list[CallSite]:
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

    def _property_reads(
        self, node: FunctionNode, scope: ScopeKinds
    ) -> list[tuple[ast.Attribute, CallSite]]:
        """Reads in `node` of a property of an object the trace built from tracers
        (`Rx(theta).array`), each as the call of its getter Python makes. Nothing in a
        module whose classes define no property (most)."""
        properties = self._properties
        if not properties:
            return []
        reads = self.model.tracing._property_named_reads.get(node)
        if reads is None:  # syntax: once per function (the trace visits it again and again)
            reads = self.model.tracing._property_named_reads[node] = [
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

    def _item_reads(
        self, units: list[Unit]
    ) -> dict[FunctionNode | None, list[tuple[str, ast.Subscript, int]]]:
        """`obj[index]` read in each function, with the first line of its unit: where `obj` is
        an instance of a class of the module that defines `__getitem__`, Python runs that
        method there (`d[mask]` of a distribution class). Nothing in a module with no such
        method (most), which pays nothing more."""
        if not any(
            f"{name}.__getitem__" in self.model.tracing._definitions for name in self.model.classes
        ):
            return {}
        found: dict[FunctionNode | None, list[tuple[str, ast.Subscript, int]]] = {}
        for unit, summary in zip(units, self.model.summaries, strict=True):
            for caller, name, read in summary.item_reads:
                found.setdefault(caller, []).append((name, read, unit.start_line))
        return found

    def _trace_construction(
        self, node: FunctionNode, info: TraceInfo, scope: ScopeKinds, call: CallSite, start: int
    ) -> list[FunctionNode]:
        """`Cls(m=m, a=a)` of a class of the module in traced code: its `__init__` runs in
        the trace, given what the call passes; given a tracer, the checks a generated
        constructor runs after it (a dataclass's `__post_init__`, an `eqx.Module`'s
        `__check_init__`) see fields holding tracers. The methods whose trace changed."""
        class_name, line = call.callee.name, start + call.node.lineno
        changed: list[FunctionNode] = []
        init = self.model.references._definition(f"{class_name}.__init__", line)
        if init is not None and not isinstance(init, ast.Lambda):
            ref = replace(call.callee, bound_positional=call.callee.bound_positional + 1)
            if self._trace_call(node, info, scope, call, init, ref, start):
                changed.append(init)
        arguments = [*call.node.args, *(keyword.value for keyword in call.node.keywords)]
        if init is not None or not any(scope.kinds.get(a) is Kind.TRACED for a in arguments):
            return changed
        for hook in ("__post_init__", "__check_init__"):
            method = self.model.references._definition(f"{class_name}.{hook}", line)
            if method is None or isinstance(method, ast.Lambda):
                continue
            positional = positional_params(method)
            if not positional:
                continue
            checked = TraceInfo(
                f"called from {self.model.scopes._display_name(node)}",
                info.abstract,
                frozenset(positional[:1]),
                frozenset(),
                False,
                TraceOrigin(call.node, start, node, called=True),
                eager=info.eager,
            )
            if self.model.tracing._set_trace(method, checked, call.node):
                changed.append(method)
        return changed

    def _trace_lambda_calls(
        self,
        node: ast.Lambda,
        info: TraceInfo,
        calls_by_caller: dict[ast.AST | None, list[tuple[CallSite, int]]],
        sources: dict[int, UnitSource],
    ) -> list[FunctionNode]:
        """Trace the functions the traced lambda `node` calls; those whose trace changed."""
        home = self.model.tracing._lambda_homes.get(node)
        if home is None:
            return []  # traced inside a traced function: its calls are that function's
        enclosing, lambda_start = home
        inside = {id(sub) for sub in ast.walk(node.body) if type(sub) is ast.Call}
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
            if found and self._trace_call(node, info, scope, call, *found, unit_start):
                changed.append(found[0])
        return changed

    def _module_lambda(self, node: ast.Lambda) -> bool:
        """A lambda bound at module level that traced code calls by a name (`model.apply`
        of `model = hk.transform(lambda x: Net()(x))`): it runs in the caller's trace, and
        the functions it calls with it. Its home is its own unit, at module level."""
        written = self.model.tracing._lambda_units.get(node)
        if written is None or node not in _module_level_lambdas(written[1]):
            return False
        start, source = written
        self.model._source_of.setdefault(node, source)
        self.model.tracing._lambda_homes.setdefault(node, (None, start))
        return True

    def _trace_call(
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
        if given - self.model.tracing._given_tracers.get(callee, frozenset()):
            self.model.tracing._given_tracers[callee] = (
                self.model.tracing._given_tracers.get(callee, frozenset()) | given
            )
        new = TraceInfo(
            f"called from {self.model.scopes._display_name(node)}",
            info.abstract,
            call_site_params(callee, call.node, scope.kinds, ref)
            | in_containers
            | given_tracers
            | self._traced_receiver(callee, ref, call.node.func, scope),
            statics,
            False,
            TraceOrigin(call.node, unit_start, node, called=True),
            containers,
            info.eager,
            module_defaults=self._imported_defaults(callee, call.node, ref),
            literals=literal_flag_params(callee, call.node, ref),
            array_functions=self._array_functions(callee, call.node, ref),
            all_leaves=self._leaves_passed(node, info, callee, call.node, ref),
        )
        return self.model.tracing._set_trace(callee, new, call.node)

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
        rebound = self.model.scopes._rebound.get(node)
        if rebound is None:
            rebound = self.model.scopes._rebound[node] = rebound_names(node)
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
        foreign = self.model.references._foreign_nodes.get(callee)
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

    def _traced_receiver(
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
                callee in self.model.references._foreign_nodes
                and self.model.references._foreign_nodes[callee].method
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


def _module_level_lambdas(source: UnitSource) -> frozenset[ast.Lambda]:
    """The lambdas of a unit outside any function or class (`f = lambda x: ...`,
    `hk.transform(lambda x: ...)`), memoised on its parse."""
    found = source.memo.get("module-level-lambdas")
    if found is None:
        lambdas: set[ast.Lambda] = set()
        pending: list[ast.AST] = list(source.tree.body) if source.tree is not None else []
        while pending:
            node = pending.pop()
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                continue
            if isinstance(node, ast.Lambda):
                lambdas.add(node)
                continue  # a lambda inside it belongs to it
            pending.extend(ast.iter_child_nodes(node))
        found = source.memo["module-level-lambdas"] = frozenset(lambdas)
    return found

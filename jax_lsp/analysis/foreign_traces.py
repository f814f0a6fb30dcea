"""The traces this module gives functions of other workspace modules (`outgoing_traces`):
the fixpoint replayed with the other modules' definitions resolvable, on copies of the
model's state so that the module's own facts never depend on other modules' code."""

from __future__ import annotations

import ast
from collections.abc import Callable, Hashable
from dataclasses import replace

from jax_lsp.analysis.boolean_args import CallerScope
from jax_lsp.analysis.boolean_entries import boolean_keys, passed_booleans
from jax_lsp.analysis.booleans import is_boolean
from jax_lsp.analysis.cached import cached_property
from jax_lsp.analysis.crossing import (
    NO_FOREIGN,
    ForeignDefinitions,
    ForeignFunction,
    ForeignStep,
    IncomingTrace,
)
from jax_lsp.analysis.imported_globals import (
    ImportedNames,
    changed_after,
    may_store_elsewhere,
)
from jax_lsp.analysis.model_view import ModelFact
from jax_lsp.analysis.names import binds_locally
from jax_lsp.analysis.summary import Application, CallSite, FunctionNode, FunctionRef
from jax_lsp.analysis.text import document_span
from jax_lsp.analysis.traced import TraceStep, transform_name
from jax_lsp.analysis.transforms import OPTAX_UPDATE_FUNCTION, ParamPolicy


class ForeignTraces(ModelFact):
    """What this module's traced code traces in other modules (see the module docstring)."""

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
        for memo in ("constructed", "construction_choices", "passed_classes", "passed_choices"):
            self.model.objects.__dict__.pop(memo, None)
        for memo in ("_foreign_instances", "foreign_attribute_classes"):
            self.model.references.__dict__.pop(memo, None)
        self.model.objects.param_classes, self.model.objects.object_params_memo = {}, {}
        self.model.scopes.contexts = {}
        # Scopes settled by the rules were read without the imported classes known, and the
        # trace grows again here.
        self.model.scopes.settled_scopes = None
        self.model._foreign = foreign
        try:
            # Objects of imported classes, found with the other modules' classes known.
            self.model.objects.constructed, self.model.objects.passed_classes  # noqa: B018
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
        units = self.model.document.parsed_units
        # With imported classes known, more parameters hold an object a transformation runs.
        applications = list(self.model.tracing.trace_applications)
        applications += [
            item
            for item in self.model.tracing.applied_to_instances(self.model.tracing.wrapper_applied)
            if item not in applications
        ]
        self._booleans_through_foreign(applications)
        for application, unit_start in applications:
            line = unit_start + application.node.lineno
            # A filtered transformation (`eqx.filter_jit`) of a function of the module traces
            # more of it when a parameter holds an object of an imported PyTree class.
            filtered = application.spec.policy is ParamPolicy.ARRAY_ANNOTATED
            if filtered or self._local_ref(application.target, line, application.enclosing) is None:
                self._replayed(self.model.tracing.apply, application, unit_start)
        for seed in self.model.incoming:
            if seed.runs_updates:  # a schedule the optimizer's maker got from another module
                self._replayed(self.model.tracing.seed_optimizer_updates, seed)
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
            if node in self.model.references.foreign_nodes:
                continue
            if isinstance(node, ast.Lambda):
                self._replayed(
                    self.model.steps.trace_lambda_calls, node, info, calls_by_caller, sources
                )
                continue
            scope = self._replayed(self.model.scopes.scope_kinds, node)
            if scope is None:
                continue
            for application, unit_start in applied_in.get(node, []):
                line = unit_start + application.node.lineno
                if application.node in scope.unreached:
                    continue
                if self._local_ref(application.target, line, node) is None:
                    self._replayed(
                        self.model.tracing.trace_application_in,
                        node,
                        info,
                        scope,
                        application,
                        unit_start,
                    )
            for call, unit_start in calls_by_caller.get(node, []):
                if call.node in scope.unreached:
                    continue  # in a branch no trace of `node` takes
                line = unit_start + call.node.lineno
                if self._local_ref(call.callee, line, node) is not None:
                    continue
                found = self._replayed(self.model.references.resolve_ref, call.callee, line, node)
                callees = self._replayed(
                    self.model.references.resolve_all, call.callee, line, node, found
                )
                for callee in callees or ():
                    self._replayed(
                        self.model.steps.trace_call, node, info, scope, call, *callee, unit_start
                    )
            start = unit_starts.get(id(self.model._source_of.get(node)), 0)
            for call in self.model.references.foreign_property_reads(node):
                found = self._replayed(
                    self.model.references.resolve_ref, call.callee, start + call.node.lineno, node
                )
                if found is not None:
                    self._replayed(
                        self.model.steps.trace_call, node, info, scope, call, *found, start
                    )

    def _booleans_through_foreign(self, applications: list[tuple[Application, int]]) -> None:
        """What the calls running the module's own traced functions give them, read again
        with other modules' definitions known: a dict a loader of another module returns,
        holding a boolean array (`batch = make_batch(rng)`, then `loss(params, batch)`)."""
        tracing = self.model.tracing
        for application, unit_start in applications:
            line = unit_start + application.node.lineno
            found = self._local_ref(application.target, line, application.enclosing)
            info = tracing.trace.get(found[0]) if found is not None else None
            if info is None:
                continue
            target, ref = found
            booleans = self._replayed(tracing.booleans_given, application, unit_start, target, ref)
            if booleans and not booleans <= info.boolean_params:
                merged = replace(info, boolean_params=info.boolean_params | booleans)
                self._replayed(tracing.set_trace, target, merged)

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
            function = self.model.references.foreign_nodes.get(node)
            if function is None:
                continue
            origin = info.origin
            steps: tuple[ForeignStep, ...] = ()
            if origin is not None and origin.node is not None:
                caller = origin.caller
                here = ForeignStep(
                    function.path,
                    None if origin.called else origin.label(info.via),
                    self.model.scopes.display_name(caller) if caller is not None else None,
                    path,
                    document_span(lines, origin.unit_start, origin.node),
                )
                chain = (
                    self.model.scopes.explain(caller)
                    if caller is not None and caller in self.model.tracing.trace
                    else ()
                )
                steps = (here, *(self._foreign_step(step, lines) for step in chain))
            elif origin is not None and origin.foreign:
                # Traced by a third module's code (a schedule given to optax here, run by the
                # update another module jits): its sites, naming the function there.
                first, *rest = origin.foreign
                steps = (replace(first, function=function.path), *rest)
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
                boolean_params=info.boolean_params,
                param_classes=self._param_classes(node),
                given_tracers=self.model.tracing.given_tracers.get(node, frozenset()),
                differentiated=info.differentiated,
                differentiated_abstractly=info.differentiated_abstractly,
                transforms=info.transforms,
            )
            outgoing.append((function, seed))
        outgoing += self._optimizer_update_traces()
        outgoing += self._untraced_calls()
        return tuple(outgoing)

    def _param_classes(self, node: FunctionNode) -> frozenset[tuple[str, str, str]]:
        """The classes of the objects this module's calls give the parameters of another
        module's function `node` (`passed_classes`), each by its file and name."""
        found = set()
        for param, class_name in self.model.objects.passed_classes.get(node, {}).items():
            origin = self._class_origin(class_name)
            if origin is not None:
                found.add((param, *origin))
        for param, held in self.model.objects.passed_choices.get(node, {}).items():
            # One of several classes: each, which the other module traces as it may be.
            origins = [self._class_origin(class_name) for class_name in held]
            if all(origin is not None for origin in origins):
                found |= {(param, *origin) for origin in origins}  # type: ignore[misc]
        return frozenset(found)

    def _class_origin(self, class_name: str) -> tuple[str, str] | None:
        """The file and the name of an imported class. Not one of this module: the editor
        asks a module's importers what they give it, never the module itself (whose text
        changes at each keystroke), so it would not see what comes back."""
        if class_name in self.model.classes:
            return None
        return self.model._foreign.class_origin(class_name)

    def _untraced_calls(self) -> list[tuple[ForeignFunction, IncomingTrace]]:
        """What calls outside any trace give the parameters of other modules' functions:
        the classes of the objects they pass (`run(cell, xs)` in an untraced `main`), for
        the transformations those functions apply to them (`lax.scan(cell.step, ...)`),
        and boolean arrays, for the functions their module jits (`@jax.jit def loss`)."""
        given: dict[FunctionNode, tuple[ForeignFunction, frozenset, frozenset[str]]] = {}
        objects = self.model.objects
        for node in dict.fromkeys([*objects.passed_classes, *objects.passed_choices]):
            function = self.model.references.foreign_nodes.get(node)
            if function is None or node in self.model.tracing.trace:
                continue
            classes = self._param_classes(node)
            if classes:
                given[node] = (function, classes, frozenset())
        for node, booleans in self._untraced_booleans().items():
            function, classes, _ = given.get(node, (None, frozenset(), None))
            given[node] = (
                function or self.model.references.foreign_nodes[node],
                classes,
                booleans,
            )
        changes = self._untraced_changes()
        for node in changes:
            if node not in given:
                given[node] = (self.model.references.foreign_nodes[node], frozenset(), frozenset())
        return [
            (
                function,
                IncomingTrace(
                    function.path,
                    "",
                    False,
                    False,
                    frozenset(),
                    frozenset(),
                    (),
                    boolean_params=booleans,
                    param_classes=classes,
                    untraced=True,
                    globals_changed=changes.get(node, frozenset()),
                ),
            )
            for node, (function, classes, booleans) in given.items()
        ]

    def _untraced_changes(self) -> dict[FunctionNode, frozenset[str]]:
        """Values of other modules (`settings.SCALE`) that the module changes after it calls
        another module's function outside any trace: by that function."""
        text = self.model.document.text
        if not may_store_elsewhere(text):
            return {}
        units = self.model.document.parsed_units
        statements = [s for unit in units for s in unit.tree.body]
        imported = ImportedNames(statements, self.model.document.path)
        if not imported.modules and not imported.names:
            return {}
        trace = self.model.tracing.trace
        found: dict[FunctionNode, frozenset[str]] = {}
        for index, (unit, summary) in enumerate(zip(units, self.model.summaries, strict=True)):
            for call in summary.calls:
                caller = call.caller
                if isinstance(caller, ast.Lambda) or (caller is not None and caller in trace):
                    continue
                if caller is None:  # the rest of the unit, then the later units
                    changed = changed_after(unit.tree.body, call.node.lineno, imported)
                    for later in units[index + 1 :]:
                        changed |= changed_after(later.tree.body, 0, imported)
                else:
                    changed = changed_after(caller.body, call.node.lineno, imported)
                if not changed:
                    continue
                resolved = self._untraced_callee(call, unit.start_line)
                if resolved is not None:
                    found[resolved[0]] = found.get(resolved[0], frozenset()) | changed
        return found

    def _untraced_callee(
        self, call: CallSite, start_line: int
    ) -> tuple[FunctionNode, FunctionRef] | None:
        """The function of another module a call outside any trace calls (in the unit whose
        first line is `start_line`), and how it names it; None for this module's own
        functions, traced ones and what cannot be resolved."""
        line = start_line + call.node.lineno
        if self._local_ref(call.callee, line, call.caller) is not None:
            return None
        resolved = self._replayed(self.model.references.resolve_ref, call.callee, line, call.caller)
        if resolved is None or resolved[0] in self.model.tracing.trace:
            return None
        return resolved if resolved[0] in self.model.references.foreign_nodes else None

    def _untraced_booleans(self) -> dict[FunctionNode, frozenset[str]]:
        """Parameters of other modules' functions (not traced here) that a call outside any
        trace gives a boolean array (`loss(x, mask)` with `mask = np.zeros(n, bool)`)."""
        found: dict[FunctionNode, frozenset[str]] = {}
        trace = self.model.tracing.trace
        imported = self.model._foreign.imported_names()
        units = self.model.document.parsed_units
        for unit, summary in zip(units, self.model.summaries, strict=True):
            for call in summary.calls:
                caller = call.caller
                if isinstance(caller, ast.Lambda) or (caller is not None and caller in trace):
                    continue
                # A function of another module, called by the name an import binds (`loss`,
                # `losses.loss`), not rebound in the caller.
                head = call.callee.name.partition(".")[0]
                if head not in imported:
                    continue
                arguments = [*call.node.args, *(keyword.value for keyword in call.node.keywords)]
                if not arguments:
                    continue
                scope = CallerScope(self.model, caller)
                if not any(
                    is_boolean(argument, scope) or boolean_keys(argument, scope, frozenset())
                    for argument in arguments
                ):
                    continue
                # After the arguments (a boolean among them is rare): the caller's own names
                # are found by a walk of all of it, the first time they are asked.
                if caller is not None and binds_locally(head, caller):
                    continue
                resolved = self._untraced_callee(call, unit.start_line)
                if resolved is None:
                    continue
                node, ref = resolved
                booleans = passed_booleans(self.model, node, call.node, ref, caller)
                if booleans:
                    found[node] = found.get(node, frozenset()) | booleans
        return found

    def _optimizer_update_traces(self) -> list[tuple[ForeignFunction, IncomingTrace]]:
        """The imported functions that made the optimizers whose `update` the module's
        traced code runs (`tx = make_optimizer(lr)` at module level, then `tx.update(grads,
        state)` under `jax.jit`): optax runs the update functions and schedules they give it
        in that trace."""
        found = []
        lines = self.model.document.lines
        units = self.model.document.parsed_units
        for unit, summary in zip(units, self.model.summaries, strict=True):
            for function, call in summary.optimizer_updates:
                info = self.model.tracing.trace.get(function)
                receiver = call.func.value  # type: ignore[attr-defined]
                if info is None or type(receiver) is not ast.Name:
                    continue
                # Bound once at module level (its `update` calls count as mutations of it).
                made = self.model.module_globals.top_level_values.get(receiver.id, ())
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
                    self.model.scopes.display_name(function),
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

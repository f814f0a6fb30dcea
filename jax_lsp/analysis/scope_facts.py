"""Facts of one function once the trace is known: why it is traced (`explain`, the
context it is traced in), the kinds of its names (`scope_kinds`), the values loop carries
hold, the defaults and differentiated parameters, which parameters each reference passes
(`ref_params`) and what a call returns (`return_value`). Reads the trace, the globals and
the objects."""

from __future__ import annotations

import ast
import math
import weakref
from collections.abc import Callable, Mapping
from dataclasses import replace

from jax_lsp.analysis import passed_values
from jax_lsp.analysis.cached import cached_property
from jax_lsp.analysis.declared_containers import declared_container
from jax_lsp.analysis.document import UnitSource
from jax_lsp.analysis.external import ExternalFacts
from jax_lsp.analysis.flow import (
    ARRAYS,
    NEW_REF,
    FlowInterpreter,
    ScopeContext,
    annotation_kind,
)
from jax_lsp.analysis.imports import Resolver, local_imports
from jax_lsp.analysis.kinds import Kind
from jax_lsp.analysis.model_parts import ReturnsAsked, ScopeKinds, bound_method_alias
from jax_lsp.analysis.model_view import ModelFact, ModelView
from jax_lsp.analysis.names import binds_locally
from jax_lsp.analysis.nodes import (
    is_none,
    is_staticmethod,
    own_returns,
    positional_params,
    rebound_names,
    walk_nodes,
)
from jax_lsp.analysis.passed_values import PassedValue
from jax_lsp.analysis.summary import (
    Application,
    CallSite,
    FunctionNode,
    FunctionRecord,
    FunctionRef,
    UnitSummary,
    unit_summary,
)
from jax_lsp.analysis.traced import (
    TraceInfo,
    TraceStep,
    all_params,
    differentiated_params,
    literal_default_params,
    passed_arguments,
    passed_params,
)
from jax_lsp.analysis.unit_memo import Keyed, memo_key, per_unit
from jax_lsp.analysis.values import REF, Container, Function, Value, as_jax, merge_values_all

_WRAPPED = ".__wrapped__"

_MAX_EXPLAINED = 5  # links of a "why is this traced?" chain


class ScopeFacts(ModelFact):
    """Per-function facts read against the trace (see the module docstring)."""

    def __init__(self, model: ModelView) -> None:
        super().__init__(model)
        self.contexts: dict[ast.AST, TraceInfo | None] = {}
        self.rebound: dict[ast.AST, frozenset[str]] = {}
        self.carries: dict[ast.AST, tuple] = {}
        # scope_kinds's answers by function once the trace is settled (None while it grows): every
        # part of their keys is then fixed for this model, and the rules ask again and again.
        self.settled_scopes: dict[FunctionNode, ScopeKinds] | None = None
        # `_scope_inputs` of the functions asked about, once the trace is settled.
        self._settled_inputs: dict[FunctionNode, tuple] = {}
        # `return_value`'s answers, by path and whether given tracers: asked again by each
        # log of findings whose kinds read them (`ReturnsAsked`), at every keystroke.
        self._returns: dict[tuple[str, bool], Value | None] = {}

    def trace_settled(self) -> None:
        """The trace is complete: forget the carries shaped while it grew, and keep
        `scope_kinds`'s answers from now on."""
        self.carries.clear()
        self.settled_scopes = {}
        self._settled_inputs = {}

    def explain(self, node: FunctionNode) -> tuple[TraceStep, ...]:
        """Why a function is traced: the transformation that traces it, or the traced caller
        and why that one is traced, and so on (a few links at most)."""
        steps: list[TraceStep] = []
        seen: set[ast.AST] = set()
        current: FunctionNode | None = node
        while current is not None and current not in seen and len(steps) < _MAX_EXPLAINED:
            seen.add(current)
            info = self.model.tracing.trace.get(current)
            origin = info.origin if info is not None else None
            if origin is None:
                break
            if origin.foreign:  # traced by code in other modules: their sites, in order
                steps += [
                    TraceStep(step.function, step.label, step.caller, None, 0, step.file, step.span)
                    for step in origin.foreign
                ]
                break
            if origin.node is None:
                break  # traced from elsewhere, with no site to show
            caller = origin.caller
            steps.append(
                TraceStep(
                    self.display_name(current),
                    None if origin.called else origin.label(info.via),
                    self.display_name(caller) if caller is not None else None,
                    origin.node,
                    origin.unit_start,
                )
            )
            # A transformation applied in traced code is there because that code runs.
            current = caller if caller is not None and caller in self.model.tracing.trace else None
        return tuple(steps)

    def display_name(self, node: FunctionNode) -> str:
        record = self.model.records.get(node)
        return record.path if record is not None else "<lambda>"

    def explanation_key(self, node: FunctionNode, unit_start: int) -> tuple:
        """What the explanation of `node` shows a unit starting at `unit_start`: names and
        transformations, and the place of each site in another unit (its related place is in
        document coordinates; a site of the same unit moves with it)."""
        if node not in self.model.tracing.trace:
            return ()
        return tuple(
            (
                step.function,
                step.label,
                step.caller,
                step.unit_start if step.unit_start != unit_start else None,
                step.site.lineno if step.site is not None else step.file,
                step.site.col_offset if step.site is not None else step.span,
            )
            for step in self.explain(node)
        )

    def context_of(self, node: FunctionNode) -> TraceInfo | None:
        """The trace of a function, or of the nearest traced function enclosing it."""
        if node not in self.contexts:
            self.contexts[node] = self._context_of(node)
        return self.contexts[node]

    def _context_of(self, node: FunctionNode) -> TraceInfo | None:
        trace = self.model.tracing.trace
        if node in trace:
            return trace[node]
        chain = self.model.enclosing_chain(node)
        host = self.model.tracing.host_callbacks
        if host and any(function in host for function in [*chain, node]):
            return None  # JAX runs it on the host, on NumPy arrays
        return context_from_enclosing(trace, chain)

    def lambda_params(self, node: ast.Lambda) -> dict[str, Kind] | None:
        info = self.model.tracing.trace.get(node)
        if info is None:
            return None
        return {name: Kind.TRACED for name in info.traced_params}

    def scope_kinds(self, node: FunctionNode) -> ScopeKinds:
        settled = self.settled_scopes
        if settled is not None:
            found = settled.get(node)
            if found is None:
                found = settled[node] = self._scope_kinds(node)
            return found
        return self._scope_kinds(node)

    def _scope_kinds(self, node: FunctionNode) -> ScopeKinds:
        return _interpret_scope(self.model._source_of[node], *self._scope_inputs(node))

    def caller_free_kinds(self, node: FunctionNode) -> ScopeKinds:
        """The kinds of `node`'s names whoever calls it: for a function traced only because
        traced code calls it (`direct` False), as an untraced caller running it sees them
        (its parameters of unknown kind, no object given it), so that a value is a JAX array
        here only when the function makes it one (`jnp.asarray(x)`), not when a traced caller
        passes one. For any other function, its kinds (`scope_kinds`)."""
        info = self.model.tracing.trace.get(node)
        if info is None or info.direct:
            return self.scope_kinds(node)
        inputs = self._gather_scope_inputs(node, caller_free=True)
        return _interpret_scope(self.model._source_of[node], *inputs)

    def _scope_inputs(self, node: FunctionNode) -> tuple:
        """What `_interpret_scope` reads of the model for `node`, kept once the trace is
        settled (a function's inputs are also its nested functions' outer scope's)."""
        if self.settled_scopes is None:
            return self._gather_scope_inputs(node)
        inputs = self._settled_inputs.get(node)
        if inputs is None:
            inputs = self._settled_inputs[node] = self._gather_scope_inputs(node)
        return inputs

    def _gather_scope_inputs(self, node: FunctionNode, caller_free: bool = False) -> tuple:
        """What `_interpret_scope` reads of the model for `node`: the facts of each function
        of its chain (outermost first) and the unit's view of the module. `caller_free`:
        `node` itself as an untraced caller runs it (`caller_free_kinds`): no trace, no loop
        carry, no objects given to it."""
        chain = [*self.model.enclosing_chain(node), node]
        source = self.model._source_of[node]
        links = tuple(
            [
                (fn, None, self.ref_params.get(fn) if self.ref_params else None, (), (), ())
                if caller_free and fn is node
                else (
                    fn,
                    self.context_of(fn),
                    self.ref_params.get(fn) if self.ref_params else None,
                    self.carry_values(fn) if self.loop_bodies else (),
                    self.model.objects.object_params(fn),
                    self.model.objects.self_object(fn),
                )
                for fn in chain
            ]
        )
        info = links[-1][1]
        if len(chain) > 1:  # the names of the scope around it, as its own inputs give them
            around = chain[-2]
            inputs = self._scope_inputs(around)
            # From the inputs in hand (a memo hit): `scope_kinds(around)` would find them
            # again, and so each function around it, doubling the work at each level.
            around_kinds = _interpret_scope(self.model._source_of[around], *inputs)
            outer: Keyed | None = Keyed(around_kinds, memo_key(_interpret_scope, inputs))
        else:
            outer = None
        abstract = info is not None and info.abstract
        return (
            links,
            self.model.aliases,
            self.model.imported,
            self.model.unit_keys.unit_globals(source),
            outer,
            Keyed(self.lambda_params, self.lambda_traces(source)),
            Keyed((self.return_value, self._traced_return_value), self.returns_key(source)),
            Keyed(self._method_call_returns, self.method_returns_key(node)) if abstract else None,
            self.model.records[node].path if node in self.model.records else "",
        )

    @cached_property
    def loop_bodies(self) -> dict[FunctionNode, list[tuple[Application, int]]]:
        """Functions given to `lax.while_loop`/`fori_loop`/`scan` inside a function: each
        application, and which of the function's parameters receives the carry."""
        found: dict[FunctionNode, list[tuple[Application, int]]] = {}
        for summary in self.model.summaries:
            for application in summary.applications:
                place = _CARRY_PARAMS.get(application.spec.label)
                if place is None or application.enclosing is None:
                    continue
                target = self.model.references.resolve(application.target)
                if target is None or isinstance(target, ast.Lambda):
                    continue
                found.setdefault(target, []).append((application, place))
        return found

    def carry_values(self, node: FunctionNode) -> tuple[tuple[str, Value], ...]:
        """The loop body's carry parameter, shaped like the initial carry where the loop is
        called (a dict carried through `lax.while_loop` is a dict of tracers in the body)."""
        uses = self.loop_bodies.get(node)
        if not uses or isinstance(node, ast.Lambda):
            return ()
        if node in self.carries:
            return self.carries[node]
        self.carries[node] = ()  # a loop inside its own body: no structure
        found: list[Value] = []
        positional = positional_params(node)
        for application, place in uses:
            call = application.node
            position, keyword = _CARRY_ARGUMENTS[application.spec.label]
            init = call.args[position] if position < len(call.args) else None
            init = init or next((k.value for k in call.keywords if k.arg == keyword), None)
            if init is None or place >= len(positional):
                return ()
            scope = self.scope_kinds(application.enclosing)
            value = scope.values.get(init, scope.kinds.get(init, Kind.UNKNOWN))
            found.append(_carry_leaves(as_jax(value, True)))
        carry = merge_values_all(found)
        result = ((positional[place], carry),) if type(carry) is Container else ()
        self.carries[node] = result
        return result

    def passed_defaults(self, node: FunctionNode) -> frozenset[str]:
        """Parameters with a literal default (`training=True`) that some call in the module
        passes a tracer: of a function a transformation traces directly, those a call of the
        transformed function passes (jit traces an argument it is given, where a default left
        alone stays a Python value); of a function traced only through calls, those a traced
        call passes a tracer of its own (`_given_tracers`)."""
        found = self.defaults_by_function.get(node, frozenset())
        info = self.model.tracing.trace.get(node)
        if info is not None and not info.direct:
            found |= literal_default_params(node) & self.model.tracing.given_tracers.get(
                node, frozenset()
            )
        return found

    @cached_property
    def defaults_by_function(self) -> dict[FunctionNode, frozenset[str]]:
        defaults: dict[FunctionNode, frozenset[str]] = {}
        for node, info in self.model.tracing.trace.items():
            if info.direct and not isinstance(node, ast.Lambda):
                found = literal_default_params(node) & info.traced_params
                if found:
                    defaults[node] = found
        if not defaults:
            return {}
        names = {node.name for node in defaults}
        paths = {
            self.model.records[node].path: node for node in defaults if node in self.model.records
        }
        aliases = {  # module names bound to the transformed function (`g = jax.jit(f)`)
            name: paths[value.path]
            for name, value in self.model.module_globals.global_values.items()
            if type(value) is Function and value.transform and value.path in paths
        }
        decorated = set()  # every call of the function by its name runs the transformed one
        # The first module-level line applying a transformation to each name (`f = jax.jit(f)`):
        # where the name rebound to the transformed function is transformed at module level.
        applied_from: dict[str, int] = {}
        calls: list[tuple[FunctionRef, ast.Call, int, FunctionNode | None]] = []
        # Module names bound to a transformed method of an object (`u = jax.jit(opt.update)`):
        # the method and the reference as the calls of the name see it (`self` fixed).
        method_aliases: dict[str, tuple[FunctionNode, FunctionRef]] = {}
        found: dict[FunctionNode, frozenset[str]] = {}
        units = self.model.document.parsed_units
        for unit, summary in zip(units, self.model.summaries, strict=True):
            for application in summary.applications:
                target = application.target
                if target.name.rpartition(".")[2] not in names:
                    continue
                if target.node is not None and application.node in getattr(
                    target.node, "decorator_list", ()
                ):
                    decorated.add(target.node)
                elif _rebinds_its_target(unit.tree, application):
                    line = unit.start_line + application.node.lineno
                    applied_from[target.name] = min(applied_from.get(target.name, line), line)
                if application.call is not None:  # `jax.jit(f)(x, False)`
                    site = (target, application.call, unit.start_line, application.enclosing)
                    calls.append(site)
                name = bound_method_alias(unit.tree, application)
                resolved = None if name is None else self.model.references.resolve_ref(target)
                if resolved is not None and resolved[0] in defaults:
                    method_aliases[name] = resolved  # `update = jax.jit(opt.update)`
            for call in summary.calls:
                if call.callee.name in method_aliases and (
                    call.caller is None or not binds_locally(call.callee.name, call.caller)
                ):
                    node, bound = method_aliases[call.callee.name]
                    if passed := passed_params(node, call.node, bound) & defaults[node]:
                        found[node] = found.get(node, frozenset()) | passed
                elif call.callee.name.rpartition(".")[2] in names or call.callee.name in aliases:
                    calls.append((call.callee, call.node, unit.start_line, call.caller))
        for ref, call, unit_start, caller in calls:
            resolved = self.model.references.resolve_ref(ref, unit_start + call.lineno, caller)
            if resolved is None and ref.name in aliases:
                resolved = aliases[ref.name], ref
            if resolved is None or resolved[0] not in defaults:
                continue
            node, ref = resolved
            func = call.func
            # A plain call of a function jitted elsewhere (`g = jax.jit(f)`) traces nothing:
            # only its decorated name, a name bound to the transformed one (`f = jax.jit(f)`
            # rebinds the name itself: from there on at module level, and in any function), or
            # `jit(f)(...)`.
            named = isinstance(func, ast.Name) and func.id == node.name
            # A module-level call before the rebinding runs the plain function.
            rebound_from = applied_from.get(func.id, math.inf) if named else math.inf
            rebound = rebound_from < (unit_start + call.lineno if caller is None else math.inf)
            if named and node not in decorated and not rebound:
                continue
            passed = passed_params(node, call, ref) & defaults[node]
            if passed:
                found[node] = found.get(node, frozenset()) | passed
        return found

    def differentiated(self, node: FunctionNode) -> frozenset[str]:
        """Parameters of `node` that a differentiating transformation gives tangent-carrying
        tracers (`jax.grad(f)`, or a call passing on such a value: `jax.grad(lambda x:
        f(2 * x))`): no static argument can take them."""
        return self._differentiated.get(node, frozenset())

    @cached_property
    def _differentiated(self) -> dict[FunctionNode, frozenset[str]]:
        found: dict[FunctionNode, frozenset[str]] = {}
        pending: list[FunctionNode] = []

        def note(function: FunctionNode, params: frozenset[str]) -> None:
            if params and not params <= found.get(function, frozenset()):
                found[function] = found.get(function, frozenset()) | params
                pending.append(function)

        for application, unit_start in self.model.tracing.gradients:
            line = unit_start + application.node.lineno
            ref = application.target
            if ref.name.endswith(_WRAPPED):  # `jax.grad(f.__wrapped__)`: the function itself
                ref = replace(ref, name=ref.name.removesuffix(_WRAPPED))
            resolved = self.model.references.resolve_ref(ref, line, application.enclosing)
            if resolved is not None:
                note(resolved[0], differentiated_params(application, *resolved))
        if not found:
            return found
        units = self.model.document.parsed_units
        call_sites = {
            call.node: (call, unit.start_line)
            for unit, summary in zip(units, self.model.summaries, strict=True)
            for call in summary.calls
        }
        while pending:
            function = pending.pop()
            params = found[function]
            for call in walk_nodes(function):
                located = call_sites.get(call) if type(call) is ast.Call else None
                if located is None:
                    continue
                site, unit_start = located
                resolved = self.model.references.resolve_ref(
                    site.callee, unit_start + call.lineno, site.caller
                )
                if resolved is None or resolved[0] is function:
                    continue
                callee, ref = resolved
                passed = passed_arguments(callee, call, ref)
                note(callee, frozenset(n for n, arg in passed if _mentions(arg, params)))
        return found

    @cached_property
    def ref_params(self) -> dict[FunctionNode, frozenset[str]]:
        """Parameters of module functions that a call in the module passes a `jax.Ref` (a name
        bound by `jax.new_ref(...)` at module level or in the caller, or a parameter that
        receives one): `ref[...] = v` is legal on them."""
        sources = self.model.document.parsed_sources
        each_unit = self.model.document.lineage.each_unit
        if not any(each_unit(_may_make_refs, sources)):
            return {}
        # The globals are mostly the last version's dict (an edit inside a function).
        lineage = self.model.document.lineage
        module_refs = lineage.reuse(_module_refs, self.model.module_globals.global_values)
        functions = self.model.functions
        local_refs = {}
        aliases = self.model.aliases
        for found in each_unit(_unit_local_refs, sources, aliases):
            for path, node, refs in found:
                if functions[path].node is node:  # a name defined again: the last counts
                    local_refs[node] = refs
        if not module_refs and not local_refs:
            return {}  # no ref is made anywhere, so none is passed
        # Each unit's calls, then each unit's applications (`_ref_calls`), with the names
        # their arguments spell: a unit none of whose calls passes a name that may hold a
        # ref is passed over whole.
        unit_calls = each_unit(_unit_ref_calls, sources, aliases)
        chunks = [own[0] for own in unit_calls] + [own[1] for own in unit_calls]
        found: dict[FunctionNode, frozenset[str]] = {}
        held = set(module_refs.union(*local_refs.values()))  # every name that may hold a ref
        changed = True
        while changed:  # a parameter that receives a ref may pass it on
            changed = False
            for spelled, calls in chunks:
                if held.isdisjoint(spelled):
                    continue
                for call in calls:
                    changed = self._pass_refs(call, held, module_refs, local_refs, found) or changed
        return found

    def _pass_refs(
        self,
        call: CallSite,
        held: set[str],
        module_refs: frozenset[str],
        local_refs: dict[FunctionNode, frozenset[str]],
        found: dict[FunctionNode, frozenset[str]],
    ) -> bool:
        """One step of `ref_params`: the parameters `call` passes a ref to added to `found`
        (and to `held`); whether any was new."""
        arguments = call.argument_names
        if held.isdisjoint(arguments):
            return False
        refs = (
            module_refs
            if call.caller is None
            else self._refs_in(call.caller, module_refs, local_refs, found)
        )
        # Only a call passing a name that holds a ref can pass one: resolving every
        # call of the module on every edit cost the editor its speed.
        if refs.isdisjoint(arguments):
            return False
        callee = self.model.references.resolve(call.callee)
        if callee is None or isinstance(callee, ast.Lambda):
            return False
        record = self.model.records.get(callee)
        method = bool(record and record.class_name and "." in call.callee.name)
        method = method and not is_staticmethod(callee)
        passed = _params_passed(callee, call.node, refs, method)
        passed -= found.get(callee, frozenset())
        if passed:
            found[callee] = found.get(callee, frozenset()) | passed
            held.update(passed)
            return True
        return False

    @staticmethod
    def _refs_in(caller, module_refs, local_refs, found) -> frozenset[str]:
        """Names that hold a ref in `caller`: its own refs and ref parameters, and the
        module's refs that it does not shadow with a parameter."""
        own = local_refs.get(caller, frozenset()) | found.get(caller, frozenset())
        if isinstance(caller, ast.Lambda):
            return module_refs | own
        return (module_refs - frozenset(all_params(caller))) | own

    # -- return summaries -----------------------------------------------------------------
    @cached_property
    def _call_sites(self) -> dict[ast.Call, tuple[CallSite, int]]:
        """Every call of the module, with the first line of its unit."""
        units = self.model.document.parsed_units
        return {
            call.node: (call, unit.start_line)
            for unit, summary in zip(units, self.model.summaries, strict=True)
            for call in summary.calls
        }

    @cached_property
    def _unit_starts(self) -> dict[int, int]:
        """The first line of each parsed unit, by the identity of its parse."""
        return {id(unit.source): unit.start_line for unit in self.model.document.parsed_units}

    def _resolved_method(
        self, call: ast.Call, located: tuple[CallSite, int] | None = None
    ) -> FunctionRecord | None:
        """The method of a class of the module a call through an object runs, when the model
        resolves it (`self.helper(x)`, a linen module's `model.apply(variables, x)`, a
        TrainState's `state.apply_fn(variables, x)`: `__call__`). `located`: the call's site
        and unit start, when known (else looked up among all calls of the module)."""
        if type(call.func) is not ast.Attribute:
            return None
        located = located or self._call_sites.get(call)
        if located is None:
            return None
        site, unit_start = located
        resolved = self.model.references.resolve_ref(
            site.callee, unit_start + call.lineno, site.caller
        )
        if resolved is None or isinstance(resolved[0], ast.Lambda):
            return None
        record = self.model.records.get(resolved[0])
        return record if record is not None and record.class_name else None

    def _method_call_returns(self, call: ast.Call) -> Value | None:
        """What the method a call resolves to returns, interpreted on its own (its parameters
        unknown, as a module function's return summary)."""
        record = self._resolved_method(call)
        if record is None or isinstance(record.node, ast.AsyncFunctionDef):
            return None
        return self.interpret_returns(record.node, self.model.unit_keys.unit_globals)

    def method_returns_key(self, node: FunctionNode) -> tuple:
        """The methods whose return summaries a traced function's values read (the calls in
        its body the model resolves to methods): each one's path, text and the key of the
        globals its unit mentions, for the keys of the function's values and findings (the
        method may be in another unit, or another method of the same class)."""
        memo = self.model.unit_keys.method_keys
        found = memo.get(node)
        if found is None:
            info = self.context_of(node)
            entries = []
            if info is not None and info.abstract:
                # Its calls' sites from its unit's summary, not from an index of every call of
                # the module (asked at each edit, for each abstractly traced function).
                home = self.model._source_of.get(node)
                sites = _unit_call_sites(home, self.model.aliases) if home is not None else None
                start = self._unit_starts.get(id(home), 0)
                for call in walk_nodes(node):
                    if type(call) is not ast.Call or type(call.func) is not ast.Attribute:
                        continue
                    if sites is None:
                        record = self._resolved_method(call)
                    else:
                        site = sites.get(call)
                        record = self._resolved_method(call, (site, start)) if site else None
                    if record is None:
                        continue
                    source = self.model._source_of[record.node]
                    text = source.node_lines(record.node)
                    entries.append(
                        (record.path, hash(text), self.model.unit_keys.unit_globals_key(source))
                    )
            found = memo[node] = tuple(entries)
        return found

    def return_value(self, path: str, given_tracers: bool = False) -> Value | None:
        """What calling the module function `path` returns, interpreted on its own (its
        parameters unknown, outside any trace; with `given_tracers`, every parameter a tracer
        in abstract code): JAX arrays it makes, pytrees it builds, Python values. Calls of
        other module functions inside are not followed, so the summary depends only on the
        function's own unit (and the module facts every key holds)."""
        asked = (path, given_tracers)
        found = self._returns.get(asked, _NOT_ASKED)
        if found is _NOT_ASKED:
            record = self.model.functions.get(path)
            if record is None or record.class_name or isinstance(record.node, ast.Lambda):
                found = None
            else:
                outer = self.model.unit_keys.unit_globals
                found = self.interpret_returns(record.node, outer, given_tracers)
            self._returns[asked] = found
        return found  # type: ignore[return-value]

    def _traced_return_value(self, path: str) -> Value | None:
        return self.return_value(path, given_tracers=True)

    def interpret_returns(
        self,
        node: ast.FunctionDef | ast.AsyncFunctionDef,
        outer: Callable[[UnitSource], Keyed[Mapping[str, Value]]] | None,
        given_tracers: bool = False,
    ) -> Value | None:
        """What calling `node` returns, interpreted on its own (memoised on its unit), with the
        module's globals as `outer` gives them for the unit (None: none)."""
        source = self.model._source_of[node]
        return _interpret_returns(
            source,
            node,
            self.model.aliases,
            self.model.imported,
            outer(source) if outer is not None else None,
            given_tracers,
            self.model.records[node].path if node in self.model.records else "",
        )

    def returns_key(self, source: UnitSource) -> tuple:
        """The units defining the module functions this unit may call (by name, or through
        a module-level `step = jax.jit(f)`): their return summaries shape its values."""
        defined = self.model.unit_keys.function_units
        if not defined:
            return ()
        own = hash(source.text)
        named = self.model.unit_keys.named_functions(source)
        return tuple([(name, defined[name]) for name in named if defined[name][1] != own])

    def lambda_traces(self, source: UnitSource) -> tuple[TraceInfo | None, ...]:
        """How each lambda of the unit is traced: part of the keys of its cached kinds."""
        trace = self.model.tracing.trace
        return tuple([trace.get(node) for node in self.model._summary(source).lambdas])


_NOT_ASKED = object()


@per_unit
def _unit_call_sites(source: UnitSource, aliases: Keyed[Resolver]) -> dict[ast.Call, CallSite]:
    """The unit's calls (`UnitSummary.calls`) by their node."""
    return {call.node: call for call in unit_summary(source, aliases).calls}


@per_unit
def _interpret_scope(
    source: UnitSource,
    links: tuple,
    aliases: Keyed[Resolver],
    imported: Keyed[Mapping[str, ExternalFacts]],
    module_globals: Keyed[Mapping[str, Value]],
    outer_scope: Keyed[ScopeKinds] | None,
    lambdas: Keyed[Callable[[ast.Lambda], dict[str, Kind] | None]],
    returns: Keyed[tuple[Callable[[str], Value | None], Callable[[str], Value | None]]],
    method_returns: Keyed[Callable[[ast.Call], Value | None]] | None,
    path: str,
) -> ScopeKinds:
    """The kinds of the names of the last function of `links` (`ScopeFacts._scope_inputs`)."""
    node, info, refs, carries, object_params, self_object = links[-1]
    outer = dict(module_globals.value)
    if outer_scope is not None:
        outer.update(outer_scope.value.final_env)
    params: dict[str, Value] = {}
    containers: dict[str, str] = {}
    declared_kinds: dict[str, Kind | None] = {}
    for arg in [*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs]:
        declared = declared_kinds[arg.arg] = annotation_kind(arg.annotation, aliases.value)
        params[arg.arg] = declared or Kind.UNKNOWN
        form = declared_container(arg.annotation, aliases.value, imported.value or {})
        if form is not None:
            containers[arg.arg] = form
    for name in all_params(node):
        params.setdefault(name, Kind.UNKNOWN)
        if info and name in info.traced_params:
            form = containers.get(name)
            params[name] = Container(form, leaf=Kind.TRACED) if form else Kind.TRACED
            for passed, value in info.containers:  # every trace passes a container
                if passed == name:
                    params[name] = value
        elif info and name in info.static_params:
            params[name] = Kind.STATIC
    for name in info.array_functions if info else ():
        if name not in info.traced_params:  # `y = act(x)` computes a tracer
            params[name] = Function(None, ARRAYS)
    for name in refs or ():
        params[name] = REF
    params.update(object_params)
    params.update(self_object)
    params.update(carries)
    arrays = {name for name, kind in declared_kinds.items() if kind is not None}
    tree_params = frozenset(
        name
        for name in (info.all_leaves & info.traced_params if info else ())
        if params.get(name) is Kind.TRACED and name not in arrays
    )
    bindings = local_imports(node)
    if info and info.module_defaults:  # `xp=xp` left alone: the module itself
        bindings = {**bindings, **dict(info.module_defaults)}
    resolver = aliases.value.child(bindings, frozenset(params))
    asked = ReturnsAsked(*returns.value)
    flags = fixed_flags(node, info)
    test_flags = (
        passed_values.flags_before_rebinding(node, info.literals, flags)
        if info and info.literals and not isinstance(node, ast.Lambda)
        else {}
    )
    context = ScopeContext(
        resolver,
        bool(info and info.abstract),
        outer,
        lambdas.value,
        imported.value,
        asked.plain,
        asked.traced,
        path,
        tree_params,
        flags,
        method_returns.value if method_returns is not None else _no_method,
        test_flags,
    )
    kinds: dict[ast.AST, Kind] = {}
    values: dict[ast.AST, Value] = {}
    interpreter = FlowInterpreter(context, kinds, values)
    final = interpreter.run_function(node, params)
    read = asked.read()
    if outer_scope is not None and outer_scope.value.returns_read:
        read = outer_scope.value.returns_read + read
    return ScopeKinds(kinds, final, values, frozenset(interpreter.unreached), read)


@per_unit
def _interpret_returns(
    source: UnitSource,
    node: ast.FunctionDef | ast.AsyncFunctionDef,
    aliases: Keyed[Resolver],
    imported: Keyed[Mapping[str, ExternalFacts]],
    outer: Keyed[Mapping[str, Value]] | None,
    given_tracers: bool,
    path: str,
) -> Value | None:
    """What calling `node` returns, its parameters unknown (with `given_tracers`, every one a
    tracer in abstract code); `path` names the functions it defines (`make_step.step`)."""
    if isinstance(node, ast.AsyncFunctionDef):
        return None  # a call gives a coroutine
    returns = own_returns(node, "yield" in source.text)
    if returns is None:
        return None
    if all(value is None or is_none(value) for value in returns):
        return Kind.UNKNOWN  # no return gives a value: nothing to interpret
    params: dict[str, Value] = {name: Kind.UNKNOWN for name in all_params(node)}
    for arg in [*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs]:
        params[arg.arg] = annotation_kind(arg.annotation, aliases.value) or Kind.UNKNOWN
    if given_tracers:
        params = dict.fromkeys(params, Kind.TRACED)
    resolver = aliases.value.child(local_imports(node), frozenset(params))
    kinds: dict[ast.AST, Kind] = {}
    values: dict[ast.AST, Value] = {}
    context = ScopeContext(
        resolver,
        given_tracers,
        outer.value if outer is not None else {},
        external=imported.value,
        scope_path=path,
    )
    FlowInterpreter(context, kinds, values).run_function(node, params)
    found = [
        Kind.UNKNOWN
        if value is None or is_none(value)
        else values.get(value, kinds.get(value, Kind.UNKNOWN))
        for value in returns
    ]
    return merge_values_all(found) if found else Kind.UNKNOWN


def context_from_enclosing(
    trace: Mapping[ast.AST, TraceInfo], chain: list[FunctionNode]
) -> TraceInfo | None:
    """The trace a function's body runs under from the functions around it (`chain`,
    outermost first): the nearest traced one's, with no parameters of its own traced."""
    for outer in reversed(chain):
        info = trace.get(outer)
        if info is not None:
            return TraceInfo(
                info.via, info.abstract, frozenset(), frozenset(), False, eager=info.eager
            )
    return None


def _mentions(expr: ast.expr, names: frozenset[str]) -> bool:
    return any(type(node) is ast.Name and node.id in names for node in walk_nodes(expr))


def _rebinds_its_target(tree: ast.Module, application: Application) -> bool:
    """`f = jax.jit(f)` at module level: the name now runs the transformed function."""
    if application.enclosing is not None or application.call is not None:
        return False
    return any(
        type(statement) is ast.Assign
        and statement.value is application.node
        and len(statement.targets) == 1
        and type(statement.targets[0]) is ast.Name
        and statement.targets[0].id == application.target.name
        for statement in tree.body
    )


# Which parameter of the function given to a lax loop receives the carry, and where the
# loop's call passes the initial carry (position, keyword).
_CARRY_PARAMS = {"lax.while_loop": 0, "lax.fori_loop": 1, "lax.scan": 0}


_CARRY_ARGUMENTS = {
    "lax.while_loop": (2, "init_val"),
    "lax.fori_loop": (3, "init_val"),
    "lax.scan": (1, "init"),
}


def _carry_leaves(value: Value) -> Value:
    """A loop body's carry: its containers keep the initial carry's structure, and every other
    part is traced, as the carry parameter is without a known structure (an unknown init
    element, a caller's parameter `(n, 0)`, is a tracer in the body all the same)."""
    if value is Kind.UNKNOWN:
        return Kind.TRACED
    if type(value) is Container:
        if value.items is None:  # only the kind of its items is known
            return Container(value.form, None, value.keys, _carry_leaves(value.leaf))
        items = tuple(_carry_leaves(v) for v in value.items)
        return Container(value.form, items, value.keys, value.leaf)
    return value


@per_unit
def _unit_local_refs(
    source: UnitSource, aliases: Keyed[Resolver]
) -> tuple[tuple[str, FunctionNode, frozenset[str]], ...]:
    """The names each function of the unit binds to a new ref (`_local_refs`), with its path
    and node, for the functions that bind some: a name defined again in a later unit is its
    last definition's."""
    found = [
        (record.path, record.node, _node_local_refs(record.node, aliases))
        for record in unit_summary(source, aliases).functions
        if not isinstance(record.node, ast.Lambda)
    ]
    return tuple([entry for entry in found if entry[2]])


def _node_local_refs(node: FunctionNode, aliases: Keyed[Resolver]) -> frozenset[str]:
    """`_local_refs` memoised on the function's node and the module's import aliases: an
    edit in one method of a class shares the other methods' nodes with the last parse
    (`document._splice_member`), and what a function binds to a new ref is a fact of its
    subtree and the imports alone."""
    known = _LOCAL_REFS.get(node)
    if known is not None and known[0] == aliases.key:
        return known[1]
    found = _local_refs(node, aliases.value)
    _LOCAL_REFS[node] = (aliases.key, found)
    return found


@per_unit
def _unit_ref_calls(
    source: UnitSource, aliases: Keyed[Resolver]
) -> tuple[tuple[frozenset[str], tuple], ...]:
    """`_ref_calls` of the unit's summary."""
    return _ref_calls(unit_summary(source, aliases))


def _ref_calls(summary: UnitSummary) -> tuple[tuple[frozenset[str], tuple], ...]:
    """A unit's calls and its applications called at once (`jax.vmap(f)(xs, ref)` passes its
    arguments on to `f`'s parameters), each with the names all their arguments spell."""
    calls = tuple(summary.calls)
    applied = tuple(
        [
            CallSite(application.enclosing, application.target, application.call)
            for application in summary.applications
            if application.call is not None
        ]
    )
    return tuple(
        (frozenset().union(*(call.argument_names for call in group)), group)
        for group in (calls, applied)
    )


@per_unit
def _may_make_refs(source: UnitSource) -> bool:
    return "_ref" in source.text


# `ModelView._local_refs` by function node: (the imports' key, the names). Weak keys: a
# forgotten tree takes its entries along.
_LOCAL_REFS: weakref.WeakKeyDictionary[ast.AST, tuple[object, frozenset[str]]] = (
    weakref.WeakKeyDictionary()
)


def _local_refs(node: FunctionNode, resolver: Resolver) -> frozenset[str]:
    """Names a function binds to `jax.new_ref(...)` / `jax.empty_ref(...)`."""
    names = set()
    for child in walk_nodes(node):
        if (
            isinstance(child, ast.Assign)
            and isinstance(child.value, ast.Call)
            and resolver.qualname(child.value.func) in NEW_REF
        ):
            names.update(t.id for t in child.targets if isinstance(t, ast.Name))
    return frozenset(names)


def _params_passed(
    callee: FunctionNode, call: ast.Call, names: frozenset[str], method: bool
) -> frozenset[str]:
    """Parameters of `callee` to which `call` passes one of `names`."""
    positional = positional_params(callee)
    if method and positional:
        positional = positional[1:]  # self.method(x): x lands on the second parameter
    passed = set()
    for index, arg in enumerate(call.args):
        if isinstance(arg, ast.Starred):
            break
        if isinstance(arg, ast.Name) and arg.id in names and index < len(positional):
            passed.add(positional[index])
    known = set(all_params(callee))
    for keyword in call.keywords:
        value = keyword.value
        if keyword.arg in known and isinstance(value, ast.Name) and value.id in names:
            passed.add(keyword.arg)
    return frozenset(passed)


def _no_method(call: ast.Call) -> None:
    """Outside traced code, calls of methods keep the values the flow gives them."""
    return None


def fixed_flags(node: FunctionNode, info: TraceInfo | None) -> dict[str, PassedValue]:
    """The values every trace of `node` gives a parameter that its code never rebinds."""
    if info is None or not info.literals:
        return {}
    return passed_values.fixed_flags(info.literals, rebound_names(node))


def _module_refs(global_values: dict[str, Value]) -> frozenset[str]:
    """The module-level names bound to a new ref."""
    return frozenset([name for name, value in global_values.items() if value is REF])

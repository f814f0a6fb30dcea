"""The trace: which functions of the module run under a JAX transformation, and why. The
fixpoint starts at each application (`jax.jit(f)`, `@jax.vmap`, a wrapper of the module, a
trace another module gives) and follows calls, property reads and constructions from traced
code to what they run (`trace_steps`), with the parameters each call makes traced. Reads
the references, the objects and the scope facts of the functions it reaches."""

from __future__ import annotations

import ast
import fnmatch
from collections.abc import Iterator
from dataclasses import replace
from itertools import compress

from jax_lsp.analysis.boolean_entries import passed_booleans
from jax_lsp.analysis.cached import cached_property
from jax_lsp.analysis.crossing import IncomingTrace
from jax_lsp.analysis.declared_statics import declared_abstract, declared_static
from jax_lsp.analysis.document import Unit, UnitSource
from jax_lsp.analysis.external import imports_a_wrapper
from jax_lsp.analysis.imports import Resolver
from jax_lsp.analysis.kinds import Kind
from jax_lsp.analysis.lengths import ancestors_of, entries_counted, parent_map
from jax_lsp.analysis.model_parts import ScopeKinds
from jax_lsp.analysis.model_view import ModelFact
from jax_lsp.analysis.names import binds_locally
from jax_lsp.analysis.nodes import dotted_name, is_staticmethod, positional_params, walk_nodes
from jax_lsp.analysis.pytrees import is_registered_pytree
from jax_lsp.analysis.summary import (
    Application,
    CallSite,
    FunctionNode,
    FunctionRef,
    UnitSummary,
    transform_of,
    unit_summary,
)
from jax_lsp.analysis.traced import (
    TraceInfo,
    TraceOrigin,
    all_params,
    array_defaults,
    array_used_params,
    call_site_params,
    static_parameters,
    trace_info_for,
    transform_name,
    unfilled_params,
)
from jax_lsp.analysis.transforms import (
    CUSTOM_DERIVATIVES,
    CUSTOM_RULES,
    GRADIENTS,
    PARTIAL,
    TRANSFORMS,
    ParamPolicy,
)
from jax_lsp.analysis.unit_memo import Keyed, per_unit
from jax_lsp.analysis.wrappers import Wrappers, given_function

_MAX_FIXPOINT_ROUNDS = 20

# Library module classes: a parameter annotated with one holds a pytree of weights.
_LIBRARY_MODULES = frozenset({"equinox.Module", "flax.nnx.Module"})

_STATIC_KEYWORDS = ("static_argnums", "static_argnames")
# They call the function they are given on the host, with NumPy arrays.
_HOST_CALLBACKS = frozenset(
    {"jax.pure_callback", "jax.experimental.io_callback", "jax.debug.callback"}
)
# The last part of the names calls spell to reach them, or `partial` of one.
_HOST_CALLBACK_CALLS = frozenset({"pure_callback", "io_callback", "callback", "partial"})
# It runs BFGS on `jax.grad` of its function in a `lax.while_loop`.
_MINIMIZE = "scipy.optimize.minimize"

# Transformations whose made function passes the arguments it is called with on to the
# function (`jax.jit(f)(x)` calls `f(x)`).
_PASSING_ON = frozenset({ParamPolicy.ALL_BUT_STATIC, ParamPolicy.IN_AXES, ParamPolicy.ARGNUMS})


def _item_call(name: str, read: ast.Subscript, caller: FunctionNode) -> CallSite | None:
    """`name[index]` as the call Python makes of it, `name.__getitem__(index)`; None for a
    slice (`name[1:]`: a slice object, which the model does not evaluate)."""
    if any(type(part) is ast.Slice for part in ast.walk(read.slice)):
        return None
    method = ast.copy_location(ast.Attribute(read.value, "__getitem__", ast.Load()), read)
    call = ast.copy_location(ast.Call(method, [read.slice], []), read)
    return CallSite(caller, FunctionRef(f"{name}.__getitem__", ()), call)


class Tracing(ModelFact):
    """The module's trace, found by a fixpoint (see the module docstring)."""

    trace: dict[ast.AST, TraceInfo]

    def set_trace(self, node: FunctionNode, info: TraceInfo, call: ast.Call | None = None) -> bool:
        """Merge `info` into the trace of `node` (from the traced `call`, if given); True if
        that changed it. A parameter is static where a transformation says so, or where every
        traced call gives it a Python value."""
        info = self.model.objects.admitted(node, info)
        declared = self._declared_static(node)
        if declared & info.traced_params:
            info = replace(
                info,
                traced_params=info.traced_params - declared,
                static_params=info.static_params | declared,
                all_leaves=info.all_leaves - declared,
            )
        if (
            info.differentiated
            and not info.differentiated_abstractly
            and declared_abstract(node, self.model.resolver)
        ):  # a jitted function differentiated: its derivative is traced too
            info = replace(info, differentiated_abstractly=True)
        old = self.trace.get(node)
        combined = old.merged(info) if old is not None else info
        if call is not None:
            self._call_statics.setdefault(node, {})[call] = info.static_params
        else:
            self._direct_statics[node] = self._direct_statics.get(node, frozenset()) | (
                info.static_params
            )
        votes = self._call_statics.get(node)
        static = self._direct_statics.get(node, frozenset())
        if votes:
            static |= frozenset.intersection(*votes.values())
        combined = replace(combined, static_params=static - combined.traced_params)
        if combined == old:
            if combined.origin is not old.origin:  # a nearer reason: nothing else changes
                self.trace[node] = combined
            return False
        self.trace[node] = combined
        self.model.scopes.contexts.clear()
        self.model.objects.object_params_memo.clear()
        return True

    def _declared_static(self, node: FunctionNode) -> frozenset[str]:
        """Parameters a decorator of `node` keeps Python values on every call of its name,
        whatever the caller passes (a tracer there fails at the call, not in `node`): the
        static ones of a jit-like transformation (`@partial(jax.jit, static_argnames=...)`),
        and a `jax.custom_vjp`'s `nondiff_argnums`."""
        if isinstance(node, ast.Lambda) or not node.decorator_list:
            return frozenset()
        found = self._declared.get(node)
        if found is None:
            found = self._declared[node] = declared_static(node, self.model.resolver)
        return found

    def apply(
        self, application: Application, unit_start: int, eager: bool = False
    ) -> TraceInfo | None:
        """Trace the function a transformation is applied to; its trace (None: not found).
        `eager`: applied where nothing traces (`shard_map` then runs the function eagerly)."""
        line = unit_start + application.node.lineno
        found = self.model.references.resolve_transformed(
            application.target, line, application.enclosing, application.spec.class_method
        )
        # On a name holding one of several classes, the method of each is transformed.
        traced = None
        for callee in self.model.references.resolve_all(
            application.target, line, application.enclosing, found
        ):
            traced = self._apply_to(*callee, application, unit_start, eager) or traced
        return traced

    def _apply_to(
        self,
        target: FunctionNode,
        ref: FunctionRef,
        application: Application,
        unit_start: int,
        eager: bool,
    ) -> TraceInfo | None:
        """`apply` to the function the transformation's target resolved to."""
        info = trace_info_for(application, target, self.model.objects.is_array_annotation, ref)
        if (
            application.spec.policy in _PASSING_ON
            and type(application.node) is ast.Call
            and application.node not in getattr(target, "decorator_list", ())
        ):  # a decorated function's calls: of its name, anywhere
            left = self._left_unfilled(application, unit_start, target, ref)
            if left:
                info = replace(
                    info,
                    traced_params=info.traced_params - left,
                    all_leaves=info.all_leaves - left,
                )
        if application.spec.policy is ParamPolicy.ARRAY_ANNOTATED:
            leaves = self._filtered_leaves(target, ref, application, unit_start)
            static = static_parameters(target, application.keywords, _STATIC_KEYWORDS)
            if static is not None:  # statics unreadable: leave the called parameters alone
                used = self._module_params(target)
                used |= array_used_params(target, self.model.resolver)
                leaves |= used - static
            info = replace(info, traced_params=info.traced_params | leaves)
        differentiated, abstract = self._nested_chain(application, unit_start)
        if differentiated:
            info = replace(info, differentiated=True, differentiated_abstractly=abstract)
        booleans = self.booleans_given(application, unit_start, target, ref)
        if booleans:
            info = replace(info, boolean_params=booleans)
        # Nested with others (`jax.jit(jax.vmap(f))`): the site shown is the outermost.
        nested = self._applied_together(application, unit_start)
        if application.call is not None and nested[-1] is not application:
            # A jit of a wrapper made where it runs (`jax.jit(jax.vmap(f))(x)`): a new
            # function each time, traced and compiled anew: it keeps the wrapper's trace.
            inner = nested[nested.index(application) + 1 :]
            info = replace(info, transforms=frozenset(a.spec.label for a in inner))
        origin = TraceOrigin(
            nested[0].node,
            unit_start,
            application.enclosing,
            nesting=tuple(a.spec.label for a in nested) if len(nested) > 1 else (),
        )
        if eager:
            info = replace(info, abstract=False, eager=True)
        self.set_trace(target, replace(info, origin=origin))
        if isinstance(target, ast.Lambda):
            enclosing, source = (
                application.enclosing,
                self.model._source_of.get(application.enclosing),
            )
            written = self.lambda_units.get(target)
            if written is not None and written[0] != unit_start:
                # Bound at module level in its own unit (a haiku transformation of it).
                enclosing, (unit_start, source) = None, written
            self.model._source_of.setdefault(target, source)
            self.lambda_homes.setdefault(target, (enclosing, unit_start))
        return self.trace[target]

    def _left_unfilled(
        self, application: Application, unit_start: int, target: FunctionNode, ref: FunctionRef
    ) -> frozenset[str]:
        """Parameters of `target` with a default, and its `*args` and `**kwargs`, that no
        call of what the transformation makes fills (`jax.jit(f)(x)`, `jax.vmap(partial(f,
        k=1))`, `jax.vmap(jax.vmap(f))(x)`): the transformation traces the arguments it is
        given, and Python fills the rest with the defaults (and with what a `partial`
        binds), values of the definition. Nothing when a call unpacks `*` or `**`."""
        unit = next((u for u in self.model.document.units if u.start_line == unit_start), None)
        if unit is None or unit.tree is None:
            return frozenset()
        outermost = application
        # A transformation of the transformed function runs it with its calls.
        for outer in self._nesting(application, unit_start, outward=True):
            if outer.spec.policy not in _PASSING_ON:
                break
            outermost = outer
        calls = [call for _, call, _, _ in self._calls_of_made(outermost, unit, ref)]
        return unfilled_params(target, ref, calls + self._attribute_calls(outermost))

    def _attribute_calls(self, application: Application) -> list[ast.Call]:
        """Calls of what a method makes and stores on its object (`self.fn = jax.jit(f)`),
        by the methods of its class (`self.fn(x)`)."""
        owner = application.enclosing
        record = self.model.records.get(owner) if owner is not None else None
        if record is None or record.class_name is None or isinstance(owner, ast.Lambda):
            return []
        receiver = positional_params(owner)[:1]
        attributes = [
            target.attr
            for statement in walk_nodes(owner)
            if type(statement) is ast.Assign and statement.value is application.node
            for target in statement.targets
            if type(target) is ast.Attribute
            and type(target.value) is ast.Name
            and [target.value.id] == receiver
        ]
        found = []
        for attribute in attributes:
            for caller, call, site_ref, _, _ in self.calls_by_name.get(attribute, ()):
                called = self.model.records.get(caller) if caller is not None else None
                if (
                    called is not None
                    and called.class_name == record.class_name
                    and not isinstance(caller, ast.Lambda)
                    and site_ref.name.rpartition(".")[0]
                    in (record.class_name, *positional_params(caller)[:1])
                ):
                    found.append(call)
        return found

    def _nested_chain(self, application: Application, unit_start: int) -> tuple[bool, bool]:
        """Whether the transformations nested with `application` (`jax.jit(jax.grad(f))`:
        both, from either) differentiate, and whether they also trace abstractly."""
        if not any(_differentiates(a) for a in self._unit_applications(unit_start)):
            return False, False
        chain = [
            application,
            *self._nesting(application, unit_start, outward=True),
            *self._nesting(application, unit_start, outward=False),
        ]
        differentiated = any(_differentiates(a) for a in chain)
        return differentiated, differentiated and any(a.spec.abstract for a in chain)

    def _reused(self, application: Application, unit_start: int) -> frozenset[str]:
        """The transformation's label, as the trace it keeps (`TraceInfo.transforms`): none
        for a jit of a wrapper made where it runs (`jax.jit(jax.vmap(f))(x)`), which traces
        anew every time."""
        if application.call is not None and self._nesting(application, unit_start, False):
            return frozenset()
        return frozenset([application.spec.label])

    def _applied_together(self, application: Application, unit_start: int) -> list[Application]:
        """The transformations applied together where `application` is (`jax.jit(jax.vmap(
        f))`), outermost first; `application` alone when nothing nests with it."""
        node = application.node
        if type(node) is not ast.Call:
            return [application]
        inner = node.args[:1]
        outward = self._nesting(application, unit_start, outward=True)
        inward = (
            self._nesting(application, unit_start, outward=False)
            if inner and type(inner[0]) is ast.Call
            else []
        )
        return [*reversed(outward), application, *inward]

    def _unit_applications(self, unit_start: int) -> list[Application]:
        """The transformations the unit starting at `unit_start` applies."""
        units = [u for u in self.model.document.units if u.tree is not None]
        index = next((i for i, u in enumerate(units) if u.start_line == unit_start), None)
        return self.model.summaries[index].applications if index is not None else []

    def _nesting(
        self, application: Application, unit_start: int, outward: bool
    ) -> list[Application]:
        """The transformations applied to what `application` makes (`outward`), or that
        make what it is applied to, nearest first."""
        if type(application.node) is not ast.Call:
            return []
        applications = self._unit_applications(unit_start)
        by_node = {id(a.node): a for a in applications}
        found: list[Application] = []
        current = application
        while len(found) < 8:
            if outward:
                following = next(
                    (
                        other
                        for other in applications
                        if type(other.node) is ast.Call and other.node.args[:1] == [current.node]
                    ),
                    None,
                )
            else:
                inner = current.node.args[:1] if type(current.node) is ast.Call else []
                following = by_node.get(id(inner[0])) if inner else None
            if following is None or following is current:
                break
            found.append(following)
            current = following
        return found

    def booleans_given(
        self, application: Application, unit_start: int, target: FunctionNode, ref: FunctionRef
    ) -> frozenset[str]:
        """Parameters of `target` given a boolean array by a call that runs what the
        transformation makes: of the decorated function by its name (`@jax.jit def loss`,
        then `loss(x, x > 0)`), or of what `jax.jit(loss)` makes (at once, or through the
        name it is bound to)."""
        if isinstance(target, ast.Lambda) and type(application.node) is not ast.Call:
            return frozenset()
        if application.node in getattr(target, "decorator_list", ()):
            sites = []
            for caller, call, site_ref, source, start in self.calls_by_name.get(target.name, ()):
                resolved = self.model.references.resolve_ref(site_ref, start + call.lineno, caller)
                if resolved is not None and resolved[0] is target:
                    sites.append((caller, call, resolved[1], source))
        else:
            unit = next((u for u in self.model.document.units if u.start_line == unit_start), None)
            if unit is None or unit.tree is None:
                return frozenset()
            sites = list(self._calls_of_made(application, unit, ref))
        found: frozenset[str] = frozenset()
        for caller, call, site_ref, _ in sites:
            if isinstance(caller, ast.Lambda):
                continue
            traced = self.trace.get(caller) if caller is not None else None
            given = traced.boolean_params if traced is not None else frozenset()
            found |= passed_booleans(self.model, target, call, site_ref, caller, given)
        return found

    def _filtered_leaves(
        self, target: FunctionNode, ref: FunctionRef, application: Application, unit_start: int
    ) -> frozenset[str]:
        """Parameters a filtered transformation (`eqx.filter_jit`) traces beyond
        the annotated arrays: those holding an object of a PyTree class of the module (its
        array leaves are traced; `self` of a method, `model` given an `MLP`) and those some
        call gives a JAX array: a call of the transformed function by its name (a lambda's:
        of the name bound to it), or of what the transformation makes
        (`eqx.filter_jit(f)(x)`, `step = eqx.filter_jit(f)`)."""
        positional = positional_params(target)
        bound = set(positional[: ref.bound_positional]) | ref.bound_keywords
        found = {
            param
            for param, class_name in self.model.objects.object_classes(target).items()
            if (
                is_registered_pytree(self.model.classes[class_name], self.model.summaries)
                if class_name in self.model.classes
                else self.model._foreign.pytree_class(class_name)  # imported (`outgoing`)
            )
        }
        # A lambda's calls are those of the name bound to it (`f = nnx.jit(lambda ...)`).
        called = target if isinstance(target, ast.Lambda) else application.target.name
        sites = list(self._filtered_call_sites.get(called, ()))
        unit = next((u for u in self.model.document.units if u.start_line == unit_start), None)
        if unit is not None and unit.tree is not None:
            sites += self._calls_of_made(application, unit, ref)
        for caller, call, site_ref, source in sites:
            if isinstance(caller, ast.Lambda):
                continue
            kinds = (
                self.model.module_globals.module_kinds(source)
                if caller is None
                else self.model.scopes.scope_kinds(caller).kinds
            )
            for kind in (Kind.ARRAY, Kind.TRACED):
                found |= call_site_params(target, call, kinds, site_ref, kind)
        return frozenset(found - bound)

    def _module_params(self, target: FunctionNode) -> frozenset[str]:
        """Parameters of a function a filtered transformation traces annotated with a library
        module (`eqx.Module`), whose array leaves it traces."""
        arguments = [*target.args.posonlyargs, *target.args.args, *target.args.kwonlyargs]
        return frozenset(
            arg.arg
            for arg in arguments
            if arg.annotation is not None
            and self.model.resolver.qualname(arg.annotation) in _LIBRARY_MODULES
        )

    def array_passed(self, node: FunctionNode) -> frozenset[str]:
        """Parameters of `node` to which some call of the module naming it (or a `jax.jit` of
        it) passes a JAX or NumPy array or a tracer: values that cannot be hashed, so never
        static arguments."""
        if isinstance(node, ast.Lambda):
            return frozenset()
        found: set[str] = set()
        sites = []
        for caller, call, ref, source, unit_start in self.calls_by_name.get(node.name, ()):
            if isinstance(caller, ast.Lambda):
                continue
            resolved = self.model.references.resolve_ref(ref, unit_start + call.lineno, caller)
            if resolved is None or resolved[0] is not node:
                continue
            sites.append((caller, call, resolved[1], source))
        for caller, call, ref, source in [*sites, *self._jitted_calls(node)]:
            kinds = (
                self.model.module_globals.module_kinds(source)
                if caller is None
                else self.model.scopes.scope_kinds(caller).kinds
            )
            for kind in (Kind.ARRAY, Kind.TRACED, Kind.NUMPY):
                found |= call_site_params(node, call, kinds, ref, kind)
        return frozenset(found)

    def result_counted(self, node: FunctionNode) -> bool:
        """Does some call of `node` in the module (by name, or of a `jax.jit` of it) count the
        entries of its result: `len(f(x))`, `f(x).shape`, `f(x).mean()`, or the same of a
        name its scope binds the result to (`r = f(x)`, then `len(r)`)? A result padded to a
        static size would count the padding there."""
        if isinstance(node, ast.Lambda):
            return False
        sites = []
        for caller, call, ref, source, unit_start in self.calls_by_name.get(node.name, ()):
            if isinstance(caller, ast.Lambda):
                continue
            resolved = self.model.references.resolve_ref(ref, unit_start + call.lineno, caller)
            if resolved is not None and resolved[0] is node:
                sites.append((caller, call, source))
        sites += [(caller, call, source) for caller, call, _, source in self._jitted_calls(node)]
        for caller, call, source in sites:
            scope = caller if caller is not None else source.tree
            if scope is not None and _counts_result(call, scope):
                return True
        return False

    def _jitted_calls(
        self, node: FunctionNode
    ) -> Iterator[tuple[FunctionNode | None, ast.Call, FunctionRef, UnitSource]]:
        """Calls that run `node` through a `jax.jit(node, ...)` made of it: at once
        (`jax.jit(f)(x)`) or through the name it is bound to (`fast = jax.jit(f)`, then
        `fast(x)`, in the scope that binds it; any scope for a module-level name)."""
        units = self.model.document.parsed_units
        for unit, summary in zip(units, self.model.summaries, strict=True):
            for application in summary.applications:
                if application.spec.label != "jit" or type(application.node) is not ast.Call:
                    continue
                line = unit.start_line + application.node.lineno
                resolved = self.model.references.resolve_transformed(
                    application.target, line, application.enclosing
                )
                if resolved is None or resolved[0] is not node:
                    continue
                yield from self._calls_of_made(application, unit, resolved[1])

    def _calls_of_made(
        self, application: Application, unit: Unit, ref: FunctionRef
    ) -> Iterator[tuple[FunctionNode | None, ast.Call, FunctionRef, UnitSource]]:
        """Calls of the function a transformation makes (`ref`: how their arguments reach
        the transformed function): at once (`jax.jit(f)(x)`) or through the name it is
        bound to (`fast = jax.jit(f)`, then `fast(x)`, in the scope that binds it; any scope
        for a module-level name)."""
        if type(application.node) is not ast.Call:
            return
        if application.call is not None:
            yield application.enclosing, application.call, ref, unit.source
        scope = application.enclosing or unit.tree
        for name in _names_bound_to(application.node, scope):
            for caller, call, site_ref, source, _ in self.calls_by_name.get(name, ()):
                here = application.enclosing is None or caller is application.enclosing
                if site_ref.name == name and here:
                    yield caller, call, ref, source

    @cached_property
    def host_callbacks(self) -> frozenset[FunctionNode]:
        """Functions handed to a host callback (`jax.pure_callback(f, ...)`,
        `partial(jax.pure_callback, f, spec)`, `io_callback`, `jax.debug.callback`): JAX
        calls them on the host with NumPy arrays, outside any trace, even when the function
        is defined in traced code."""
        found: set[FunctionNode] = set()
        qualname = self.model.resolver.qualname
        units = self.model.document.parsed_units
        # Only the units whose text names one of the calls: asked at every edit.
        words = self.model.document.words_by_unit()  # the last version's for most units
        for unit, summary, unit_words in zip(units, self.model.summaries, words, strict=True):
            if _HOST_CALLBACK_CALLS.isdisjoint(unit_words):
                continue
            unit_start = unit.start_line
            for site in summary.calls:
                called = site.callee.name.rpartition(".")[2]
                if called not in _HOST_CALLBACK_CALLS:
                    continue
                caller, call = site.caller, site.node
                arguments = call.args
                if called == "partial":
                    if qualname(call.func) not in PARTIAL or not arguments:
                        continue
                    callee, arguments = arguments[0], arguments[1:]
                else:
                    callee = call.func
                if qualname(callee) not in _HOST_CALLBACKS or not arguments:
                    continue
                if type(arguments[0]) is not ast.Name:
                    continue
                name = arguments[0].id
                nested = [  # a function defined in the caller (the usual host function)
                    record.node
                    for record in self.model.records.values()
                    if caller is not None
                    and record.parent is caller
                    and getattr(record.node, "name", None) == name
                ]
                if nested:
                    found.update(nested)
                    continue
                resolved = self.model.references.resolve_ref(
                    FunctionRef(name, ()), unit_start + call.lineno, caller
                )
                if resolved is not None and not isinstance(resolved[0], ast.Lambda):
                    found.add(resolved[0])
        return frozenset(found)

    @cached_property
    def calls_by_name(
        self,
    ) -> dict[str, list[tuple[FunctionNode | None, ast.Call, FunctionRef, UnitSource, int]]]:
        """Every call of the module, by the last part of the name it calls (`f`, `self.f`)."""
        found: dict[str, list] = {}
        units = self.model.document.parsed_units
        for unit, summary in zip(units, self.model.summaries, strict=True):
            for call in summary.calls:
                site = (call.caller, call.node, call.callee, unit.source, unit.start_line)
                found.setdefault(call.callee.name.rpartition(".")[2], []).append(site)
        return found

    @cached_property
    def _filtered_call_sites(
        self,
    ) -> dict[
        str | ast.Lambda, list[tuple[FunctionNode | None, ast.Call, FunctionRef, UnitSource]]
    ]:
        """Calls of functions given to a filtered transformation, by the name they call (a
        lambda's: by the lambda)."""
        filtered = [
            application.target
            for summary in self.model.summaries
            for application in summary.applications
            if application.spec.policy is ParamPolicy.ARRAY_ANNOTATED
        ]
        names = {t.name for t in filtered if not isinstance(t.node, ast.Lambda)}
        lambdas = {target.node for target in filtered if isinstance(target.node, ast.Lambda)}
        found: dict[str | ast.Lambda, list] = {}
        if not filtered:
            return found
        # Module-level names of transformed lambdas, called from other statements.
        named = {
            name: node
            for summary in self.model.summaries
            for name, node in summary.transformed_lambdas
            if node in lambdas and name in self.model.module_globals.stable_globals
        }
        units = self.model.document.parsed_units
        for unit, summary in zip(units, self.model.summaries, strict=True):
            for call in summary.calls:
                site = (call.caller, call.node, call.callee, unit.source)
                if call.callee.name in names:
                    found.setdefault(call.callee.name, []).append(site)
                lambda_node = named.get(call.callee.name)
                caller = call.caller
                if lambda_node is not None and not (
                    caller and binds_locally(call.callee.name, caller)
                ):
                    found.setdefault(lambda_node, []).append(site)
            for call in summary.lambda_calls:
                if call.callee.node in lambdas:
                    site = (call.caller, call.node, call.callee, unit.source)
                    found.setdefault(call.callee.node, []).append(site)
        return found

    def _custom_rule_applications(self, seeded: _Seeded) -> list[tuple[Application, int]]:
        """The rules registered on `jax.custom_vjp` / `jax.custom_jvp` functions, as
        transformations applied inside the function (traced where it is traced)."""
        found = []
        for unit, summary in seeded:
            for primal_name, rule, role, node, method in summary.custom_rules:
                primal = self.model.references.definition(
                    primal_name, unit.start_line + node.lineno
                )
                nondiff = _nondiff_argnums(primal, self.model.resolver) if primal else None
                if nondiff is None:
                    continue  # not a custom-derivative function, or unreadable options
                if role == "first":  # `bwd(n, res, g)`: the leading arguments
                    count = len(nondiff.elts) if isinstance(nondiff, ast.Tuple) else 1
                    nondiff = ast.Tuple([ast.Constant(i) for i in range(count)], ast.Load())
                spec = CUSTOM_RULES[method]
                application = Application(spec, rule, {"static_argnums": nondiff}, primal, node)
                found.append((application, unit.start_line))
        return found

    def _module_branch_applications(self, seeded: _Seeded) -> list[tuple[Application, int]]:
        """`lax.switch(i, branches, x)` where `branches` is a module-level list or tuple
        display of other units (`branches = [f, g]`): the switch traces each function it
        names. A name the module also binds to anything else is left alone."""
        displays: dict[str, list[ast.expr] | None] = {}
        for _, summary in seeded:
            for name, elements in summary.module_displays:
                known = displays.setdefault(name, [])
                if elements is None or known is None:
                    displays[name] = None
                else:
                    known += elements
        found = []
        for unit, summary in seeded:
            for application, around in summary.branch_lists:
                name = application.target.name
                elements = displays.get(name)
                if not elements or any(binds_locally(name, scope) for scope in around):
                    continue
                found += [
                    (replace(application, target=FunctionRef(element.id, ())), unit.start_line)
                    for element in elements
                    if isinstance(element, ast.Name)
                ]
        return found

    @cached_property
    def definitions(self) -> dict[str, list[tuple[int, FunctionNode]]]:
        """Each function path's definitions in document order: (first line, node). Gathered
        when a name is first resolved: a module whose edits resolve nothing never pays it."""
        definitions: dict[str, list[tuple[int, FunctionNode]]] = {}
        units = self.model.document.parsed_units
        for unit, summary in zip(units, self.model.summaries, strict=True):
            for record in summary.functions:
                start = unit.start_line + record.node.lineno
                definitions.setdefault(record.path, []).append((start, record.node))
            for path, node in summary.named_lambdas:
                start = unit.start_line + node.lineno
                definitions.setdefault(path, []).append((start, node))
        for found in definitions.values():
            if len(found) > 1:  # most paths are defined once
                found.sort(key=lambda definition: definition[0])
        return definitions

    @cached_property
    def lambda_units(self) -> dict[ast.Lambda, tuple[int, UnitSource]]:
        """Where each lambda is written (its unit's start and parse): a lambda reached through
        a name (`jax.jit(model.apply)` of `model = hk.transform(lambda x: ...)`) lives in the
        unit of that binding, not in the unit applying the transformation."""
        units = self.model.document.parsed_units
        return {
            node: (unit.start_line, unit.source)
            for unit, summary in zip(units, self.model.summaries, strict=True)
            for node in summary.lambdas
        }

    def compute_trace(self, units: list[Unit]) -> None:
        self.trace = {}
        # Methods traced code runs on a module-level object (`seq.next_key()`): their `self`
        # outlives the trace.
        self.module_object_methods: set[FunctionNode] = set()
        self._call_statics: dict[ast.AST, dict[ast.Call, frozenset[str]]] = {}
        self._direct_statics: dict[ast.AST, frozenset[str]] = {}
        self._declared: dict[ast.AST, frozenset[str]] = {}
        # Parameters of each called function that a traced call passes a tracer, not counting
        # the caller's own parameters with a literal default (which may never be passed).
        self.given_tracers: dict[ast.AST, frozenset[str]] = {}
        # Traced lambdas: the function whose body holds each (None: module level), its unit.
        self.lambda_homes: dict[ast.Lambda, tuple[FunctionNode | None, int]] = {}
        # The units with something to seed the trace from (few): one identity check for each
        # unit a keystroke left alone, where each seed was a pass over every unit's summary.
        flags = self.model.document.lineage.each_unit(
            _seeds_trace, self.model.document.parsed_sources, self.model.aliases
        )
        seeded: _Seeded = list(compress(zip(units, self.model.summaries, strict=True), flags))
        applications: list[tuple[Application, int]] = []
        applications += self._module_branch_applications(seeded)
        for unit, summary in seeded:
            applications += [(a, unit.start_line) for a in summary.applications]
        jit_disabled_from = _jit_disabled_from(seeded)
        apps_by_enclosing: dict[ast.AST | None, list[tuple[Application, int]]] = {}
        # Functions of the module that transform the function they are given (`my_jit(f)`).
        applications += self._imported_wrapper_applications(units)
        wrappers = Wrappers(self.model, applications)
        # What the module's wrappers apply to their parameters (`wrapper_transforms`): the
        # list, not the wrappers, which hold the model (a cycle).
        self.wrapper_applied = wrappers.applied
        applications = [*wrappers.plain, *wrappers.applications()]
        applications += self.applied_to_instances(wrappers.applied)
        self.gradients = [(a, start) for a, start in applications if a.spec.label in GRADIENTS]
        for application, unit_start in applications:
            if (
                application.spec.disabled_with_jit
                and unit_start + application.node.lineno > jit_disabled_from
            ):
                continue  # runs eagerly: `jax_disable_jit` is on
            apps_by_enclosing.setdefault(application.enclosing, []).append(
                (application, unit_start)
            )
            # `shard_map` runs eagerly where nothing traces the code applying it; traced
            # code applying it traces it (below).
            self.apply(application, unit_start, eager=application.spec.eager_outside_trace)
        for application, unit_start in [
            *self._custom_rule_applications(seeded),
            *_schedule_applications(seeded),
        ]:
            apps_by_enclosing.setdefault(application.enclosing, []).append(
                (application, unit_start)
            )

        self._seed_incoming()
        # For `outgoing_traces`: what the fixpoint started from.
        self.trace_applications = applications
        pending = list(self.trace)
        # Every call of the module by its caller, for the traced functions' calls: gathered
        # only when something is traced (most edits of a module that traces nothing would
        # otherwise pay a pass over all of its calls).
        calls_by_caller: dict[ast.AST | None, list[tuple[CallSite, int]]] = {}
        sources = {unit.start_line: unit.source for unit in units} if pending else {}
        if pending:
            for unit, summary in zip(units, self.model.summaries, strict=True):
                for call in summary.calls:
                    calls_by_caller.setdefault(call.caller, []).append((call, unit.start_line))
        item_reads_by_caller = self.model.steps.item_reads(units) if pending else {}
        item_calls: dict[ast.Subscript, CallSite | None] = {}  # one per read: one vote each
        unit_starts = {id(unit.source): unit.start_line for unit in units} if pending else {}
        self.property_named_reads: dict[FunctionNode, list[ast.Attribute]] = {}
        rounds = 0
        while pending and rounds < _MAX_FIXPOINT_ROUNDS * max(len(self.trace), 1):
            rounds += 1
            node = pending.pop()
            if node in self.model.references.foreign_nodes:
                continue  # another module's function: its module analyses it (`outgoing`)
            info = self.trace[node]
            if isinstance(node, ast.Lambda):
                # Its body is analyzed with its enclosing function; the functions it calls run
                # in its trace (`jax.grad(lambda w: loss(w, X))`).
                pending += self.model.steps.trace_lambda_calls(node, info, calls_by_caller, sources)
                continue
            scope = self.model.scopes.scope_kinds(node)
            # Transformations applied here trace their function inside this trace: abstractly
            # if this is abstract, and in every argument the call passes a tracer to.
            for application, unit_start in apps_by_enclosing.get(node, []):
                if application.node in scope.unreached:
                    continue  # in a branch no trace of `node` takes
                target = self.trace_application_in(node, info, scope, application, unit_start)
                if target is not None and not isinstance(target, ast.Lambda):
                    pending.append(target)
            for call, unit_start in calls_by_caller.get(node, []):
                if call.node in scope.unreached:
                    continue  # in a branch no trace of `node` takes
                line = unit_start + call.node.lineno
                found = self.model.references.resolve_ref(call.callee, line, node)
                # A wrapper's parameter called runs what the wrapper was given; else the
                # methods of the classes a name may hold (`resolve_all`).
                wrapped = [] if found else wrappers.called(call.node, node, unit_start)
                callees = wrapped or self.model.references.resolve_all(
                    call.callee, line, node, found
                )
                if not callees and call.callee.name in self.model.classes:
                    pending += self.model.steps.trace_construction(
                        node, info, scope, call, unit_start
                    )
                for callee, ref in callees:
                    if self.model.steps.trace_call(
                        node, info, scope, call, callee, ref, unit_start
                    ):
                        pending.append(callee)
            start = unit_starts[id(self.model._source_of[node])]
            for call in self.model.steps.param_initializers(node):
                found = self.model.references.resolve_ref(
                    call.callee, start + call.node.lineno, node
                )
                if found is None or isinstance(found[0], ast.Lambda):
                    continue
                key = frozenset(positional_params(found[0])[:1])  # a tracer either way
                if self.model.steps.trace_call(node, info, scope, call, *found, start, key):
                    pending.append(found[0])
            for _, call in self.model.steps.property_reads(node, scope):
                found = self.model.references.resolve_ref(
                    call.callee, start + call.node.lineno, node
                )
                if found and self.model.steps.trace_call(node, info, scope, call, *found, start):
                    pending.append(found[0])
            for name, read, unit_start in item_reads_by_caller.get(node, []):
                if (
                    name not in self.model.objects.classes_in(node)
                    and name not in self.model.objects.instances
                ):
                    continue  # no instance of a class of the module: a list, a dict, an array
                if read not in item_calls:
                    item_calls[read] = _item_call(name, read, node)
                call = item_calls[read]
                if call is None:
                    continue
                found = self.model.references.resolve_ref(
                    call.callee, unit_start + read.lineno, node
                )
                if found and self.model.steps.trace_call(
                    node, info, scope, call, *found, unit_start
                ):
                    pending.append(found[0])

    def applied_to_instances(
        self, applied: list[tuple[Application, int, FunctionNode, str]]
    ) -> list[tuple[Application, int]]:
        """Transformations a function applies to its parameter where that parameter holds an
        instance of a class (`eqx.filter_vmap(m)(x)` in `loss_fn(m)`, given the model): they
        run the object's `__call__`, whatever else the parameter is bound to as a wrapper's."""
        return [
            (application, unit_start)
            for application, unit_start, owner, param in applied
            if param
            and owner is application.enclosing
            and param in self.model.objects.classes_in(owner)
        ]

    def _imported_wrapper_applications(self, units: list[Unit]) -> list[tuple[Application, int]]:
        """`@compiled` on a function of the module, or `compiled(step)` given a function,
        `compiled` a wrapper imported from another workspace module that applies a
        transformation to the function it is given first (`wraps`)."""
        external = self.model.external
        if not imports_a_wrapper(external):
            return []
        found = []
        for unit, summary in zip(units, self.model.summaries, strict=True):
            for decorator, decorated, enclosing in summary.decorations:
                if isinstance(decorator, ast.Call):
                    continue  # options the wrapper passes on: not read here
                facts = external.get(dotted_name(decorator) or "")
                if facts is None or facts.wraps is None or decorated not in self.model.records:
                    continue
                spec = TRANSFORMS[facts.wraps]
                target = FunctionRef(self.model.records[decorated].path, (), decorated)
                found.append((Application(spec, target, {}, enclosing, decorator), unit.start_line))
            for call in summary.calls:
                facts = external.get(call.callee.name)
                if facts is None or facts.wraps is None:
                    continue
                # The function alone: what else the call passes may be options the wrapper
                # hands its transformation (`static_argnames`), which are not read.
                if len(call.node.args) != 1 or call.node.keywords:
                    continue
                target = given_function(self.model, call.node.args[0], call.caller)
                if target is not None:
                    application = Application(
                        TRANSFORMS[facts.wraps], target, {}, call.caller, call.node
                    )
                    found.append((application, unit.start_line))
        return found

    @cached_property
    def wrapper_transforms(self) -> dict[str, str]:
        """Top-level functions of the module that apply a transformation to the function
        they are given first, with no option the caller must read: the transformation's
        `TRANSFORMS` name (`def compiled(fn, *, static=()): ... jax.jit(fn,
        static_argnames=static)` gives `jax.jit`: used bare, `static` stays empty)."""
        found: dict[str, str] = {}
        for application, _, owner, param in self.wrapper_applied:
            record = self.model.records.get(owner)
            if (
                record is None
                or record.parent is not None
                or record.class_name is not None
                or positional_params(owner)[:1] != [param]
            ):
                continue
            name = next((key for key, spec in TRANSFORMS.items() if spec is application.spec), None)
            if name is not None and _options_left_empty(application, owner):
                found.setdefault(record.path, name)
        return found

    def _seed_pattern(self, seed: IncomingTrace) -> None:
        """Trace, in every parameter, the top-level functions and methods whose dotted name
        matches the library-mode pattern `seed.function`."""
        for path, record in self.model.functions.items():
            if record.parent is not None or not fnmatch.fnmatchcase(
                f"{seed.module}.{path}", seed.function
            ):
                continue
            params = frozenset(all_params(record.node))
            if record.class_name is not None and not is_staticmethod(record.node):
                params -= frozenset(positional_params(record.node)[:1])  # self, cls
            steps = tuple(replace(step, function=path) for step in seed.steps)
            origin = TraceOrigin(None, 0, None, foreign=steps)
            info = TraceInfo(
                seed.via,
                True,
                params,
                frozenset(),
                True,
                origin,
                all_leaves=params,
                transforms=frozenset([seed.via]),
            )
            # A library's functions: its users may differentiate them under jit.
            info = replace(info, differentiated=True, differentiated_abstractly=True)
            self.set_trace(record.node, info)

    def seed_optimizer_updates(self, seed: IncomingTrace) -> None:
        """Trace the update functions and schedules given to optax in `seed.function` or in
        the module functions its calls reach (`make_optimizer` calling `adaptive_clip`, which
        returns `GradientTransformation(init_fn, update_fn)`): another module runs the
        `update` of the optimizers it makes in its trace."""
        maker = self.model.references.definition(seed.function, None)
        if maker is None or isinstance(maker, ast.Lambda):
            return
        units = self.model.document.parsed_units
        calls: dict[FunctionNode | None, list[tuple[CallSite, int]]] = {}
        for unit, summary in zip(units, self.model.summaries, strict=True):
            for call in summary.calls:
                calls.setdefault(call.caller, []).append((call, unit.start_line))
        reached, pending = {maker}, [maker]
        while pending:
            caller = pending.pop()
            for call, unit_start in calls.get(caller, ()):
                found = self.model.references.resolve_ref(
                    call.callee, unit_start + call.node.lineno, caller
                )
                if found is not None and found[0] not in reached:
                    reached.add(found[0])
                    pending.append(found[0])
        for unit, summary in zip(units, self.model.summaries, strict=True):
            for schedule in summary.schedules:
                if schedule.enclosing not in reached:
                    continue
                line = unit.start_line + schedule.node.lineno
                found = self.model.references.resolve_transformed(
                    schedule.target, line, schedule.enclosing
                )
                if found is None or self.apply(schedule, unit.start_line) is None:
                    continue
                target = found[0]
                label = transform_name(schedule.spec.label)
                name = self.model.scopes.display_name(target)
                steps = tuple(replace(step, function=name, label=label) for step in seed.steps[:1])
                origin = TraceOrigin(None, 0, None, foreign=(*steps, *seed.steps[1:]))
                self.set_trace(
                    target, replace(self.trace[target], abstract=seed.abstract, origin=origin)
                )

    def trace_application_in(
        self,
        node: FunctionNode,
        info: TraceInfo,
        scope: ScopeKinds,
        application: Application,
        unit_start: int,
    ) -> FunctionNode | None:
        """A transformation applied in the traced `node` traces its function inside this
        trace: abstractly if this is abstract, and in every argument the call passes a tracer
        to. The function, if its trace changed."""
        if application.spec.abstract_only and not info.differentiated_abstractly:
            # A custom derivative rule: not run where nothing differentiates the function,
            # on concrete values under `grad` alone.
            return None
        line = unit_start + application.node.lineno
        found = self.model.references.resolve_transformed(
            application.target, line, node, application.spec.class_method
        )
        if found is None:
            return None
        target, ref = found
        first = target not in self.trace  # `shard_map`: traced only in traced code
        old = self.trace[target] if not first else self.apply(application, unit_start)
        if old is None:
            return None
        traced = old.traced_params
        if application.call is not None:
            traced |= call_site_params(target, application.call, scope.kinds, ref)
            given = application.node
            given = given.args[0] if isinstance(given, ast.Call) and given.args else None
            traced |= self.model.steps.traced_receiver(target, ref, given, scope)
            traced -= old.static_params
        gradient = application.spec.label in GRADIENTS
        new = replace(
            old,
            abstract=old.abstract or info.abstract or application.spec.abstract,
            traced_params=traced,
            eager=info.eager,
            differentiated=old.differentiated or info.differentiated or gradient,
            differentiated_abstractly=old.differentiated_abstractly
            or info.differentiated_abstractly
            or (info.differentiated and application.spec.abstract)
            or (gradient and info.abstract),
            transforms=old.transforms | self._reused(application, unit_start),
        )
        changed = self.set_trace(target, new) or first
        return target if changed else None

    def _seed_incoming(self) -> None:
        """Trace the functions that other modules of the project trace (`incoming`), as a
        transformation applied here would."""
        for seed in self.model.incoming:
            if seed.untraced:
                # Classes passed in (`ObjectFacts.passed_classes`), no trace; and boolean
                # arrays given to a function its decorator traces on every call.
                self._seed_untraced_booleans(seed)
                continue
            if seed.module is not None:
                self._seed_pattern(seed)
                continue
            if seed.runs_updates:
                self.seed_optimizer_updates(seed)
                continue
            node = self.model.references.definition(seed.function, None)
            if node is None or isinstance(node, ast.Lambda):
                continue
            origin = TraceOrigin(None, 0, None, called=not seed.direct, foreign=seed.steps)
            info = TraceInfo(
                seed.via,
                seed.abstract,
                seed.traced_params,
                seed.static_params,
                seed.direct,
                origin,
                all_leaves=seed.all_leaves,
                module_defaults=seed.module_defaults,
                literals=seed.literals,
                array_functions=seed.array_functions
                & array_defaults(node, self.model.resolver.qualname),
                boolean_params=seed.boolean_params,
                differentiated=seed.differentiated,
                differentiated_abstractly=seed.differentiated_abstractly,
                transforms=seed.transforms,
            )
            self.set_trace(node, info)
            if seed.given_tracers:
                given = self.given_tracers.get(node, frozenset())
                self.given_tracers[node] = given | seed.given_tracers

    def _seed_untraced_booleans(self, seed: IncomingTrace) -> None:
        """The boolean arrays calls outside any trace in another module give a function
        a transformation decorates (`@jax.jit def loss(x, mask)`): each call runs its
        trace."""
        if not seed.boolean_params:
            return
        node = self.model.references.definition(seed.function, None)
        info = self.trace.get(node) if node is not None else None
        if info is None or isinstance(node, ast.Lambda):
            return
        if not any(transform_of(d, self.model.resolver) for d in node.decorator_list):
            return
        self.set_trace(
            node, replace(info, boolean_params=info.boolean_params | seed.boolean_params)
        )


_Seeded = list[tuple[Unit, UnitSummary]]


@per_unit
def _seeds_trace(source: UnitSource, aliases: Keyed[Resolver]) -> bool:
    """Whether the unit's summary holds anything `Tracing.compute_trace` starts a trace
    from: a transformation applied, a switch over a module-level display of functions (or
    such a display), `jax_disable_jit` set, a custom derivative rule, a schedule or an
    optimizer update."""
    summary = unit_summary(source, aliases)
    return bool(
        summary.applications
        or summary.module_displays
        or summary.branch_lists
        or summary.custom_rules
        or summary.optimizer_updates
        or summary.schedules
        or any(qualname == "jax.config.update" for qualname, _ in summary.module_calls)
    )


def _schedule_applications(seeded: _Seeded) -> list[tuple[Application, int]]:
    """Each function given to optax as a schedule, applied in every function that runs an
    optimizer's update (`tx.update(grads, state)`, `state.apply_gradients(...)`): optax
    calls the schedule there, so it is traced where that function is."""
    updates = [
        (function, call, unit.start_line)
        for unit, summary in seeded
        for function, call in summary.optimizer_updates
    ]
    if not updates:
        return []
    return [
        (replace(schedule, enclosing=function, node=call), unit_start)
        for _, summary in seeded
        for schedule in summary.schedules
        for function, call, unit_start in updates
    ]


def _jit_disabled_from(seeded: _Seeded) -> float:
    """The document line after which `jax.config.update("jax_disable_jit", True)` has
    switched jit off for the rest of the module (infinity: never)."""
    for unit, summary in seeded:
        for qualname, call in summary.module_calls:
            if qualname == "jax.config.update" and _sets_disable_jit(call):
                return unit.start_line + call.lineno
    return float("inf")


def _differentiates(application: Application) -> bool:
    return application.spec.label in GRADIENTS or application.spec.label == _MINIMIZE


def _sets_disable_jit(call: ast.Call) -> bool:
    """`jax.config.update("jax_disable_jit", True)`."""
    values = [a.value if isinstance(a, ast.Constant) else None for a in call.args[:2]]
    return values == ["jax_disable_jit", True]


_NO_NONDIFF = ast.Tuple([], ast.Load())


def _nondiff_argnums(function: FunctionNode, resolver: Resolver) -> ast.expr | None:
    """The `nondiff_argnums` of a function decorated with `jax.custom_vjp`/`custom_jvp`
    (an empty tuple when none), or None: not such a function, or options not readable."""
    if isinstance(function, ast.Lambda):
        return None
    for decorator in function.decorator_list:
        if resolver.qualname(decorator) in CUSTOM_DERIVATIVES:
            return _NO_NONDIFF
        if (
            isinstance(decorator, ast.Call)
            and resolver.qualname(decorator.func) in PARTIAL
            and decorator.args
            and resolver.qualname(decorator.args[0]) in CUSTOM_DERIVATIVES
        ):
            options = {k.arg: k.value for k in decorator.keywords}
            if None in options or set(options) - {"nondiff_argnums"} or len(decorator.args) > 1:
                return None
            nondiff = options.get("nondiff_argnums", _NO_NONDIFF)
            if isinstance(nondiff, ast.Constant) and isinstance(nondiff.value, int):
                return ast.Tuple([nondiff], ast.Load())
            if isinstance(nondiff, ast.Tuple) and all(
                isinstance(e, ast.Constant) and isinstance(e.value, int) for e in nondiff.elts
            ):
                return nondiff
            return None
    return None


def _names_bound_to(value: ast.expr, scope: ast.AST) -> list[str]:
    """The names `scope`'s assignments bind to `value` itself (`fast = jax.jit(f)`)."""
    return [
        target.id
        for statement in walk_nodes(scope)
        if type(statement) is ast.Assign and statement.value is value
        for target in statement.targets
        if isinstance(target, ast.Name)
    ]


def _options_left_empty(application: Application, owner: FunctionNode) -> bool:
    """Whether every option of the wrapper's transformation is a literal, or a parameter of
    the wrapper whose default is empty (`static_argnames=static`, `static=()`): used bare, the
    wrapper applies no option its caller must read."""
    if application.forwarded is not None:
        return False
    defaults = dict(_defaults_of(owner))
    for value in application.keywords.values():
        if isinstance(value, ast.Constant):
            continue
        if not isinstance(value, ast.Name) or value.id not in defaults:
            return False
        default = defaults[value.id]
        empty = (isinstance(default, ast.Constant) and default.value in (None, "")) or (
            isinstance(default, ast.Tuple | ast.List) and not default.elts
        )
        if not empty:
            return False
    return True


def _defaults_of(function: FunctionNode) -> Iterator[tuple[str, ast.expr]]:
    args = function.args
    positional = [*args.posonlyargs, *args.args]
    for arg, default in zip(
        positional[len(positional) - len(args.defaults) :], args.defaults, strict=True
    ):
        yield arg.arg, default
    for arg, default in zip(args.kwonlyargs, args.kw_defaults, strict=True):
        if default is not None:
            yield arg.arg, default


def _counts_result(call: ast.Call, scope: ast.AST) -> bool:
    """Does `scope` count the entries of `call`'s result, there or through a name bound to
    it (`r = f(x)`, `(r,) = f(x)`)?"""
    parents = parent_map(scope)
    chain = ancestors_of(call, parents)
    if entries_counted(call, chain):
        return True
    statement = chain[-1] if chain else None
    if not (isinstance(statement, ast.Assign) and statement.value is call):
        return False
    names = {
        element.id
        for target in statement.targets
        for element in (target.elts if isinstance(target, ast.Tuple | ast.List) else [target])
        if isinstance(element, ast.Name)
    }
    for found in ast.walk(scope):
        if (
            isinstance(found, ast.Name)
            and found.id in names
            and isinstance(found.ctx, ast.Load)
            and entries_counted(found, ancestors_of(found, parents))
        ):
            return True
    return False

"""Objects and classes: which class each name or parameter holds an instance of, the
fields of an object as its constructor sets them, the attributes each class's instances are
given (in its methods or outside), and the classes' PyTree facts. Reads the model's classes
and records, the globals, and resolves calls through the references."""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator, Mapping, Set
from dataclasses import replace
from types import MappingProxyType

from jax_lsp.analysis.attributes import (
    ANY_ATTRIBUTE,
    FreshWrite,
    InstanceEvent,
    attribute_writes,
    attributes_set_per_class,
    defined_attributes,
    instance_events,
)
from jax_lsp.analysis.cached import cached_property
from jax_lsp.analysis.crossing import NO_FOREIGN
from jax_lsp.analysis.declared_containers import without_none
from jax_lsp.analysis.document import Unit, UnitSource
from jax_lsp.analysis.external import ExternalFacts
from jax_lsp.analysis.fields import boolean_entries, boolean_fields
from jax_lsp.analysis.flow import FlowInterpreter, ScopeContext, annotation_kind
from jax_lsp.analysis.haiku import HAIKU_TRANSFORMS, haiku_transformed, returned_haiku_transform
from jax_lsp.analysis.imports import Resolver, local_imports
from jax_lsp.analysis.kinds import Kind
from jax_lsp.analysis.model_parts import ELEMENTS, attribute_constructors
from jax_lsp.analysis.model_view import ModelFact, ModelView
from jax_lsp.analysis.names import binds_locally
from jax_lsp.analysis.nodes import (
    child_nodes,
    dotted_name,
    is_staticmethod,
    positional_params,
    walk_nodes,
)
from jax_lsp.analysis.objects import field_values, self_assignments
from jax_lsp.analysis.pytrees import flattens_fields, is_registered_pytree
from jax_lsp.analysis.shapes import ArrayShape, ShapeTracker
from jax_lsp.analysis.summary import ClassRecord, FunctionNode, FunctionRef, unit_summary
from jax_lsp.analysis.text import identifiers
from jax_lsp.analysis.traced import TraceInfo, all_params
from jax_lsp.analysis.unit_memo import Keyed, per_unit
from jax_lsp.analysis.values import Instance, Object, Value, merge_values
from jax_lsp.analysis.workspace import real_file

_MAX_CLASS_ROUNDS = 4  # helpers passing an object on to helpers
_MAX_NESTED_INSTANCES = 3  # a PyTree field of a PyTree field of ...


class ObjectFacts(ModelFact):
    """Objects, classes, their instances and attributes (see the module docstring)."""

    def __init__(self, model: ModelView) -> None:
        super().__init__(model)
        # Memo of object_params (cleared with _contexts) and of the classes of each function's
        # parameters and locals.
        self.object_params_memo: dict[ast.AST, tuple[tuple[str, Instance], ...]] = {}
        self.param_classes: dict[ast.AST, dict[str, str]] = {}
        # Objects of each class seen outside any trace (see self_object), by class name.
        self._plain_objects: dict[str, Object | None] = {}

    @cached_property
    def _stable_shapes(self) -> dict[str, ArrayShape]:
        # The value expressions compare by identity: the same while their units are unchanged.
        stable = tuple(self.model.module_globals.stable_globals.items())
        return self.model.document.lineage.reuse(_stable_shapes, self.model.aliases, stable)

    def stable_shapes(self, text: str) -> Mapping[str, ArrayShape]:
        """Literal shapes of the module-level names `text` mentions that are bound once and
        never rebound: they keep their shape everywhere. Read-only: a rule's reads of module
        facts are recorded with their answers (`jax_lsp.analysis.reads`)."""
        shapes = self._stable_shapes
        if not shapes:
            return MappingProxyType({})  # most modules: the text's names are not needed
        names = identifiers(text)
        if len(names) > len(shapes):
            return MappingProxyType({n: shape for n, shape in shapes.items() if n in names})
        return MappingProxyType({name: shapes[name] for name in names if name in shapes})

    @cached_property
    def instances(self) -> dict[str, str]:
        """Module-level names bound once to an instance of a class of the module: the last
        version's while the names bound once hold the same values (the same nodes) and the
        classes are the same names (an edit inside a function or a method)."""
        return self.model.document.lineage.reuse(
            _instances, self.model.module_globals.stable_globals, frozenset(self.model.classes)
        )

    @cached_property
    def haiku_transforms(self) -> dict[str, tuple[str | ast.Lambda, int]]:
        """Module-level names bound once to a haiku transformation of a module function or
        of a lambda (`model = hk.transform(forward)`, `hk.transform(lambda x: Net()(x))`,
        `@hk.transform` on a function): the function's path or the lambda, and how many
        arguments of `apply` come before its own (params, state, rng)."""
        found = {}
        for name, value in self.model.module_globals.stable_globals.items():
            transformed = haiku_transformed(value, self.model.resolver)
            if transformed is None:
                transformed = self._made_by_factory(value)
            if transformed is not None:
                found[name] = transformed
        for path, record in self.model.functions.items():
            for decorator in getattr(record.node, "decorator_list", ()):
                leading = HAIKU_TRANSFORMS.get(self.model.resolver.qualname(decorator) or "")
                if (
                    leading is not None
                    and "." not in path
                    and path not in self.model.module_globals.stable_globals
                ):
                    found[path] = (path, leading)
        return found

    def _made_by_factory(self, value: ast.expr) -> tuple[str | ast.Lambda, int] | None:
        """The haiku transformation a call of a module function returns (`net =
        make_net()`), when each of its returns is one of the same function."""
        if not (isinstance(value, ast.Call) and isinstance(value.func, ast.Name)):
            return None
        record = self.model.functions.get(value.func.id)
        if record is None or record.parent is not None:
            return None
        return returned_haiku_transform(record.node, record.path, self.model.resolver)

    @cached_property
    def apply_fn_class(self) -> str | None:
        """The class of the objects whose `apply` the module passes as `apply_fn=`, when
        there is one such class: its name here (a class of the module, or one imported from
        another workspace module, which `references` resolves there)."""
        classes = set()
        for summary in self.model.summaries:
            for name, made_here in summary.apply_fns:
                if made_here:
                    classes.add(name)
                    continue
                value = self.model.module_globals.stable_globals.get(name)
                made = isinstance(value, ast.Call) and isinstance(value.func, ast.Name)
                classes.add(value.func.id if made else None)
        return classes.pop() if len(classes) == 1 else None

    def annotated_params(self, function: FunctionNode) -> dict[str, str]:
        """Parameters annotated with a class of the module (`model: MLP`), or of another
        workspace module while `_foreign` names them (see `outgoing_traces`)."""
        if isinstance(function, ast.Lambda):
            return {}
        args = function.args
        return {
            arg.arg: arg.annotation.id
            for arg in [*args.posonlyargs, *args.args, *args.kwonlyargs]
            if isinstance(arg.annotation, ast.Name)
            and (
                arg.annotation.id in self.model.classes
                or self.model._foreign.is_class(arg.annotation.id)
            )
        }

    def classes_in(self, function: FunctionNode) -> dict[str, str]:
        """Names of a function that hold an instance of a class of the module: parameters
        annotated with it (`model: MLP`) or given one by a call (`step(mlp, x)`), and locals
        bound to one (`model = MLP(...)`)."""
        found = self.param_classes.get(function)
        if found is None:
            found = {
                **self._loop_element_classes(function),
                **self._lambda_param_classes(function),
                **self.constructed.get(function, {}),
                **self.passed_classes.get(function, {}),
                **self.annotated_params(function),
            }
            self.param_classes[function] = found
        return found

    def _loop_element_classes(self, function: FunctionNode) -> dict[str, str]:
        """Names a method binds to the elements of a list its object holds, all instances
        of one class of the module (`for layer in self.layers:` where `self.layers =
        nnx.List([Block(...) for _ in range(n)])`); a name bound otherwise too is left out."""
        record = self.model.records.get(function)
        positional = positional_params(function)
        if record is None or record.class_name not in self.model.classes or not positional:
            return {}
        if isinstance(function, ast.Lambda):
            return {}
        found: dict[str, str] = {}
        targets: set[ast.Name] = set()
        mixed: set[str] = set(all_params(function))
        nodes = walk_nodes(function)
        for loop in nodes:
            if not (
                type(loop) is ast.For
                and type(loop.target) is ast.Name
                and type(loop.iter) is ast.Attribute
                and type(loop.iter.value) is ast.Name
                and loop.iter.value.id == positional[0]
            ):
                continue
            key = (record.class_name, loop.iter.attr + ELEMENTS)
            held = self.attribute_classes.get(key)
            if held is None and self.model._foreign is not NO_FOREIGN:
                held = self.model.references.foreign_attribute_classes.get(
                    key
                )  # an imported class's objects
            if held is not None:
                targets.add(loop.target)
                if found.setdefault(loop.target.id, held) != held:
                    mixed.add(loop.target.id)
        if found:  # a name bound otherwise too may hold anything
            mixed |= {
                node.id
                for node in nodes
                if type(node) is ast.Name and type(node.ctx) is ast.Store and node not in targets
            }
        return {name: held for name, held in found.items() if name not in mixed}

    def _lambda_param_classes(self, function: FunctionNode) -> dict[str, str]:
        """Parameters of the lambdas in `function` given an instance of a class of the module
        (`nnx.value_and_grad(lambda m: loss(m(x)))(model)`). The calls in a lambda's body are
        the enclosing function's, so its parameters are looked up there; a name the function
        binds itself, or lambdas given two classes under one name, are left out."""
        if isinstance(function, ast.Lambda):
            return {}
        passed = self.passed_classes
        if not any(isinstance(node, ast.Lambda) for node in passed):
            return {}
        found: dict[str, str] = {}
        clashes: set[str] = set()
        for node in _own_lambdas(function):
            for name, class_name in passed.get(node, {}).items():
                shadowed = binds_locally(name, function)
                if shadowed or found.setdefault(name, class_name) != class_name:
                    clashes.add(name)
        return {name: class_name for name, class_name in found.items() if name not in clashes}

    @cached_property
    def constructed(self) -> dict[FunctionNode | None, dict[str, str]]:
        """Names each function (None: the module) binds to `Cls(...)`, a class of the module;
        a name bound to instances of two classes is left out (`construction_choices`)."""
        return {
            scope: {name: next(iter(held)) for name, held in bound.items() if len(held) == 1}
            for scope, bound in self._construction_classes().items()
        }

    @cached_property
    def construction_choices(self) -> dict[FunctionNode | None, dict[str, frozenset[str]]]:
        """Names each function (None: the module) binds to instances of two classes or more
        (`cell = GRUCell(...)` on one branch, `cell = ElmanCell(...)` on the other)."""
        found: dict[FunctionNode | None, dict[str, frozenset[str]]] = {}
        for scope, bound in self._construction_classes().items():
            for name, held in bound.items():
                if len(held) > 1:
                    found.setdefault(scope, {})[name] = frozenset(held)
        return found

    def _construction_classes(self) -> dict[FunctionNode | None, dict[str, set[str]]]:
        found: dict[FunctionNode | None, dict[str, set[str]]] = {}
        for summary in self.model.summaries:
            for scope, name, callee in summary.constructions:
                if callee in self.model.classes or self.model._foreign.is_class(callee):
                    found.setdefault(scope, {}).setdefault(name, set()).add(callee)
        return found

    @cached_property
    def passed_classes(self) -> dict[FunctionNode, dict[str, str]]:
        """Parameters to which a call of the module passes an instance of a class of the
        module: a name bound to `Cls(...)` in the caller or at module level, `Cls(...)`
        itself, or a parameter that receives one; through plain calls and called
        transformations (`eqx.filter_value_and_grad(loss)(model, x, y)`). A parameter given
        instances of two classes is left out."""
        constructed = self.constructed
        classes: Mapping[str, object] = self.model.classes
        incoming: dict[FunctionNode, dict[str, str]] = {}
        incoming_choices: dict[FunctionNode, dict[str, frozenset[str]]] = {}
        if self.model._foreign is not NO_FOREIGN:  # imported classes too (see `outgoing_traces`)
            incoming, incoming_choices = self._incoming_classes()
            given = [local for params in incoming.values() for local in params.values()]
            given += [
                local
                for params in incoming_choices.values()
                for held in params.values()
                for local in held
            ]
            classes = {
                **dict.fromkeys(self.model._foreign.class_names()),
                **dict.fromkeys(given),
                **self.model.classes,
            }
        if not classes:
            self.__dict__["passed_choices"] = {}
            return {}
        names = {name for bound in constructed.values() for name in bound}
        found: dict[FunctionNode, dict[str, str]] = {}
        mixed: set[tuple[FunctionNode, str]] = set()
        # The classes each parameter is given: two or more make it one of them.
        seen: dict[tuple[FunctionNode, str], set[str]] = {}
        # The parameters of each function in `seen`, in the order they entered it.
        seen_params: dict[FunctionNode, list[str]] = {}
        for node, params in incoming.items():
            found[node] = dict(params)
            names |= params.keys()
        for node, params in incoming_choices.items():
            for param, held in params.items():
                mixed.add((node, param))
                seen[(node, param)] = set(held)
                seen_params.setdefault(node, []).append(param)
                names.add(param)
        choices = self.construction_choices
        names |= {name for bound in choices.values() for name in bound}
        constructing = bool(self.model.references.constructing_functions)
        aliases = self.model.aliases
        # A call passes an instance when an argument is `Cls(...)` (or any call, while some
        # function constructs), or a name that may hold one (`names`, which grows).
        candidates = []
        for unit in self.model.document.units:
            if unit.tree is None:
                continue
            for caller, ref, call, given, called, calls in _class_sites(unit.source, aliases):
                sure = calls and (constructing or not classes.keys().isdisjoint(called))
                candidates.append((caller, ref, call, unit.start_line, given, sure))
        # A call's instances passed read only its caller's entries (`found`, `seen` and
        # `mixed` of the caller), and passing the same again changes nothing: a call is
        # worked out again only when its caller's entries changed since (`changes`: the
        # count of changes so far, `changed_at` by function, `asked_at` by call).
        changes = 0
        changed_at: dict[FunctionNode, int] = {}
        asked_at: dict[int, int] = {}
        for _ in range(_MAX_CLASS_ROUNDS):  # a parameter that receives one may pass it on
            changed = False
            for index, (caller, ref, call, unit_start, given, sure) in enumerate(candidates):
                if not sure and names.isdisjoint(given):
                    continue
                last = asked_at.get(index)
                if last is not None and changed_at.get(caller, -1) <= last:  # type: ignore[arg-type]
                    continue
                asked_at[index] = changes
                resolved = self.model.references.resolve_ref(ref, unit_start + call.lineno)
                if resolved is None:
                    continue
                callee, ref = resolved
                own = dict(constructed.get(None, {}))
                own_choices = dict(choices.get(None, {}))
                if caller is not None:  # its parameters shadow the module's names
                    for param in all_params(caller):
                        own.pop(param, None)
                        own_choices.pop(param, None)
                    own.update(constructed.get(caller, {}))
                    own.update(found.get(caller, {}))
                    own_choices.update(choices.get(caller, {}))
                    own_choices.update(
                        (param, frozenset(seen[(caller, param)]))
                        for param in seen_params.get(caller, ())
                        if (caller, param) in mixed
                    )
                passed = list(
                    _instances_passed(
                        callee, call, ref, own, classes, self.model.references.returned_class
                    )
                )
                for name, held in own_choices.items():
                    if name not in given:
                        continue
                    for class_name in sorted(held):  # each class the name may hold
                        passed += _instances_passed(
                            callee,
                            call,
                            ref,
                            {**own, name: class_name},
                            classes,
                            self.model.references.returned_class,
                        )
                for param, class_name in passed:
                    held = seen.get((callee, param))
                    if held is None:
                        held = seen[(callee, param)] = set()
                        seen_params.setdefault(callee, []).append(param)
                    if class_name not in held:
                        held.add(class_name)
                        changed = True
                        changes += 1
                        changed_at[callee] = changes
                    params = found.setdefault(callee, {})
                    if (callee, param) in mixed or params.get(param) == class_name:
                        continue
                    if param in params:
                        mixed.add((callee, param))
                        del params[param]
                    else:
                        params[param] = class_name
                        names.add(param)
                    changed = True
                    changes += 1
                    changed_at[callee] = changes
            if not changed:
                break
        passed_choices: dict[FunctionNode, dict[str, frozenset[str]]] = {}
        for node, param in mixed:
            passed_choices.setdefault(node, {})[param] = frozenset(seen[(node, param)])
        self.__dict__["passed_choices"] = passed_choices
        return found

    @cached_property
    def passed_choices(self) -> dict[FunctionNode, dict[str, frozenset[str]]]:
        """Parameters the module's calls (or other modules', `IncomingTrace.param_classes`)
        give instances of two classes or more: the classes (found with `passed_classes`)."""
        self.passed_classes  # noqa: B018 (which stores them beside its own answer)
        return self.__dict__.get("passed_choices", {})

    def class_choices(self, function: FunctionNode | None) -> dict[str, frozenset[str]]:
        """Names of `function` (None: the module's) that hold an instance of one of two
        classes or more: bound to each on some branch, or a parameter given each."""
        found = dict(self.construction_choices.get(function, {}))
        if function is not None:
            found.update(self.passed_choices.get(function, {}))
        return found

    def _incoming_classes(
        self,
    ) -> tuple[dict[FunctionNode, dict[str, str]], dict[FunctionNode, dict[str, frozenset[str]]]]:
        """Parameters of the module's functions that the calls of other modules give objects
        of one class, and of two or more (`IncomingTrace.param_classes`), each class by a
        name `_foreign` answers for."""
        given: dict[FunctionNode, dict[str, set[str]]] = {}
        own_file = real_file(self.model.document.path)
        for seed in self.model.incoming:
            if not seed.param_classes or seed.module is not None:
                continue
            node = self.model.references.definition(seed.function, None)
            if node is None or isinstance(node, ast.Lambda):
                continue
            for param, file, class_name in seed.param_classes:
                if file == own_file:
                    continue  # a class of the module: its own facts know its objects
                local = self.model._foreign.class_at(file, class_name)
                if local is not None:
                    given.setdefault(node, {}).setdefault(param, set()).add(local)
        single = {
            node: {param: next(iter(held)) for param, held in params.items() if len(held) == 1}
            for node, params in given.items()
        }
        several = {
            node: {param: frozenset(held) for param, held in params.items() if len(held) > 1}
            for node, params in given.items()
        }
        return single, {node: params for node, params in several.items() if params}

    def object_params(self, node: FunctionNode) -> tuple[tuple[str, Instance], ...]:
        """Traced parameters holding an instance of a PyTree class of the module (`self` of
        a method traced with its object, `model` given an `MLP`): objects whose attributes
        have the values of their fields."""
        found = self.object_params_memo.get(node)
        if found is None:
            found = self.object_params_memo[node] = self._compute_object_params(node)
        return found

    def _compute_object_params(self, node: FunctionNode) -> tuple[tuple[str, Instance], ...]:
        info = self.model.tracing.trace.get(node)
        if info is None or not info.traced_params or isinstance(node, ast.Lambda):
            return ()
        classes = self.object_classes(node)
        found = []
        for name in sorted(info.traced_params & classes.keys()):
            instance = self._instance(classes[name], name in info.all_leaves)
            if instance is not None:
                found.append((name, instance))
        imported = self._imported_instances(node, info) if self.model.external else {}
        found += [item for item in sorted(imported.items()) if item[0] not in classes]
        return tuple(found)

    def instance_of_class(self, class_name: str, every_leaf: bool = False) -> Instance | None:
        """A traced instance of the module's class `class_name`, if it is a PyTree (what its
        importers' traced code holds: `ExternalFacts.instance_fields`). Its fields holding
        instances of imported classes are the importer's to fill (`infer.py`): what this
        model knows of them depends on the facts it was built with."""
        return self._instance(class_name, every_leaf, imported=False)

    def _imported_instances(self, node: FunctionNode, info: TraceInfo) -> dict[str, Instance]:
        """Traced parameters annotated with a PyTree class imported from a workspace module
        (`state: EnvState`): instances whose fields have the values that module gives them."""
        args = node.args
        found: dict[str, Instance] = {}
        for arg in [*args.posonlyargs, *args.args, *args.kwonlyargs]:
            if arg.arg not in info.traced_params or arg.annotation is None:
                continue
            held = self._imported_instance(arg.annotation, arg.arg in info.all_leaves)
            if held is not None:
                found[arg.arg] = held
        return found

    def _imported_instance(self, annotation: ast.expr, every_leaf: bool) -> Instance | None:
        """A traced instance of the PyTree class `annotation` names, imported from a
        workspace module (`EnvState`, `params.RuntimeParams`), with the fields that module
        gives it. `Cls | None` too: a traced None is no object, and the fields are read only
        where the object is given."""
        spelling = dotted_name(without_none(annotation, self.model.resolver))
        if spelling is None:
            return None
        facts = (self.model.external or {}).get(spelling)
        if facts is None or facts.instance_fields is None:
            return None
        head = spelling.partition(".")[0]
        if head in self.model.classes or head in self.model.module_globals.global_values:
            return None  # bound here too: the annotation may name another class
        every_leaf = every_leaf and facts.leaf_instance_fields is not None
        fields = facts.leaf_instance_fields if every_leaf else facts.instance_fields
        return Instance(spelling, fields)

    def self_object(self, node: FunctionNode) -> tuple[tuple[str, Object], ...]:
        """The `self` of a method nothing traces: an object of its class whose attributes hold
        what the class's methods assign them (`self.data = jnp.zeros(n)`: a JAX array)."""
        record = self.model.records.get(node)
        if (
            record is None
            or record.parent is not None
            or record.class_name not in self.model.classes
        ):
            return ()
        # Asked for every function of every unit on each edit: the class's answer when known
        # (memoised per model, usually none) first. Not yet known, it is worked out only for
        # a method that may have such a self (the trace asks for traced methods only).
        if self._plain_objects.get(record.class_name, ()) is None:
            return ()
        if (
            isinstance(node, ast.Lambda)
            or self.model.scopes.context_of(node) is not None
            or any(
                isinstance(d, ast.Name) and d.id in ("staticmethod", "classmethod")
                for d in node.decorator_list
            )
        ):
            return ()
        found = self.plain_object(record.class_name)
        positional = node.args.posonlyargs or node.args.args
        return ((positional[0].arg, found),) if positional and found is not None else ()

    def plain_object(self, class_name: str) -> Object | None:
        if class_name not in self._plain_objects:
            self._plain_objects[class_name] = self._compute_plain_object(class_name)
        return self._plain_objects[class_name]

    def _compute_plain_object(self, class_name: str) -> Object | None:
        record = self.model.classes[class_name]
        source = self.model._source_of[record.node]
        # The class's own assignments first (memoised on its unit, member by member): a
        # class that assigns no readable attribute (fields declared in its body: dataclasses,
        # `eqx.Module`) has no plain object, and the module-wide pass below is not needed.
        assigned, unknown = self.self_assignments(record)
        if ANY_ATTRIBUTE in unknown or not assigned.keys() - unknown:
            return None
        if ANY_ATTRIBUTE in self._written_outside:
            # Any attribute may be set from outside (`setattr(obj, name, v)` somewhere): no
            # class has a plain object.
            return None
        if class_name in self.subclassed:
            return None  # a subclass may assign other values
        fields = self._plain_fields(source, record)
        if not fields:
            return None
        written = self._written_outside
        kept = tuple((name, value) for name, value in fields if name not in written)
        return Object(class_name, kept) if kept else None

    def _plain_fields(
        self, source: UnitSource, record: ClassRecord
    ) -> tuple[tuple[str, Value], ...]:
        """`_object_fields`, memoised on the class's unit by its arguments.

        A code edit in one method makes a new parse of the class, yet the fields depend only
        on the assignments to `self` (nodes of the members the edit did not touch, shared
        with the last parse), the imports, the globals and the module functions the class's
        text names: reused from the last parse while those are the same (the edited method
        assigning nothing, mostly)."""
        scopes = self.model.scopes
        args = (
            record,
            self.model.aliases,
            self.model.imported,
            self.model.module_globals.keyed_values,
            Keyed(scopes.return_value, scopes.returns_key(source)),
        )
        fields = source.memo.kept(_object_fields, *args)
        if fields is None:
            assigned, unknown = self.self_assignments(record)
            fields = self.model.document.lineage.reuse_each(
                _fields_of_assignments,
                self.model._generation,
                record.name,
                record.name,
                tuple((name, tuple(found)) for name, found in assigned.items()),
                unknown,
                *args[1:4],
                # Across parses: the functions the class's text names, its own included.
                Keyed(scopes.return_value, self.model.unit_keys.named_function_units(source)),
            )
            source.memo.keep(fields, _object_fields, *args)
        return fields  # type: ignore[return-value]

    def self_assignments(self, record: ClassRecord) -> tuple[dict, frozenset[str]]:
        return _self_assignments(self.model._source_of[record.node], record.node)

    @cached_property
    def _written_outside(self) -> frozenset[str]:
        """The attributes that any class's methods assign which the module also assigns
        outside constructors (`assigned_outside`): the last version's while every unit's
        classes assign the same attributes and every unit writes the same of them (asked at
        every edit, which mostly leaves both alone)."""
        lineage = self.model.document.lineage
        sources = self.model.document.parsed_sources
        assigned = lineage.each_unit(_unit_assigned_attributes, sources, self.model.aliases)
        names = lineage.reuse_each(
            _union_of_last, self.model._generation, "assigned", tuple(assigned)
        )
        written = lineage.union(_unit_writes_among, sources, names)
        return frozenset([ANY_ATTRIBUTE]) if ANY_ATTRIBUTE in written else written

    @cached_property
    def subclassed(self) -> frozenset[str]:
        """Names that a class of the module derives from (`class B(A)`, `class B(mod.A)`):
        the last version's while every unit's classes have the same names and bases (asked at
        every edit, which mostly changes a method's body)."""
        lineage = self.model.document.lineage
        sources = self.model.document.parsed_sources
        bases = lineage.each_unit(_unit_class_bases, sources, self.model.aliases)
        return lineage.reuse_each(_union_of_last, self.model._generation, "bases", tuple(bases))

    def assigned_outside(self, names: frozenset[str]) -> frozenset[str]:
        """Which of `names` the module assigns outside constructors (`obj.attr = v`, see
        `assigned_attributes`), "*" for any: only units whose text holds one of the names
        (or `setattr`) are walked."""
        found: set[str] = set()
        units = self.model.document.parsed_units
        # The words of the units an edit left alone: the last version's (asked at each edit).
        for unit, words in zip(units, self.model.document.words_by_unit(), strict=True):
            if "setattr" not in words and words.isdisjoint(names):
                continue
            written = {
                w.attribute if type(w) is FreshWrite else w for w in _unit_attribute_writes(unit)
            }
            if ANY_ATTRIBUTE in written:
                return frozenset([ANY_ATTRIBUTE])
            found |= written & names
        return frozenset(found)

    def object_classes(self, node: FunctionNode) -> dict[str, str]:
        """`classes_in`, with `self` of a method of a class of the module."""
        classes = self.classes_in(node)
        record = self.model.records.get(node)
        positional = positional_params(node)
        if record is not None and record.class_name in self.model.classes and positional:
            classes = {**classes, positional[0]: record.class_name}
        return classes

    def _instance(
        self, class_name: str, every_leaf: bool = False, depth: int = 0, imported: bool = True
    ) -> Instance | None:
        """A traced instance of the class, if it is a PyTree (else JAX would not take it).
        `every_leaf`: passed through a transformation tracing every leaf (`jax.jit`)."""
        record = self.model.classes.get(class_name)
        if record is None:
            return None  # a class of another module (see `outgoing_traces`): unknown fields
        if not is_registered_pytree(record, self.model.summaries):
            return None
        every_leaf = every_leaf and flattens_fields(record, self.model.summaries)
        source = self.model._source_of[record.node]
        instance = _traced_instance(source, record, self.model.aliases, every_leaf)
        if depth >= _MAX_NESTED_INSTANCES:
            return instance
        # A field declared with a PyTree class holds an instance of it, flattened in turn:
        # its own static fields stay Python values (`params.pedestal.mode`).
        nested: dict[str, Value] = {}
        for name, annotation in _field_annotations(record.node):
            if instance.attribute(name) is Kind.STATIC:
                continue
            if isinstance(annotation, ast.Name) and annotation.id in self.model.classes:
                held = self._instance(annotation.id, every_leaf, depth + 1, imported)
            else:
                held = self._imported_instance(annotation, every_leaf) if imported else None
            if held is not None:
                nested[name] = held
        if not nested:
            return instance
        return Instance(
            instance.class_name, tuple(sorted({**dict(instance.fields), **nested}.items()))
        )

    @cached_property
    def boolean_fields(self) -> dict[str, frozenset[str]]:
        """Class -> fields that hold boolean arrays (declared, or given one by every call of
        the class in the module). Read by question (`reads.UnitReads`)."""
        return boolean_fields(self.model.classes, self.model.summaries, self.model.resolver)

    @cached_property
    def boolean_entries(self) -> dict[str, dict[str, frozenset[str]]]:
        """Module function -> parameter -> keys under which every call of the function in
        the module passes a boolean array in a dict display. Read by question
        (`reads.UnitReads`)."""
        return boolean_entries(self.model.functions, self.model.summaries, self.model.resolver)

    @cached_property
    def returned_booleans_memo(self) -> dict[ast.AST, frozenset[int]]:
        """`boolean_args.returned_booleans` of each function asked."""
        return {}

    @cached_property
    def returned_keys_memo(self) -> dict[ast.AST, frozenset[str]]:
        """`boolean_entries.returned_boolean_keys` of each function asked."""
        return {}

    @cached_property
    def attribute_classes(self) -> dict[tuple[str, str], str]:
        """(class, attribute) -> the class of the module whose instance the attribute holds:
        from `self.attr = Cls(...)` in its methods, `attr: Cls` in its body, and module-level
        `obj = Owner(attr=instance)`."""
        found: dict[tuple[str, str], str] = {}
        for record in self.model.classes.values():
            source = self.model._source_of[record.node]
            for attribute, class_name in _attribute_constructors(source, record.node):
                if class_name in self.model.classes:
                    found.setdefault((record.name, attribute), class_name)
        for value in self.model.module_globals.stable_globals.values():
            if not (isinstance(value, ast.Call) and isinstance(value.func, ast.Name)):
                continue
            if value.func.id not in self.model.classes:
                continue
            for keyword in value.keywords:
                held = keyword.value
                if isinstance(held, ast.Name) and held.id in self.instances:
                    class_name = self.instances[held.id]
                elif isinstance(held, ast.Call) and isinstance(held.func, ast.Name):
                    class_name = held.func.id
                else:
                    continue
                if keyword.arg and class_name in self.model.classes:
                    found.setdefault((value.func.id, keyword.arg), class_name)
        return found

    def is_array_annotation(self, annotation: ast.expr | None) -> bool:
        return annotation_kind(annotation, self.model.resolver) is Kind.ARRAY

    def admitted(self, node: FunctionNode, info: TraceInfo) -> TraceInfo:
        """`self` holds tracers only in methods of PyTree classes: any other object cannot be
        passed to a transformation (JAX raises), so it is never traced. A staticmethod
        takes no `self`: its first parameter is an argument like any other."""
        record = self.model.records.get(node)
        if record is None or record.class_name is None or isinstance(node, ast.Lambda):
            return info
        if is_staticmethod(node):
            return info
        positional = positional_params(node)
        if not positional or positional[0] not in info.traced_params:
            return info
        if any(name == positional[0] for name, _ in info.containers):
            return info  # an object built in the trace: its attributes hold tracers
        cls = self.model.classes.get(record.class_name)
        if cls is not None and is_registered_pytree(cls, self.model.summaries):
            return info
        return replace(info, traced_params=info.traced_params - {positional[0]})

    @cached_property
    def assigned_attributes(self) -> frozenset[str]:
        """Attribute names the module assigns outside constructors (`obj.attr = ...`) to
        objects of any class: not counting those written only on an object the writing
        function made itself (`fresh_attribute_writes`)."""
        return frozenset(w for w in self.attribute_writes if type(w) is not FreshWrite)

    @cached_property
    def fresh_attribute_writes(self) -> frozenset[FreshWrite]:
        """Attributes written outside constructors on an object the writing function made
        itself (`lp = object.__new__(LP); lp.cones = c`), with the object's class: they
        change objects of that class only."""
        return frozenset(w for w in self.attribute_writes if type(w) is FreshWrite)

    @cached_property
    def attribute_writes(self) -> frozenset[str | FreshWrite]:
        writes: set[str | FreshWrite] = set()
        for unit in self.model.document.units:
            if unit.tree is None:
                continue
            writes |= _unit_attribute_writes(unit)
        return frozenset(writes)

    def attributes_set_on_instances(self, cls: ast.ClassDef) -> frozenset[str]:
        """The attributes top-level code assigns to instances of this class definition
        (`c = Model(...)`, then `c.rate = 0.1`), told apart from those of another class of
        the same name defined before or after (`attributes.attributes_set_per_class`)."""
        return self._attributes_set_per_class.get(cls, frozenset())

    def from_unseen_base(self, class_name: str, attribute: str) -> bool:
        """`attribute` of an instance of the module's class `class_name` comes from a base
        class the model cannot see (an imported one, a mixin): neither the class nor its
        bases of this module define or assign it, nor does top-level code set it on an
        instance. It may be a property computing a new value on every read."""
        pending, seen, unseen = [class_name], set(), False
        while pending:
            name = pending.pop()
            record = self.model.classes.get(name)
            if name in seen or record is None:
                continue
            seen.add(name)
            node = record.node
            if attribute in defined_attributes(node) or attribute in (
                self.attributes_set_on_instances(node)
            ):
                return False
            for base, qualname in zip(node.bases, record.bases, strict=True):
                if isinstance(base, ast.Subscript):  # `Generic[T]`, `Base[T]`
                    base, qualname = base.value, self.model.resolver.qualname(base.value) or ""
                if qualname in _BARE_BASES:
                    continue
                if not qualname and isinstance(base, ast.Name) and base.id in self.model.classes:
                    pending.append(base.id)
                elif attribute in self._imported_class_attributes(base):
                    return False
                else:
                    unseen = True
        return unseen

    def _imported_class_attributes(self, base: ast.expr) -> frozenset[str]:
        """The attributes a class imported from a workspace module (`class B(Base)`) is
        known to hold (`ExternalFacts.instance_attributes`), if the name is not bound here."""
        if (
            not isinstance(base, ast.Name)
            or not self.model.external
            or base.id in self.model.module_globals.global_values
        ):
            return frozenset()
        facts = self.model.external.get(base.id)
        return (facts.instance_attributes or frozenset()) if facts is not None else frozenset()

    def instance_attributes(self, class_name: str) -> frozenset[str]:
        """The attributes instances of the module's class `class_name` hold that the module
        sees set (by its methods or those of its bases here, or its body) and that come from
        no base it cannot see; none of them a method or property (reading one runs code)."""
        chain, pending = [], [class_name]
        while pending:
            record = self.model.classes.get(pending.pop())
            if record is None or record in chain:
                continue
            chain.append(record)
            pending += [
                base.id
                for base, qualname in zip(record.node.bases, record.bases, strict=True)
                if not qualname and isinstance(base, ast.Name)
            ]
        functions = {
            statement.name
            for record in chain
            for statement in record.node.body
            if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef)
        }
        candidates = frozenset().union(*(defined_attributes(r.node) for r in chain)) - functions
        return frozenset(name for name in candidates if not self.from_unseen_base(class_name, name))

    @cached_property
    def _attributes_set_per_class(self) -> dict[ast.ClassDef, frozenset[str]]:
        return attributes_set_per_class(self._instance_events)

    @cached_property
    def _instance_events(self) -> list[InstanceEvent]:
        """The module's `instance_events`, unit by unit, at document lines (1-based)."""
        events: list[InstanceEvent] = []
        for unit in self.model.document.units:
            if unit.tree is None:
                continue
            start = unit.start_line
            events += (
                (kind, name, detail, start + line)
                for kind, name, detail, line in _instance_events(unit.source)
            )
        return events

    @cached_property
    def _name_bindings(self) -> dict[str, list[tuple[int, str | None]]]:
        """Each module-level name's top-level bindings in order: (document line, the class
        named by the call it is bound to, or None)."""
        bindings: dict[str, list[tuple[int, str | None]]] = {}
        for kind, name, detail, line in self._instance_events:
            if kind in ("bind", "class"):
                callee = detail if kind == "bind" and isinstance(detail, str) else None
                bindings.setdefault(name, []).append((line, callee))
        return bindings

    def instance_class_at(self, name: str, line: int) -> str | None:
        """The class of the module whose instance `name` holds at document `line`: the
        last top-level binding before it is a call of that class (`counter = Counter()`),
        for a name bound more than once (a notebook reusing it in a later cell)."""
        before = [callee for start, callee in self._name_bindings.get(name, ()) if start < line]
        callee = before[-1] if before else None
        return callee if callee in self.model.classes else None


# Bases that give an instance no attribute of their own.
_BARE_BASES = frozenset(
    ("builtins.object", "abc.ABC", "typing.Generic", "typing.Protocol", "typing.NamedTuple")
)


@per_unit
def _class_sites(
    source: UnitSource, aliases: Keyed[Resolver]
) -> tuple[
    tuple[FunctionNode | None, FunctionRef, ast.Call, frozenset[str], frozenset[str], bool], ...
]:
    """The unit's calls and called transformations that may pass an instance of a class
    (`ObjectFacts.passed_classes`): those with an argument that is a name or a call. Each
    with its caller, what it calls, the names among its arguments, the names its argument
    calls call (`Cls(...)`), and whether an argument is a call."""
    summary = unit_summary(source, aliases)
    sites = [(c.caller, c.callee, c.node) for c in summary.calls]
    sites += [(a.enclosing, a.target, a.call) for a in summary.applications if a.call is not None]
    found = []
    name, call_type = ast.Name, ast.Call
    for caller, ref, call in sites:
        names: list[str] = []
        calls: list[ast.Call] = []
        for argument in (*call.args, *[k.value for k in call.keywords]):
            argument_type = type(argument)
            if argument_type is name:
                names.append(argument.id)  # type: ignore[attr-defined]
            elif argument_type is call_type:
                calls.append(argument)  # type: ignore[arg-type]
        if not calls and not names:
            continue  # only a name or a call can be an instance
        called = frozenset(c.func.id for c in calls if type(c.func) is name)  # type: ignore[attr-defined]
        found.append((caller, ref, call, frozenset(names), called, bool(calls)))
    return tuple(found)


def _own_lambdas(function: FunctionNode) -> Iterator[ast.Lambda]:
    """The lambdas of `function`'s body, not those of the functions and classes it defines."""
    pending: list[ast.AST] = [*function.args.defaults, *function.body]
    while pending:
        node = pending.pop()
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            continue
        if isinstance(node, ast.Lambda):
            yield node
        pending.extend(child_nodes(node))


def _unit_attribute_writes(unit: Unit) -> frozenset[str | FreshWrite]:
    """`attribute_writes` of a unit, memoised on its parse."""
    return _attribute_writes(unit.source)


@per_unit
def _attribute_writes(source: UnitSource) -> frozenset[str | FreshWrite]:
    return attribute_writes(source.tree, source.text)


def _object_fields(
    source: UnitSource,
    record: ClassRecord,
    aliases: Keyed[Resolver],
    imported: Keyed[Mapping[str, ExternalFacts]],
    module_globals: Keyed[Mapping[str, Value]],
    returns: Keyed[Callable[[str], Value | None]],
) -> tuple[tuple[str, Value], ...]:
    """Each attribute's value: every assignment of it in a method, merged (the key of the
    plain object's fields on the class's unit: `ObjectFacts._plain_fields`)."""
    assigned, unknown = _self_assignments(source, record.node)
    assignments = tuple((name, tuple(found)) for name, found in assigned.items())
    return _fields_of_assignments(
        record.name, assignments, unknown, aliases, imported, module_globals, returns
    )


def _fields_of_assignments(
    class_name: str,
    assignments: tuple[tuple[str, tuple], ...],
    unknown: frozenset[str],
    aliases: Keyed[Resolver],
    imported: Keyed[Mapping[str, ExternalFacts]],
    module_globals: Keyed[Mapping[str, Value]],
    returns: Keyed[Callable[[str], Value | None]],
) -> tuple[tuple[str, Value], ...]:
    """Each attribute's value: every assignment of it in a method, merged. Values that read
    `self` are found once those that do not are known (`self.x = self.x.at[i].set(v)` keeps
    the kind `__init__` gave)."""
    writes = [
        (name, method, value)
        for name, found in assignments
        if name not in unknown
        for method, value in found
    ]
    context = (aliases.value, module_globals.value, imported.value, returns.value)
    found: dict[str, Value] = {}
    for reads_self in (False, True):
        known = tuple((name, value) for name, value in found.items())
        for name, method, value in writes:
            me = positional_params(method)[0]
            if reads_self != any(isinstance(n, ast.Name) and n.id == me for n in walk_nodes(value)):
                continue
            result = _evaluate_in(method, value, {me: Object(class_name, known)}, *context)
            found[name] = merge_values(found[name], result) if name in found else result
    return tuple(sorted((n, v) for n, v in found.items() if v is not Kind.UNKNOWN))


def _evaluate_in(
    method: ast.FunctionDef | ast.AsyncFunctionDef,
    value: ast.expr,
    env: dict[str, Value],
    resolver: Resolver,
    module_globals: Mapping[str, Value],
    external: Mapping[str, ExternalFacts],
    returns: Callable[[str], Value | None],
) -> Value:
    """The value of one expression of a method, every other name the method binds unknown
    (only module names and what `env` gives are known)."""
    bound = frozenset(
        [
            *(
                n.id
                for n in walk_nodes(method)
                if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)
            ),
            *all_params(method),
        ]
    )
    names: dict[str, Value] = dict.fromkeys(bound, Kind.UNKNOWN)
    names.update(env)
    context = ScopeContext(
        resolver.child(local_imports(method), frozenset(names)),
        False,
        module_globals,
        external=external,
        returns=returns,
    )
    interpreter = FlowInterpreter(context, {}, {})
    interpreter.env = names
    return interpreter.eval(value)


def _field_annotations(node: ast.ClassDef) -> Iterator[tuple[str, ast.expr]]:
    """(field, annotation) of each field the class body declares (`pedestal: Params`)."""
    for statement in node.body:
        if isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name):
            yield statement.target.id, statement.annotation


@per_unit
def _self_assignments(source: UnitSource, node: ast.ClassDef) -> tuple[dict, frozenset[str]]:
    return self_assignments(node, source.text)  # syntax only


@per_unit
def _traced_instance(
    source: UnitSource, record: ClassRecord, aliases: Keyed[Resolver], every_leaf: bool
) -> Instance:
    fields = field_values(record.node, aliases.value, every_leaf)
    return Instance(record.name, tuple(sorted(fields.items())))


@per_unit
def _attribute_constructors(source: UnitSource, node: ast.ClassDef) -> list[tuple[str, str]]:
    return attribute_constructors(node)  # syntax only


@per_unit
def _instance_events(source: UnitSource) -> list:
    return instance_events(source.tree)


def _instances_passed(
    callee: FunctionNode,
    call: ast.Call,
    ref: FunctionRef,
    instances: dict[str, str],
    classes: Mapping[str, ClassRecord],
    returned_class: Callable[[ast.Call, Mapping[str, str]], str | None],
) -> Iterator[tuple[str, str]]:
    """(parameter of `callee`, class) for each argument of `call` that is an instance of a
    class of the module: a name in `instances`, `Cls(...)`, or the call of a function that
    builds one (`env.reset()`)."""

    def class_of(arg: ast.expr) -> str | None:
        if isinstance(arg, ast.Name):
            return instances.get(arg.id)
        if isinstance(arg, ast.Call) and isinstance(arg.func, ast.Name) and arg.func.id in classes:
            return arg.func.id
        if isinstance(arg, ast.Call):
            return returned_class(arg, instances)
        return None

    positional = positional_params(callee)[ref.bound_positional :]
    for index, arg in enumerate(call.args[ref.leading_args :]):
        if isinstance(arg, ast.Starred) or index >= len(positional):
            break
        if (class_name := class_of(arg)) is not None:
            yield positional[index], class_name
    known = set(all_params(callee)) - ref.bound_keywords
    for keyword in call.keywords:
        if keyword.arg in known and (class_name := class_of(keyword.value)) is not None:
            yield keyword.arg, class_name


def _stable_shapes(
    aliases: Keyed[Resolver], stable: tuple[tuple[str, ast.expr], ...]
) -> dict[str, ArrayShape]:
    tracker = ShapeTracker(aliases.value, frozenset())
    for name, value in stable:
        tracker.bind(ast.Name(name, ast.Store()), value)
    return tracker.env


def _instances(stable_globals: Mapping[str, ast.expr], classes: frozenset[str]) -> dict[str, str]:
    """`ObjectFacts.instances` from the names bound once and the classes' names."""
    return {
        name: value.func.id
        for name, value in stable_globals.items()
        if isinstance(value, ast.Call)
        and isinstance(value.func, ast.Name)
        and value.func.id in classes
    }


@per_unit
def _unit_class_bases(
    source: UnitSource, aliases: Keyed[Resolver]
) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """Each class of the unit's summary (what `ModuleModel.classes` holds, in its order) with
    the names it derives from."""
    return tuple(
        [
            (
                record.name,
                tuple(
                    [
                        base.id if isinstance(base, ast.Name) else base.attr
                        for base in record.node.bases
                        if isinstance(base, ast.Name | ast.Attribute)
                    ]
                ),
            )
            for record in unit_summary(source, aliases).classes
        ]
    )


def _union_of_last(parts: tuple[tuple[tuple[str, Set[str]], ...], ...]) -> frozenset[str]:
    """The union of the names each class gives, from each unit's (class name, names) pairs
    (`_unit_class_bases`, `_unit_assigned_attributes`): a class name defined again gives its
    last definition's, as `ModuleModel.classes` keeps the last."""
    last: dict[str, Set[str]] = {}
    for unit_parts in parts:
        last.update(unit_parts)
    return frozenset().union(*last.values())


@per_unit
def _unit_assigned_attributes(
    source: UnitSource, aliases: Keyed[Resolver]
) -> tuple[tuple[str, frozenset[str]], ...]:
    """Each class of the unit's summary with the attributes its methods assign to `self`
    (but those of unknown value)."""
    found = []
    for record in unit_summary(source, aliases).classes:
        assigned, unknown = _self_assignments(source, record.node)
        found.append((record.name, frozenset(assigned.keys() - unknown)))
    return tuple(found)


@per_unit
def _unit_writes_among(source: UnitSource, names: frozenset[str]) -> frozenset[str]:
    """Which of `names` the unit assigns outside constructors, or `ANY_ATTRIBUTE` alone (see
    `ObjectFacts.assigned_outside`): a unit whose text holds none of them (nor `setattr`) is
    not walked."""
    words = source.words()
    if "setattr" not in words and words.isdisjoint(names):
        return frozenset()
    written = {w.attribute if type(w) is FreshWrite else w for w in _attribute_writes(source)}
    if ANY_ATTRIBUTE in written:
        return frozenset([ANY_ATTRIBUTE])
    return frozenset(written & names)

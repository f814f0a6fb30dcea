"""References resolved to definitions: which function or method a call, a transformation
or an attribute of an object runs (`resolve_ref`), in this module or, while the model traces
into other workspace modules, in theirs (`ForeignDefinitions`). Reads the model's records and
classes, the objects the object facts place, and the globals bound to transformations."""

from __future__ import annotations

import ast
import weakref
from collections.abc import Mapping
from dataclasses import replace

from jax_lsp.analysis.cached import cached_property
from jax_lsp.analysis.crossing import NO_FOREIGN, ForeignFunction
from jax_lsp.analysis.haiku import own_def
from jax_lsp.analysis.model_parts import attribute_constructors, bound_method_alias
from jax_lsp.analysis.model_view import ModelFact
from jax_lsp.analysis.names import binds_locally
from jax_lsp.analysis.nodes import is_classmethod, is_staticmethod, own_returns, walk_nodes
from jax_lsp.analysis.pytrees import LINEN_MODULE
from jax_lsp.analysis.summary import LINEN_RUNS, CallSite, FunctionNode, FunctionRef
from jax_lsp.analysis.values import Function


class References(ModelFact):
    """Which definition a reference names (see the module docstring)."""

    # -- traced functions -----------------------------------------------------------------
    def resolve(self, ref: FunctionRef, line: int | None = None) -> FunctionNode | None:
        found = self.resolve_ref(ref, line)
        return found[0] if found is not None else None

    def resolve_ref(
        self, ref: FunctionRef, line: int | None = None, caller: FunctionNode | None = None
    ) -> tuple[FunctionNode, FunctionRef] | None:
        """The definition a reference names, seen from document `line` (None: the last one)
        in `caller`, and the reference as the call sees it (a bound method fixes `self`; a
        classmethod called through its class fixes `cls`; a linen module's `apply` passes
        the variables first)."""
        found = self._resolve_ref(ref, line, caller)
        if (
            found is not None
            and not found[1].bound_positional
            and "." in found[1].name
            and is_classmethod(found[0])
        ):
            return found[0], replace(found[1], bound_positional=1)
        return found

    def _resolve_ref(
        self, ref: FunctionRef, line: int | None, caller: FunctionNode | None
    ) -> tuple[FunctionNode, FunctionRef] | None:
        if ref.node is not None:
            return ref.node, ref
        if ref.returned_from is not None:
            found = self._returned_function(ref, line, caller)
            if found is None and caller is not None and "." not in ref.name:
                # `net = Net(...)`: an instance of a class of the module, whose `__call__`
                # a transformation given it traces.
                class_name = self.model.objects.classes_in(caller).get(ref.name)
                if class_name is not None:
                    return self._method_of(class_name, "", replace(ref, returned_from=None), line)
            return found
        if ref.new_instance:
            return self._new_instance_method(ref, line, caller)
        for scope in reversed(ref.scopes):
            node = self.definition(f"{scope}.{ref.name}", line)
            if node is not None:
                return node, ref
        node = self.definition(ref.name, line)
        if node is not None:
            if ref.bound_self and is_staticmethod(node):  # `self.helper` of a staticmethod
                return node, replace(ref, bound_positional=ref.bound_positional - 1)
            return node, ref
        transformed = self._transformed_global(ref.name, line, caller)
        if transformed is not None:
            return transformed, ref
        alias = self._method_aliases.get(ref.name) if "." not in ref.name else None
        if alias is not None and not (caller and binds_locally(ref.name, caller)):
            node, bound = alias  # `step = jax.jit(env.step)`, then `step(state, action)`
            return node, replace(ref, bound_positional=ref.bound_positional + bound)
        owner, _, attribute = ref.name.rpartition(".")
        haiku = (
            self.model.objects.haiku_transforms.get(owner)
            if attribute in ("init", "apply")
            else None
        )
        if haiku is not None and not (caller and binds_locally(owner, caller)):
            function, apply_leading = haiku  # `model.apply(params, rng, x)` runs `f(x)`
            node = function if isinstance(function, ast.Lambda) else self.definition(function, line)
            leading = ref.leading_args + (apply_leading if attribute == "apply" else 1)
            if node is None and isinstance(function, str):
                # `hk.transform(forward)` of a function imported from another workspace module.
                return self._foreign_ref(replace(ref, name=function, leading_args=leading), None)
            return None if node is None else (node, replace(ref, leading_args=leading))
        if (
            haiku is None
            and attribute in ("init", "apply")
            and owner
            and "." not in owner
            and not (caller and binds_locally(owner, caller))
        ):
            made = self._foreign_haiku(owner)
            if made is not None:  # `net.apply` of a transformed object made in another module
                function, apply_leading = made
                self.foreign_nodes[function.node] = function
                leading = ref.leading_args + (apply_leading if attribute == "apply" else 1)
                return function.node, replace(ref, leading_args=leading)
        if ref.owner_class is not None:  # `self.encoder.apply`
            class_name = self.model.objects.attribute_classes.get((ref.owner_class, owner))
        elif attribute == "apply_fn" and owner:  # `state.apply_fn(variables, x)`
            class_name, attribute = self.model.objects.apply_fn_class, "apply"
        elif caller is not None and (owner or ref.name) in self.model.objects.classes_in(caller):
            class_name = self.model.objects.classes_in(caller)[
                owner or ref.name
            ]  # `model: MLP`, `step(mlp)`
        elif owner in self.model.classes:  # `self.encoder(x)`: the object in an attribute
            class_name = self.model.objects.attribute_classes.get((owner, attribute))
            if class_name is None:
                return self._foreign_ref(ref, caller)
            return self._method_of(class_name, "", replace(ref, bound_positional=0), line)
        else:  # `model.apply`, `model(x)`
            class_name = self.model.objects.instances.get(owner or ref.name)
            if class_name is None and line is not None and caller is None:
                # Bound to other values too: top-level code sees the binding before it (a
                # function's body, the binding when it is called, unknown here).
                class_name = self.model.objects.instance_class_at(owner or ref.name, line)
        if class_name is None:
            return self._foreign_ref(ref, caller)
        return self._method_of(class_name, attribute if owner else "", ref, line)

    def _returned_function(
        self, ref: FunctionRef, line: int | None, caller: FunctionNode | None
    ) -> tuple[FunctionNode, FunctionRef] | None:
        """The def a factory returns, for a name assigned a call of it (`lr =
        make_schedule(n)`, the factory of the module or imported from another workspace
        module): each of its returns names the same def of its own body."""
        factory_ref = FunctionRef(ref.returned_from or "", ref.scopes)
        found = self._resolve_ref(factory_ref, line, caller)
        factory = found[0] if found is not None else None
        if not isinstance(factory, ast.FunctionDef):
            return None
        returns = own_returns(factory, may_yield=False)
        if not returns or not all(isinstance(value, ast.Name) for value in returns):
            return None
        names = {value.id for value in returns if isinstance(value, ast.Name)}
        node = own_def(factory, names.pop()) if len(names) == 1 else None
        if node is None:
            return None
        made_in = self.foreign_nodes.get(factory)
        if made_in is not None:  # defined in another module: traced there
            self.foreign_nodes[node] = ForeignFunction(
                made_in.file, f"{made_in.path}.{node.name}", node
            )
        return node, replace(ref, returned_from=None)

    def _foreign_haiku(self, owner: str) -> tuple[ForeignFunction, int] | None:
        """The haiku transformed object a module-level name holds that another workspace
        module made: imported (`from nets import net`), or returned by an imported factory
        (`net = make_net(4)`)."""
        foreign = self.model._foreign
        if foreign is NO_FOREIGN:
            return None
        value = self.model.module_globals.stable_globals.get(owner)
        if value is None:
            return foreign.haiku_transformed(owner, called=False)
        if (
            isinstance(value, ast.Call)
            and isinstance(value.func, ast.Name)
            and value.func.id not in self.model.functions
        ):
            return foreign.haiku_transformed(value.func.id, called=True)
        return None

    def _new_instance_method(
        self, ref: FunctionRef, line: int | None, caller: FunctionNode | None
    ) -> tuple[FunctionNode, FunctionRef] | None:
        """`Model(...).apply`, `Env().step`: the method of a new instance of the class named,
        of the module or imported from another workspace module, bound to it (a linen
        module's `apply` runs `__call__`)."""
        class_name, _, attribute = ref.name.rpartition(".")
        if caller is not None and binds_locally(class_name, caller):
            return None
        if class_name in self.model.classes:
            return self._method_of(class_name, attribute, ref, line)
        foreign = self.model._foreign
        if foreign is NO_FOREIGN or not foreign.is_class(class_name):
            return None
        found = self._foreign_method(class_name, attribute, ref)
        if found is None or found[0].node is None:
            return None
        self.foreign_nodes[found[0].node] = found[0]
        return found[0].node, found[1]

    # -- definitions in other modules ------------------------------------------------------
    def _foreign_ref(
        self, ref: FunctionRef, caller: FunctionNode | None
    ) -> tuple[FunctionNode, FunctionRef] | None:
        """What a reference the module's own code cannot resolve names in another workspace
        module: an imported function (`clip(g)`, `utils.clip(g)`), a method of an imported
        class (`Cls.f`, `Cls(...)(x)`), of an instance of one (`env.step`, `self.norm.f(x)`,
        `model.apply(v, x)`: linen runs `__call__`), or a method a class of the module
        inherits from one. Its definition there, bound as the call binds it."""
        foreign = self.model._foreign
        if foreign is NO_FOREIGN:
            return None  # the rules and facts read this module's own definitions only
        owner, _, attribute = ref.name.rpartition(".")
        local = owner or ref.name
        if ref.owner_class is not None:  # `self.normalizer.normalize(x)`
            held = self.foreign_attribute_classes.get((ref.owner_class, owner))
            found = self._foreign_method(held, attribute, ref) if held else None
        elif caller is not None and binds_locally(local, caller):
            held = self._foreign_instances.get(caller, {}).get(local)
            held = held or self._foreign_annotated(caller).get(local)
            found = self._foreign_method(held, attribute if owner else "", ref) if held else None
        elif owner in self.model.classes:
            held = self.foreign_attribute_classes.get((owner, attribute))
            if held is not None:  # `self.gate(x)`: an imported layer its `setup` stores
                found = self._foreign_method(held, "", replace(ref, bound_positional=0))
            else:  # a method a class of the module inherits
                found = self._inherited_method(owner, attribute, ref)
        elif owner and (held := self._foreign_instances.get(None, {}).get(owner)):
            found = self._foreign_method(held, attribute, ref)  # a module-level instance
        elif owner:
            member = foreign.member(owner, attribute)  # `module.f`, `Cls.f`, `Cls(...)(x)`
            found = (member, ref) if member is not None else None
        else:
            function = foreign.function(ref.name)
            if function is None and (held := self._foreign_instances.get(None, {}).get(local)):
                found = self._foreign_method(held, "", ref)
            else:
                found = (function, ref) if function is not None else None
        if found is None or found[0] is None or found[0].node is None:
            return None
        function, ref = found
        self.foreign_nodes[function.node] = function
        return function.node, ref

    def _foreign_class_method(
        self, ref: FunctionRef, class_method: str, caller: FunctionNode | None
    ) -> tuple[FunctionNode, FunctionRef] | None:
        """The method a lifted transformation runs on instances of a class imported from
        another workspace module (`nn.scan(Cell)`: `Cell.__call__`)."""
        if self.model._foreign is NO_FOREIGN or (
            caller is not None and binds_locally(ref.name, caller)
        ):
            return None
        if not self.model._foreign.is_class(ref.name):
            return None
        method = self.model._foreign.method(ref.name, class_method)
        if method is None:
            return None
        self.foreign_nodes[method.node] = method
        return method.node, replace(ref, bound_positional=ref.bound_positional + 1)

    def _foreign_method(
        self, class_local: str, attribute: str, ref: FunctionRef
    ) -> tuple[ForeignFunction, FunctionRef] | None:
        """The method an instance of the imported class runs for `attribute` ("": the object
        called), bound to the instance: a linen module's `apply`/`init` run `__call__` (or
        their `method=`) after the variables or keys."""
        if attribute in LINEN_RUNS and self.model._foreign.linen_class(class_local):
            attribute = ref.apply_method or "__call__"
            ref = replace(ref, leading_args=ref.leading_args + 1)
        method = self.model._foreign.method(class_local, attribute or "__call__")
        if method is None:
            return None
        if is_staticmethod(method.node):
            return method, ref
        return method, replace(ref, bound_positional=ref.bound_positional + 1)

    def _inherited_method(
        self, class_name: str, attribute: str, ref: FunctionRef
    ) -> tuple[ForeignFunction, FunctionRef] | None:
        """`self.f(...)` in a class of the module whose base, imported, defines `f`."""
        for base in self.model.classes[class_name].node.bases:
            if isinstance(base, ast.Name) and self.model._foreign.is_class(base.id):
                method = self.model._foreign.method(base.id, attribute)
                if method is not None:
                    return method, ref
        return None

    def foreign_property_reads(self, node: FunctionNode) -> list[CallSite]:
        """Reads in `node` of a property of an instance of a class imported from another
        workspace module (`norm.scale` of `norm: RunningNorm`), as the getter's call."""
        if self.model._foreign is NO_FOREIGN or isinstance(node, ast.Lambda):
            return []
        held = {**self._foreign_instances.get(node, {}), **self._foreign_annotated(node)}
        if not held:
            return []
        found = []
        for read in walk_nodes(node):
            if (
                type(read) is ast.Attribute
                and type(read.ctx) is ast.Load
                and type(read.value) is ast.Name
                and read.value.id in held
                and self.model._foreign.is_property(held[read.value.id], read.attr)
            ):
                getter = ast.copy_location(ast.Call(read, [], []), read)
                found.append(
                    CallSite(node, FunctionRef(f"{read.value.id}.{read.attr}", ()), getter)
                )
        return found

    @cached_property
    def foreign_nodes(self) -> dict[FunctionNode, ForeignFunction]:
        """The definitions in other modules this model's references resolved to."""
        return {}

    @cached_property
    def _foreign_instances(self) -> dict[FunctionNode | None, dict[str, str]]:
        """Names each function (None: the module) binds to `Cls(...)` of a class imported
        from another workspace module (`_constructed` counts them while `_foreign` is set)."""
        return {
            scope: {name: held for name, held in bound.items() if held not in self.model.classes}
            for scope, bound in self.model.objects.constructed.items()
        }

    def _foreign_annotated(self, function: FunctionNode) -> dict[str, str]:
        """Parameters annotated with a class imported from another workspace module."""
        return {
            name: held
            for name, held in self.model.objects.annotated_params(function).items()
            if held not in self.model.classes
        }

    @cached_property
    def foreign_attribute_classes(self) -> dict[tuple[str, str], str]:
        """(class, attribute) -> the imported class whose instance the attribute holds
        (`self.normalizer = Normalizer()` in a method)."""
        found: dict[tuple[str, str], str] = {}
        for record in self.model.classes.values():
            for attribute, class_name in attribute_constructors(record.node):
                if class_name not in self.model.classes and self.model._foreign.is_class(
                    class_name
                ):
                    found.setdefault((record.name, attribute), class_name)
        return found

    @cached_property
    def _method_aliases(self) -> dict[str, tuple[FunctionNode, int]]:
        """Module-level names bound once to a transformation of an object's method (`step =
        jax.jit(env.step)`): the method, and how many leading parameters the object fixes
        (its `self`). Calls of the name run the method."""
        found: dict[str, tuple[FunctionNode, int]] = {}
        units = self.model.document.parsed_units
        for unit, summary in zip(units, self.model.summaries, strict=True):
            for application in summary.applications:
                name = bound_method_alias(unit.tree, application)
                if name is None or name not in self.model.module_globals.stable_globals:
                    continue
                line = unit.start_line + application.node.lineno
                resolved = self.resolve_ref(application.target, line)
                if resolved is not None and not isinstance(resolved[0], ast.Lambda):
                    found[name] = (resolved[0], resolved[1].bound_positional)
        return found

    @cached_property
    def constructing_functions(self) -> dict[str, str]:
        """Functions and methods of the module (by path) each of whose returns builds an
        instance of one class of the module (`def reset(self): return State(...)`)."""
        found: dict[str, str] = {}
        if not self.model.classes:
            return found  # no return builds an instance of one
        classes = self.model.classes
        for path, record in self.model.functions.items():
            if isinstance(record.node, ast.Lambda | ast.AsyncFunctionDef):
                continue
            built = _returns_build(record.node)
            if built and built in classes:
                found[path] = built
        return found

    def returned_class(self, call: ast.Call, instances: Mapping[str, str]) -> str | None:
        """The class of the module whose instance `call` returns: a function of the module or
        a method of an instance in `instances` (`env.reset()`) that builds one."""
        func = call.func
        if isinstance(func, ast.Name):
            return self.constructing_functions.get(func.id)
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
            owner = instances.get(func.value.id)
            if owner is not None:
                return self.constructing_functions.get(f"{owner}.{func.attr}")
        return None

    def resolve_all(
        self,
        ref: FunctionRef,
        line: int | None,
        caller: FunctionNode | None,
        found: tuple[FunctionNode, FunctionRef] | None,
    ) -> list[tuple[FunctionNode, FunctionRef]]:
        """Every function `ref` may run: `found`, the one function a resolution found for it
        (`resolve_ref`'s, `resolve_transformed`'s), else a method of each class the name it
        calls on may hold (`resolve_choices`)."""
        if found is not None:
            return [found]
        return self.resolve_choices(ref, line, caller)

    def resolve_choices(
        self, ref: FunctionRef, line: int | None, caller: FunctionNode | None
    ) -> list[tuple[FunctionNode, FunctionRef]]:
        """The methods a reference runs on a name that holds an instance of one of several
        classes (`cell.step`, `cell(x)`; `ObjectFacts.class_choices`): one of each class
        that defines it. Asked where `resolve_ref` finds nothing."""
        if ref.node is not None or ref.owner_class is not None:
            return []
        owner, _, attribute = ref.name.rpartition(".")
        if "." in owner:
            return []
        name = owner or ref.name
        held = self.model.objects.class_choices(caller).get(name)
        if held is None and caller is not None:
            held = self.model.objects.class_choices(None).get(name)
            if held is not None and binds_locally(name, caller):
                return []  # the function's own name, not the module's
        found = []
        for class_name in sorted(held or ()):
            method = self._method_of(class_name, attribute if owner else "", ref, line)
            if method is not None and method not in found:
                found.append(method)
        return found

    def resolve_transformed(
        self,
        ref: FunctionRef,
        line: int | None = None,
        caller: FunctionNode | None = None,
        class_method: str | None = None,
    ) -> tuple[FunctionNode, FunctionRef] | None:
        """What a transformation applied to `ref` runs: as `resolve_ref`, and for a class of
        the module (`jax.jit(CubicSpline)`, `jax.vmap(Model)`) its `__init__`, which builds the
        object from the transformed arguments (`self` is the new object, not an argument), or
        the `class_method` of its instances a lifted transformation runs (`nn.scan(Cell)`)."""
        found = self.resolve_ref(ref, line, caller)
        if found is None and class_method is not None and "." not in ref.name:
            found = self._foreign_class_method(ref, class_method, caller)
        if found is not None or ref.name not in self.model.classes or "." in ref.name:
            return found
        if caller is not None and binds_locally(ref.name, caller):
            return None
        if class_method is not None:
            return self._method_of(ref.name, class_method, ref, line)
        init = self.definition(f"{ref.name}.__init__", line)
        if init is None or isinstance(init, ast.Lambda):
            return None
        return init, replace(ref, bound_positional=ref.bound_positional + 1)

    def _transformed_global(
        self, name: str, line: int | None, caller: FunctionNode | None
    ) -> FunctionNode | None:
        """The function a module-level name bound once to a function runs: a transformation
        of it (`f = shard_map(body, ...)`: calling `f` or `jax.jit(f)` runs `body`) or the
        function a factory of the module returns (`step = make_step(model)`)."""
        if name not in self.model.module_globals.stable_globals or (
            caller and binds_locally(name, caller)
        ):
            return None
        value = self.model.module_globals.global_values.get(name)
        if type(value) is not Function or value.path is None:
            return None
        return self.definition(value.path, line)

    def _method_of(
        self, class_name: str, attribute: str, ref: FunctionRef, line: int | None
    ) -> tuple[FunctionNode, FunctionRef] | None:
        """The method `attribute` (the object called: `__call__`) of an instance of the
        class, bound to it; a linen module's `apply` and `init` run `__call__` (or their
        `method=`) on the arguments after the variables or the PRNG keys."""
        if class_name not in self.model.classes:  # imported (see `outgoing_traces`)
            found = self._foreign_method(class_name, attribute, ref)
            if found is None:
                return None
            self.foreign_nodes[found[0].node] = found[0]
            return found[0].node, found[1]
        record = self.model.classes[class_name]
        if not attribute:
            attribute = "__call__"
        elif (
            attribute in LINEN_RUNS
            and LINEN_MODULE in record.bases
            and self.definition(f"{class_name}.{attribute}", line) is None  # not overridden
        ):
            attribute = ref.apply_method or "__call__"
            ref = replace(ref, leading_args=ref.leading_args + 1)
        node = self.definition(f"{class_name}.{attribute}", line)
        if node is None:
            return None
        if is_staticmethod(node):  # `model.helper(x)`: no instance passed
            return node, ref
        return node, replace(ref, bound_positional=ref.bound_positional + 1)

    def _inherited_definition(
        self, path: str, line: int | None, seen: frozenset[str] = frozenset()
    ) -> FunctionNode | None:
        """The method `Class.attribute` a class of the module inherits from a base of the
        module (`class ENet(Base)`, `Base` defining `__call__`), the bases searched in order
        and depth first; None once a base defined elsewhere comes first (it may define the
        method: `_inherited_method` answers for one of another workspace module)."""
        class_name, _, attribute = path.rpartition(".")
        record = self.model.classes.get(class_name) if class_name else None
        if record is None or class_name in seen or self.model.class_defined_twice(class_name):
            return None
        seen = seen | {class_name}
        for base in record.node.bases:
            if not isinstance(base, ast.Name) or base.id not in self.model.classes:
                return None
            if self.model.tracing.definitions.get(f"{base.id}.{attribute}"):
                return self.definition(f"{base.id}.{attribute}", line)
            found = self._inherited_definition(f"{base.id}.{attribute}", line, seen)
            if found is not None:
                return found
        return None

    def definition(self, path: str, line: int | None) -> FunctionNode | None:
        """The definition of `path` bound at document `line`: the last one before it (a
        function defined twice, in a notebook or a script), else the first."""
        definitions = self.model.tracing.definitions.get(path)
        if not definitions:
            return self._inherited_definition(path, line)
        if line is None or len(definitions) == 1:
            return definitions[-1][1]
        before = [node for start, node in definitions if start <= line]
        return before[-1] if before else definitions[0][1]


# The name every return of a function calls (`_returns_build`), by the function's node:
# asked of every function at every edit, and a function of the node's subtree, which an
# edit elsewhere shares with the last parse. Weak keys: a forgotten tree takes its entries.
_RETURNS_BUILD: weakref.WeakKeyDictionary[ast.AST, str] = weakref.WeakKeyDictionary()


def _returns_build(node: ast.FunctionDef) -> str:
    """The one name each of the function's returns calls (`return State(...)`), or ""."""
    found = _RETURNS_BUILD.get(node)
    if found is None:
        returns = own_returns(node, may_yield=False)
        built = {
            value.func.id
            for value in returns or ()
            if isinstance(value, ast.Call) and isinstance(value.func, ast.Name)
        }
        found = ""
        if (
            returns
            and len(built) == 1
            and len(returns) == sum(isinstance(v, ast.Call) for v in returns)
        ):
            found = next(iter(built))
        _RETURNS_BUILD[node] = found
    return found

"""Which values cannot be hashed, and which value a name holds where it is used.

`jax.jit` keys its compilation cache on static arguments, so they must be hashable: a list,
dict, set, array (NumPy or JAX), a dataclass that is not frozen, an object whose class defines
`__eq__` without `__hash__`, or an optimizer state (a pytree of arrays) raises ValueError.
Objects that hash by identity (closures, `functools.partial`, optax transformations, plain
class instances) are hashable but never equal to a rebuilt copy: a cache miss every time.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field

from jax_lsp.analysis.external import ExternalFacts
from jax_lsp.analysis.imports import Resolver
from jax_lsp.analysis.kinds import STATIC_RESULTS, Kind
from jax_lsp.analysis.names import stored_names
from jax_lsp.analysis.nodes import child_nodes, walk_nodes
from jax_lsp.analysis.summary import ClassRecord, FunctionNode, transform_of
from jax_lsp.analysis.traced import positional_params
from jax_lsp.analysis.values import Container, Value

_CONTAINERS = {
    ast.List: "a list",
    ast.ListComp: "a list",
    ast.Dict: "a dict",
    ast.DictComp: "a dict",
    ast.Set: "a set",
    ast.SetComp: "a set",
}
_CONTAINER_CALLS = {
    "builtins.list": "a list",
    "builtins.dict": "a dict",
    "builtins.set": "a set",
    "builtins.bytearray": "a bytearray",
    "collections.defaultdict": "a dict",
    "collections.OrderedDict": "a dict",
    "collections.deque": "a deque",
}
# NumPy functions that always return an ndarray (never a NumPy scalar, which is hashable).
_NUMPY_ARRAYS = frozenset(
    f"numpy.{name}"
    for name in [
        "array",
        "zeros",
        "ones",
        "empty",
        "full",
        "arange",
        "linspace",
        "logspace",
        "eye",
        "identity",
        "zeros_like",
        "ones_like",
        "empty_like",
        "full_like",
        "stack",
        "concatenate",
        "meshgrid",
        "diag",
        "tile",
    ]
)
_JAX_ARRAY_MODULES = ("jax.numpy.", "jax.random.", "jax.lax.", "jax.nn.")
_JAX_NON_ARRAYS = STATIC_RESULTS | frozenset(
    {"jax.random.key_data", "jax.random.key_impl", "jax.numpy.dtype"}
)
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)
# Decorators whose classes are dataclasses; `frozen=True` makes them hashable by value.
_DATACLASSES = frozenset({"dataclasses.dataclass", "chex.dataclass"})
# Optimizer libraries: `<factory>(...)` builds a transformation whose `init` gives a state.
_OPTAX = "optax."
_EXAMPLE_OPTIMIZERS = "jax.example_libraries.optimizers."


@dataclass(frozen=True)
class Binding:
    """What a name holds where it is read: a value (with the index it takes out of a tuple
    assignment), a parameter of the enclosing function, or a module-level name."""

    value: ast.expr | None = None
    index: int | None = None  # `a, b = value`: the element taken
    parameter: tuple[FunctionNode, str] | None = None
    module_level: bool = False
    # The parameter's function is nested in another: its defaults see that one's names.
    nested: bool = False
    statement: ast.stmt | None = field(default=None, compare=False)  # the assignment


def dominating_binding(name: str, chain: Sequence[ast.AST]) -> Binding | None:
    """The binding of `name` that every path to `chain[-1]` passes last, searched backwards
    through the statements before each enclosing statement up to the enclosing function.

    `chain` runs from the unit's root to the node. None when the name is bound some other
    way (a loop target, inside a branch, by `global`): the value is unknown.
    """
    for depth in range(len(chain) - 1, 0, -1):
        parent, child = chain[depth - 1], chain[depth]
        if isinstance(parent, ast.ClassDef):
            return None
        for body in _bodies(parent):
            position = _position_in(body, child)
            if position is None:
                continue
            for statement in reversed(body[:position]):
                if name not in stored_names(statement):
                    continue
                return _statement_binding(name, statement)
        if isinstance(parent, _FUNCTIONS):
            if isinstance(parent, ast.Lambda) or name not in _scope_names(parent):
                return Binding(module_level=not _nested(chain[: depth - 1]))
            if name in _parameters(parent):
                if _rebound_anywhere(name, parent):
                    return None
                return Binding(parameter=(parent, name), nested=_nested(chain[: depth - 1]))
            return None  # bound in the function, but not before this statement in its block
    return Binding(module_level=True)


def _position_in(body: list[ast.stmt], node: ast.AST) -> int | None:
    """The index of the statement of `body` that is or contains `node` (the chain may skip
    the statements between a node and its function)."""
    for index, statement in enumerate(body):
        if statement is node:
            return index
    line = getattr(node, "lineno", None)
    if line is None or isinstance(node, ast.stmt):
        return None
    for index, statement in enumerate(body):
        if statement.lineno <= line <= statement.end_lineno:
            return index
    return None


def _nested(chain: Sequence[ast.AST]) -> bool:
    return any(isinstance(node, _FUNCTIONS) for node in chain)


def _scope_names(function: FunctionNode) -> frozenset[str]:
    names = set(_parameters(function))
    for statement in function.body:
        names |= stored_names(statement)
    return frozenset(names)


def _parameters(function: FunctionNode) -> list[str]:
    args = function.args
    names = [a.arg for a in [*args.posonlyargs, *args.args, *args.kwonlyargs]]
    names += [a.arg for a in (args.vararg, args.kwarg) if a is not None]
    return names


def _rebound_anywhere(name: str, function: FunctionNode) -> bool:
    return any(name in stored_names(statement) for statement in function.body)


def _bodies(node: ast.AST) -> Iterator[list[ast.stmt]]:
    for attribute in ("body", "orelse", "finalbody"):
        body = getattr(node, attribute, None)
        if isinstance(body, list):
            yield body
    for handler in getattr(node, "handlers", ()):
        yield handler.body
    for case in getattr(node, "cases", ()):
        yield case.body


def _statement_binding(name: str, statement: ast.stmt) -> Binding | None:
    if isinstance(statement, ast.AnnAssign) and statement.value is not None:
        targets, value = [statement.target], statement.value
    elif isinstance(statement, ast.Assign):
        targets, value = statement.targets, statement.value
    else:
        return None
    for target in targets:
        if isinstance(target, ast.Name) and target.id == name:
            return Binding(value=value, statement=statement)
        if isinstance(target, ast.Tuple | ast.List) and not any(
            isinstance(element, ast.Starred) for element in target.elts
        ):
            for index, element in enumerate(target.elts):
                if isinstance(element, ast.Name) and element.id == name:
                    return Binding(value=value, index=index, statement=statement)
    return None


def class_unhashable(record: ClassRecord) -> str | None:
    """Why instances of a class defined here cannot be hashed, or None."""
    methods = {
        statement.name
        for statement in record.node.body
        if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef)
    }
    assigns_hash = any(
        "__hash__" in stored_names(statement)
        for statement in record.node.body
        if not isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef)
    )
    if "__hash__" in methods or assigns_hash:
        return None
    if "__eq__" in methods:
        return f"an instance of `{record.name}`, which defines `__eq__` without `__hash__`"
    for decorator, qualname in zip(record.node.decorator_list, record.decorators, strict=False):
        if qualname not in _DATACLASSES:
            continue
        options = {
            kw.arg: kw.value.value
            for kw in (decorator.keywords if isinstance(decorator, ast.Call) else [])
            if isinstance(kw.value, ast.Constant)
        }
        if options.get("frozen") or options.get("unsafe_hash") or options.get("eq") is False:
            return None
        return f"an instance of the dataclass `{record.name}` (not frozen, so unhashable)"
    return None


# Looks a name up where it is read: the expression's own chain is given by the caller.
Lookup = Callable[[str], Binding | None]
# The value the module's model gives a module-level name that never changes (None: unknown).
GlobalValue = Callable[[str], Value | None]


def with_imported(
    classes: dict[str, str],
    module_values: dict[str, str],
    external: Mapping[str, ExternalFacts] | None,
) -> tuple[dict[str, str], dict[str, str]]:
    """`classes` (class -> why its instances cannot be hashed) and `module_values` (name ->
    the unhashable value it holds) with those of the imported names whose facts say so
    (`ExternalFacts.unhashable_instances`, `unhashable_value`); the module's own win."""
    if not external:
        return classes, module_values
    imported_classes = {n: f.unhashable_instances for n, f in external.items()}
    imported_values = {n: f.unhashable_value for n, f in external.items()}
    return (
        {**{n: w for n, w in imported_classes.items() if w}, **classes},
        {**{n: w for n, w in imported_values.items() if w}, **module_values},
    )


def unhashable_value(value: Value | None) -> str | None:
    """What a value of the model is when JAX cannot hash it: a list or a dict, a tuple
    holding one, a JAX array (never hashable, a scalar too). A NumPy kind may be a NumPy
    scalar, which hashes: left to the text (`_NUMPY_ARRAYS`)."""
    if value is Kind.ARRAY:
        return "a JAX array"
    if type(value) is not Container:
        return None
    if value.form == "list":
        return "a list"
    if value.form == "dict":
        return "a dict"
    for item in value.items or ():
        what = unhashable_value(item)
        if what is not None:
            return f"a tuple holding {what}"
    return None


def _constant_item(container: Value | None, key: ast.expr) -> Value | None:
    """`container[key]` for a constant key the container is known to hold."""
    if type(container) is not Container or container.items is None:
        return None
    if not isinstance(key, ast.Constant):
        return None
    if container.keys is not None:
        if isinstance(key.value, str) and key.value in container.keys:
            return container.items[container.keys.index(key.value)]
        return None
    if type(key.value) is int and -len(container.items) <= key.value < len(container.items):
        return container.items[key.value]
    return None


class ValueJudge:
    """Says what an expression holds when that is a value JAX cannot hash."""

    def __init__(
        self,
        resolver: Resolver,
        classes: dict[str, str],
        module_values: dict[str, str],
        global_value: GlobalValue | None = None,
    ) -> None:
        self.resolver = resolver
        self.classes = classes  # class name -> why its instances are unhashable
        self.module_values = module_values  # module-level name -> what it holds
        self.global_value = global_value

    def unhashable(self, expr: ast.expr, lookup: Lookup, depth: int = 0) -> str | None:
        if depth > 4:
            return None
        for node_type, what in _CONTAINERS.items():
            if isinstance(expr, node_type):
                return what
        if isinstance(expr, ast.Name):
            return self._name(expr.id, lookup, depth)
        if isinstance(expr, ast.Subscript):
            return unhashable_value(self.value_of(expr, lookup, depth))
        if not isinstance(expr, ast.Call):
            return None
        qualname = self.resolver.qualname(expr.func)
        if qualname in _CONTAINER_CALLS:
            return _CONTAINER_CALLS[qualname]
        if qualname in _NUMPY_ARRAYS:
            return "a NumPy array"
        if qualname and qualname.startswith(_JAX_ARRAY_MODULES) and qualname not in _JAX_NON_ARRAYS:
            return "a JAX array"
        if (
            isinstance(expr.func, ast.Name)
            and expr.func.id in self.classes
            and lookup(expr.func.id) in (None, Binding(module_level=True))
        ):
            return self.classes[expr.func.id]
        if self._optimizer_init(expr.func, lookup, depth):
            return "an optimizer state (a pytree of arrays)"
        return None

    def _name(self, name: str, lookup: Lookup, depth: int) -> str | None:
        binding = lookup(name)
        if binding is None:
            return None
        if binding.parameter is not None:
            return unhashable_value(self._default_value(binding))
        if binding.module_level:
            found = self.module_values.get(name)
            if found is None and self.global_value is not None:
                found = unhashable_value(self.global_value(name))
            return found
        return self.binding_value(binding, lookup, depth)

    def value_of(self, expr: ast.expr, lookup: Lookup, depth: int = 0) -> Value | None:
        """The model's value of a name or of constant items of one (`CONFIG["sizes"][0]`):
        a module-level value, the module-level value a parameter's default names
        (`def run(cfg=CONFIG)`: where a call leaves it alone), or what a local assignment of
        either gives. None when unknown."""
        if depth > 4 or self.global_value is None:
            return None
        if isinstance(expr, ast.Subscript):
            return _constant_item(self.value_of(expr.value, lookup, depth + 1), expr.slice)
        if not isinstance(expr, ast.Name):
            return None
        binding = lookup(expr.id)
        if binding is None:
            return None
        if binding.parameter is not None:
            return self._default_value(binding)
        if binding.module_level:
            return self.global_value(expr.id)
        if binding.index is None and isinstance(binding.value, ast.Name | ast.Subscript):
            return self.value_of(binding.value, lookup, depth + 1)
        return None

    def _default_value(self, binding: Binding) -> Value | None:
        """The module-level value a parameter's default names, for a function not nested in
        another (its defaults are evaluated with the module's names)."""
        if self.global_value is None or binding.parameter is None or binding.nested:
            return None
        function, name = binding.parameter
        default = _default_of(function, name)
        return self.global_value(default.id) if isinstance(default, ast.Name) else None

    def binding_value(self, binding: Binding, lookup: Lookup, depth: int = 0) -> str | None:
        """What a name's assignment gives it, when that is unhashable."""
        if binding.value is None:
            return None
        if binding.index is not None:
            if isinstance(binding.value, ast.Tuple | ast.List):
                elements = binding.value.elts
                if binding.index < len(elements):
                    return self.unhashable(elements[binding.index], lookup, depth + 1)
            return None
        return self.unhashable(binding.value, lookup, depth + 1)

    def _optimizer_init(self, func: ast.expr, lookup: Lookup, depth: int) -> bool:
        """`tx.init(...)` of an optax transformation, or `opt_init(...)` from the
        `jax.example_libraries.optimizers` triple."""
        if isinstance(func, ast.Attribute) and func.attr == "init":
            made = self._made_by(func.value, lookup)
            return made is not None and made[0].startswith(_OPTAX)
        if isinstance(func, ast.Name):
            made = self._made_by(func, lookup)
            return made is not None and made[0].startswith(_EXAMPLE_OPTIMIZERS) and made[1] == 0
        return False

    def _made_by(self, expr: ast.expr, lookup: Lookup) -> tuple[str, int | None] | None:
        """The qualname of the call that made the value a name holds (and the tuple index)."""
        value, index = expr, None
        if isinstance(expr, ast.Name):
            binding = lookup(expr.id)
            if binding is None or binding.value is None:
                return None
            value, index = binding.value, binding.index
        if not isinstance(value, ast.Call):
            return None
        qualname = self.resolver.qualname(value.func)
        if qualname and isinstance(value.func, ast.Call):
            return None
        return (qualname, index) if qualname else None


def identity_hashed(expr: ast.expr, resolver: Resolver, classes: frozenset[str]) -> str | None:
    """A freshly built object that hashes by identity: equal to no rebuilt copy."""
    if isinstance(expr, ast.Lambda):
        return "a lambda"
    if not isinstance(expr, ast.Call):
        return None
    qualname = resolver.qualname(expr.func) or ""
    if qualname.startswith(_OPTAX) and qualname[len(_OPTAX) :][:1].islower():
        return f"an optax transformation (`{qualname}(...)`)"
    if qualname == "functools.partial":
        return "a `functools.partial` object"
    if isinstance(expr.func, ast.Name) and expr.func.id in classes:
        return f"an instance of `{expr.func.id}`"
    return None


def _default_of(function: FunctionNode, name: str) -> ast.expr | None:
    """The default value of a parameter of `function`, if it has one."""
    arguments = function.args
    positional = [*arguments.posonlyargs, *arguments.args]
    with_defaults = positional[len(positional) - len(arguments.defaults) :]
    for arg, default in zip(with_defaults, arguments.defaults, strict=True):
        if arg.arg == name:
            return default
    for arg, default in zip(arguments.kwonlyargs, arguments.kw_defaults, strict=True):
        if arg.arg == name:
            return default
    return None


def argument_for(call: ast.Call, function: FunctionNode, parameter: str) -> ast.expr | None:
    """The argument a call passes for one parameter of `function`."""
    positional = positional_params(function)
    for index, argument in enumerate(call.args):
        if isinstance(argument, ast.Starred):
            return None
        if index < len(positional) and positional[index] == parameter:
            return argument
    for keyword in call.keywords:
        if keyword.arg == parameter:
            return keyword.value
    return None


@dataclass(frozen=True)
class HashFacts:
    """Module facts about values that rules read across statements (static arguments,
    instances, constants, configuration objects); all of them are in `key`."""

    classes: dict[str, str]  # class -> why its instances cannot be hashed
    identity_classes: frozenset[str]  # classes whose instances hash (and compare) by identity
    module_values: dict[str, str]  # module-level name -> the unhashable value it holds
    instances: dict[str, str]  # module-level name -> the module class it is an instance of
    # Module-level names every binding of which is the same constant (never really changed).
    constant_globals: frozenset[str]
    # Module-level names bound to a command-line configuration object (absl `FLAGS`, flag
    # holders): set once at startup, before anything is traced.
    config_globals: frozenset[str]
    # Class -> the methods it defines that bind to instances (not static or class methods).
    methods: dict[str, frozenset[str]]
    # Module functions decorated with a staging transformation (jit, pmap, filter_jit, ...).
    jitted_functions: frozenset[str]
    # (wrapper function, parameter) -> what a call passes for it, and that argument's place
    # in the document (line, column, end line, end column; 0-based)
    parameters: dict[tuple[str, str], tuple[str, tuple[int, int, int, int]]]

    @property
    def key(self) -> tuple:
        return (
            tuple(sorted(self.classes.items())),
            tuple(sorted(self.identity_classes)),
            tuple(sorted(self.module_values.items())),
            tuple(sorted(self.instances.items())),
            tuple(sorted(self.constant_globals)),
            tuple(sorted(self.config_globals)),
            tuple(sorted((name, tuple(sorted(m))) for name, m in self.methods.items())),
            tuple(sorted(self.jitted_functions)),
            tuple(sorted(self.parameters.items())),
        )


EMPTY_FACTS = HashFacts({}, frozenset(), {}, {}, frozenset(), frozenset(), {}, frozenset(), {})


def walk_with_chain(root: ast.AST) -> Iterator[tuple[ast.AST, list[ast.AST]]]:
    """Every node under `root` with the chain of nodes from `root` down to it."""
    stack: list[tuple[ast.AST, list[ast.AST]]] = [(root, [root])]
    while stack:
        node, chain = stack.pop()
        yield node, chain
        for child in child_nodes(node):
            stack.append((child, [*chain, child]))


def _identity_class(record: ClassRecord) -> bool:
    """Instances hash by identity: no `__eq__`/`__hash__` of its own, no base that may
    define them, not a dataclass."""
    if record.decorators or any(base not in ("builtins.object", "object") for base in record.bases):
        return False
    return not any(
        isinstance(statement, ast.FunctionDef) and statement.name in ("__eq__", "__hash__")
        for statement in record.node.body
    )


@dataclass(frozen=True)
class ClassHashFacts:
    """What hashing needs of one class (its text and the module's imports decide it)."""

    unhashable: str | None  # why its instances cannot be hashed
    identity: bool  # its instances hash (and compare) by identity
    methods: frozenset[str]  # the methods it defines that bind to instances


def class_hash_facts(record: ClassRecord, resolver: Resolver) -> ClassHashFacts:
    return ClassHashFacts(
        class_unhashable(record), _identity_class(record), _instance_methods(record, resolver)
    )


def statement_bindings(tree: ast.Module) -> tuple[tuple[str, Binding | None], ...]:
    """Each name a unit's top-level statements bind, with its binding (None: not a plain
    assignment, so its value is unknown). Syntax only: memoised on the unit by callers."""
    return tuple(
        (name, _statement_binding(name, statement))
        for statement in tree.body
        for name in stored_names(statement)
    )


def staged_by_decorator(function: FunctionNode, resolver: Resolver) -> bool:
    """The function is decorated with a staging transformation (jit, pmap, filter_jit, ...)."""
    return any(
        (found := transform_of(decorator, resolver)) is not None
        and found[0].label in STAGING_TRANSFORMS
        for decorator in getattr(function, "decorator_list", ())
    )


def compute_hash_facts(
    trees: list[tuple[ast.Module, int]],
    bindings: list[tuple[str, Binding | None]],
    resolver: Resolver,
    classes: dict[str, ClassRecord],
    class_facts: dict[str, ClassHashFacts],
    jitted_functions: frozenset[str],
    wrappers: dict[str, tuple[FunctionNode, frozenset[str]]],
    global_writes: frozenset[str],
) -> HashFacts:
    """`trees`: each unit's tree and first document line; `bindings`: their top-level
    `statement_bindings`; `class_facts`: each class's `class_hash_facts`; `wrappers`: module
    functions with the parameters they pass on in a static position of a jitted call."""
    unhashable_classes = {
        name: facts.unhashable for name, facts in class_facts.items() if facts.unhashable
    }
    identity = frozenset(name for name, facts in class_facts.items() if facts.identity)
    assignments: dict[str, list[Binding]] = {}
    unknown: set[str] = set(global_writes)
    for name, binding in bindings:
        if binding is None:
            unknown.add(name)
        else:
            assignments.setdefault(name, []).append(binding)

    def module_lookup(name: str) -> Binding | None:
        found = assignments.get(name, [])
        if len(found) == 1 and name not in unknown:
            return found[0]
        return Binding(module_level=True)

    judge = ValueJudge(resolver, unhashable_classes, {})
    instances: dict[str, str] = {}
    for name, found in assignments.items():
        if name in unknown:
            continue
        made = instance_of(found[0], classes) if len(found) == 1 else None
        if made is not None:
            instances[name] = made
        whats = [judge.binding_value(binding, module_lookup) for binding in found]
        if whats and all(whats):
            judge.module_values[name] = whats[0]
    parameters: dict[tuple[str, str], tuple[str, tuple[int, int, int, int]]] = {}
    for tree, start in trees if wrappers else ():
        for node, chain in walk_with_chain(tree):
            if not (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id in wrappers
            ):
                continue
            function, statics = wrappers[node.func.id]
            for parameter in sorted(statics):
                argument = argument_for(node, function, parameter)
                if argument is None or (node.func.id, parameter) in parameters:
                    continue
                argument_chain = [*chain, argument]
                what = judge.unhashable(
                    argument, lambda n, c=argument_chain: dominating_binding(n, c)
                )
                if what is not None:
                    place = (
                        start + argument.lineno - 1,
                        argument.col_offset,
                        start + argument.end_lineno - 1,
                        argument.end_col_offset,
                    )
                    parameters[(node.func.id, parameter)] = (what, place)
    known = {name: b for name, b in assignments.items() if name not in unknown}
    constants = frozenset(
        name
        for name, bindings in known.items()
        if len(bindings) > 1
        and len({_constant(binding) for binding in bindings}) == 1
        and _constant(bindings[0]) is not None
    )
    configs = frozenset(
        name
        for name, bindings in known.items()
        if all(_configuration(binding, resolver) for binding in bindings)
    )
    return HashFacts(
        unhashable_classes,
        identity,
        judge.module_values,
        instances,
        constants,
        configs,
        {name: facts.methods for name, facts in class_facts.items()},
        jitted_functions,
        parameters,
    )


# Transformations that trace into a jaxpr: every JAX operation under them gives a tracer.
STAGING_TRANSFORMS = frozenset(["jit", "pmap", "eqx.filter_jit", "nnx.jit", "make_jaxpr"])


def _instance_methods(record: ClassRecord, resolver: Resolver) -> frozenset[str]:
    return frozenset(
        statement.name
        for statement in record.node.body
        if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef)
        and not any(
            resolver.qualname(d) in ("builtins.staticmethod", "builtins.classmethod")
            for d in statement.decorator_list
        )
    )


def _constant(binding: Binding) -> tuple | None:
    """A literal constant's type and value (`0.1`, `"adam"`, `True`), else None."""
    value = binding.value
    if binding.index is None and isinstance(value, ast.Constant):
        return (type(value.value).__name__, repr(value.value))
    return None


_CONFIGURATION_MODULES = ("absl.flags.", "ml_collections.config_flags.")


def _configuration(binding: Binding, resolver: Resolver) -> bool:
    """`FLAGS = flags.FLAGS`, `LR = flags.DEFINE_float(...)`, `config_flags.DEFINE_config_*`."""
    value = binding.value
    if binding.index is not None or value is None:
        return False
    qualname = resolver.qualname(value.func if isinstance(value, ast.Call) else value) or ""
    return qualname.startswith(_CONFIGURATION_MODULES)


def instance_of(binding: Binding, classes: dict[str, ClassRecord] | frozenset[str]) -> str | None:
    """The module class whose instance a plain `name = Class(...)` assignment makes."""
    value = binding.value
    if (
        binding.index is None
        and isinstance(value, ast.Call)
        and isinstance(value.func, ast.Name)
        and value.func.id in classes
    ):
        return value.func.id
    return None


def static_arguments(call: ast.Call, signature) -> list[tuple[ast.expr, str]]:
    """The arguments a call passes in static positions of `signature` (a StaticSignature),
    each with how to name its place."""
    found: list[tuple[ast.expr, str]] = []
    for index, argument in enumerate(call.args):
        if isinstance(argument, ast.Starred):
            break  # later positions are unknown
        if index in signature.positions:
            found.append((argument, f"position {index}"))
    found += [(kw.value, f"`{kw.arg}`") for kw in call.keywords if kw.arg in signature.names]
    return found


PassingCalls = tuple[frozenset[str], tuple[ast.Call, ...]]


def parameter_passing_calls(function: FunctionNode) -> PassingCalls:
    """The parameters of `function` it never rebinds, and its calls that pass one of them as
    it is: all that `wrapped_statics` reads. Syntax only, so callers memoise it on the unit."""
    if isinstance(function, ast.Lambda):
        return frozenset(), ()
    parameters = frozenset(_parameters(function))
    if parameters:  # a function without parameters needs no look at what it binds
        parameters -= {name for statement in function.body for name in stored_names(statement)}
    if not parameters:
        return parameters, ()
    found = []
    for node in walk_nodes(function):
        if not isinstance(node, ast.Call):
            continue
        passed = [*node.args, *(keyword.value for keyword in node.keywords)]
        if any(isinstance(arg, ast.Name) and arg.id in parameters for arg in passed):
            found.append(node)
    return parameters, tuple(found)


def wrapped_statics(passing: PassingCalls, signature_of_call) -> frozenset[str]:
    """Parameters a function passes, unchanged, in a static position of a jitted call, from
    its `parameter_passing_calls` (`signature_of_call(call)` gives the call's StaticSignature
    or None)."""
    parameters, calls = passing
    found: set[str] = set()
    for node in calls:
        signature = signature_of_call(node)
        if signature is None:
            continue
        for argument, _ in static_arguments(node, signature):
            if isinstance(argument, ast.Name) and argument.id in parameters:
                found.add(argument.id)
    return frozenset(found)

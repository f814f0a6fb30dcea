"""Jitted method to PyTree: make `self` something `jax.jit` can trace.

`@jax.jit` on a method receives `self` as an argument; an unregistered class is not a valid JAX
type, so the first call raises TypeError. Three fixes, at the position of the class (0-based line
and code-point column anywhere in it, e.g. of its `class` keyword or of the jitted method):

1. `register_fix` (SAFE): register the class as a PyTree. A plain class gets
   `@jax.tree_util.register_pytree_node_class` and generated `tree_flatten` / `tree_unflatten`
   over the attributes `__init__` assigns; a `@dataclass` gets
   `functools.partial(jax.tree_util.register_dataclass, data_fields=..., meta_fields=...)`.
   Attributes that must stay Python values become aux data (meta fields): those used in Python
   control flow in the class's traced methods (`if self.mul:`, `range(self.n)`), those annotated
   bool/int/str/Literal/Callable/an enum of the module, and those whose values are settings,
   functions or objects of unregistered classes (`codeactions.placement`, from the kinds of the
   values assigned and of the arguments that construct the class). An attribute annotated as an
   array stays a child whatever its use. Iterating over an attribute or testing it against
   None says nothing of its leaves (a list of weights, an optional bias). Everything else is a
   child (traced), and where that is a guess (a value not known, `**kwargs`, an attribute
   inherited from a base class) the registration and the helper are unsafe. Attributes set
   by other methods than `__init__` are included (unsafe: flattening before they are set
   fails), and so is an aux object holding arrays (unsafe: its arrays become constants of the
   compiled code; the title names its class for registration). Attributes top-level code sets
   on instances (`sim.scale = 2.0`) are flattened too (unsafe, as for those set by methods):
   the rebuilt `self` must hold them. No registration where a traced method reads an attribute
   it could not carry (set where the fix cannot see, or on a dataclass outside its fields): the
   rebuilt `self` would raise AttributeError where the original ran. A class whose traced
   methods assign `self.x` gets no fix at all: the assignment cannot survive tracing.
   `tree_unflatten` calls `cls(**fields)` only when `__init__` merely assigns its parameters
   to same-named attributes: then construction is exactly the object's state. Any other
   `__init__` may validate, convert or compute, and JAX calls `tree_unflatten` with tracers and
   placeholder objects as children, so the object is rebuilt with `object.__new__(cls)` and
   its attributes set directly, never running that `__init__`.
2. `static_helper_fix` (SAFE): the guide's strategy 1. Each jitted method's body moves to a
   module-level function jitted with `static_argnames` for the aux attributes; the method calls it.
3. `static_self_fix` (UNSAFE): `partial(jax.jit, static_argnums=0)` plus value `__hash__` and
   `__eq__`. Mutating the object afterwards silently reuses stale compiled code (measured).
   Offered only when every attribute is aux data (a Python value: annotated bool/int/str, used
   in control flow, given literals) and none is known to hold an array: the written `__hash__`
   hashes every attribute, and an array raises TypeError. Where no registration can carry
   `self` (a traced method reads an attribute set where the fix cannot see) and no attribute
   is set after construction, `self` is marked static with its default identity hash and
   equality instead (all jit needs of a static argument; a mutation would go unseen).

Only the class's lines are parsed by libcst (for the helper body); the module is read through the
cached `ast` units.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from dataclasses import dataclass, field, replace

import libcst as cst

from jax_lsp.analysis.attributes import attributes_set_per_class, instance_events
from jax_lsp.analysis.header import is_docstring
from jax_lsp.analysis.imports import Resolver
from jax_lsp.analysis.summary import transform_of
from jax_lsp.codeactions.import_edits import unused_import_removal
from jax_lsp.codeactions.placement import (
    REGISTERED_DECORATORS,
    HeldObject,
    Placement,
    ValuePlacement,
)
from jax_lsp.codeactions.source import ModuleSource, edit
from jax_lsp.findings import Applicability, Edit, Fix

_DATACLASS = frozenset({"dataclasses.dataclass"})
_STATIC_TYPES = frozenset(
    {"builtins.bool", "builtins.int", "builtins.str", "typing.Literal", "typing.Callable"}
    | {"collections.abc.Callable", "typing_extensions.Literal"}
)
_ARRAY_TYPES = frozenset({"jax.Array", "numpy.ndarray", "jax.typing.ArrayLike"})
_ENUM_BASES = frozenset({"enum.Enum", "enum.IntEnum", "enum.StrEnum", "enum.Flag", "enum.IntFlag"})
_STATIC_ATTRIBUTES = frozenset({"shape", "ndim", "dtype", "size"})
_FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef


@dataclass
class _Class:
    """What the fixes need to know about the class at hand."""

    node: ast.ClassDef
    offset: int  # unit start line
    module: ModuleSource
    attributes: list[str] = field(default_factory=list)
    aux: set[str] = field(default_factory=set)
    arrays: set[str] = field(default_factory=set)  # attributes known to hold arrays
    jitted: list[_FunctionNode] = field(default_factory=list)
    init: _FunctionNode | None = None
    dataclass: bool = False
    # Attributes only methods other than `__init__` assign: an object flattened before they
    # are set has none (AttributeError), so the registration is unsafe then.
    set_later: set[str] = field(default_factory=set)
    # Aux attributes holding an object of an unregistered module class that holds arrays
    # (attribute -> class): JAX sees those arrays as constants of the compiled code.
    held_objects: dict[str, str] = field(default_factory=dict)
    # Attributes a traced method assigns on `self`: lost (or a leaked tracer) whatever the fix.
    assigned_in_trace: list[str] = field(default_factory=list)
    # Attributes a traced method reads that the registration would not carry (set where the
    # fix cannot see, or on a dataclass outside its fields): the rebuilt `self` lacks them.
    unheld: set[str] = field(default_factory=set)
    # Attributes whose place (child or aux data) is a guess: a value not known, a container of
    # such values, `**kwargs`, an inherited attribute, or a read the class's text does not
    # show. A wrong guess runs with wrong numbers (arrays in aux data are constants: zero
    # gradients), so the fixes that place attributes are unsafe then.
    guessed: set[str] = field(default_factory=set)
    # Aux attributes holding a list, dict or set: fine as aux data (compared, not hashed),
    # but no static argument of jit (hashed).
    unhashable: set[str] = field(default_factory=set)

    @property
    def first_line(self) -> int:
        return (
            min([d.lineno for d in self.node.decorator_list] + [self.node.lineno]) - 1 + self.offset
        )

    @property
    def last_line(self) -> int:
        return self.node.end_lineno - 1 + self.offset

    @property
    def indent(self) -> str:
        line = self.module.lines[self.node.lineno - 1 + self.offset]
        return line[: len(line) - len(line.lstrip())]

    @property
    def body_indent(self) -> str:
        line = self.module.lines[self.node.body[0].lineno - 1 + self.offset]
        return line[: len(line) - len(line.lstrip())]

    def methods(self) -> dict[str, _FunctionNode]:
        return {s.name: s for s in self.node.body if isinstance(s, _FunctionNode)}

    def text(self, node: ast.AST) -> str:
        return self.module.segment(
            self.module.start(node, self.offset), self.module.end(node, self.offset)
        )


def pytree_fixes(source: str, line: int, column: int) -> tuple[Fix, ...]:
    """Every fix for the class at (line, column), the PyTree registration first."""
    facts = _analyze(ModuleSource(source), line, column)
    if facts is None or facts.assigned_in_trace:
        return ()
    builders = (_register, _static_helper, _static_self)
    fixes = [build(replace(facts, module=facts.module.fork())) for build in builders]
    return tuple(fix for fix in fixes if fix is not None)


def register_fix(source: str, line: int, column: int) -> Fix | None:
    """Register the class as a PyTree (dataclass fields or generated flatten/unflatten)."""
    facts = _analyze(ModuleSource(source), line, column)
    return None if facts is None else _register(facts)


def unstatic_register_fix(source: str, line: int, column: int) -> Fix | None:
    """For a method jitted with a static `self` (the decorator starts at line, column):
    register the class as a PyTree and jit the method plainly, so `self` is traced as a PyTree
    (its arrays as children, its flags as aux data) instead of hashed by identity."""
    module = ModuleSource(source)
    decorator = _static_self_decorator(module, line, column)
    facts = _analyze(module, line, column)
    if decorator is None or facts is None:
        return None
    node, offset, jit = decorator
    register = _register(facts)
    if register is None:
        return None
    plain = edit(module.start(node, offset), module.end(node, offset), jit)
    edits = (*register.edits, plain)
    # `partial` (or `functools`) imported for this decorator alone goes with it.
    binding = node.func.value if isinstance(node.func, ast.Attribute) else node.func
    if isinstance(binding, ast.Name):
        removal = unused_import_removal(module.document, binding.id, edits)
        edits += (removal,) if removal is not None else ()
    return Fix(
        _registration_title(
            facts, "Register the class as a PyTree and jit the method with a traced `self`"
        ),
        edits,
        register.applicability,
    )


def _static_self_decorator(module: ModuleSource, line: int, column: int):
    """(node, unit offset, jit spelling) of `partial(jax.jit, static_argnums=0)` at the place."""
    for node, _, offset in module.nodes_at(line):
        if not (isinstance(node, ast.Call) and module.start(node, offset) == (line, column)):
            continue
        if module.resolver.qualname(node.func) != "functools.partial" or not node.args:
            continue
        jit = node.args[0]
        if module.resolver.qualname(jit) != "jax.jit" or len(node.keywords) != 1:
            continue  # other options (donate_argnums, ...) would need keeping: no fix
        return node, offset, module.segment(module.start(jit, offset), module.end(jit, offset))
    return None


def static_helper_fix(source: str, line: int, column: int) -> Fix | None:
    """Move each jitted method's body to a module-level helper jitted with `static_argnames`."""
    facts = _analyze(ModuleSource(source), line, column)
    return None if facts is None or facts.assigned_in_trace else _static_helper(facts)


def static_self_fix(source: str, line: int, column: int) -> Fix | None:
    """`partial(jax.jit, static_argnums=0)` on the jitted methods, plus `__hash__`/`__eq__`."""
    facts = _analyze(ModuleSource(source), line, column)
    return None if facts is None or facts.assigned_in_trace else _static_self(facts)


def _register(facts: _Class) -> Fix | None:
    if not facts.attributes or facts.assigned_in_trace or facts.unheld:
        return None
    if facts.dataclass:
        return _dataclass_fix(facts)
    return _node_class_fix(facts)


# Analysis -----------------------------------------------------------------------------------


def _locate(module: ModuleSource, line: int, column: int) -> tuple[ast.ClassDef, int] | None:
    """The innermost class whose lines (decorators included) hold the position."""
    best: tuple[ast.ClassDef, int] | None = None
    for node, _, offset in module.nodes_at(line):
        if not isinstance(node, ast.ClassDef):
            continue
        first = min([d.lineno for d in node.decorator_list] + [node.lineno]) - 1 + offset
        if first <= line <= node.end_lineno - 1 + offset and (
            best is None or node.lineno > best[0].lineno
        ):
            best = node, offset
    return best


def _analyze(module: ModuleSource, line: int, column: int) -> _Class | None:
    located = _locate(module, line, column)
    if located is None:
        return None
    node, offset = located
    resolver = module.resolver
    decorators = [resolver.qualname(_callee(d)) for d in node.decorator_list]
    if any(name in REGISTERED_DECORATORS for name in decorators):
        return None  # already a PyTree
    facts = _Class(node, offset, module, dataclass=any(name in _DATACLASS for name in decorators))
    methods = facts.methods()
    facts.init = methods.get("__init__")
    facts.jitted = [
        m for m in methods.values() if any(transform_of(d, resolver) for d in m.decorator_list)
    ]
    annotations = _annotations(facts)
    if facts.dataclass:
        facts.attributes = list(annotations)
    elif facts.init is not None:
        facts.attributes = _init_attributes(facts.init)
        later = [a for a in _assigned_attributes(methods.values()) if a not in facts.attributes]
        facts.set_later = set(later)
        facts.attributes += later
        bases, unseen_base = _module_bases(module, node)
        inherited = [
            a
            for base in bases
            for a in _assigned_attributes(m for m in base.body if isinstance(m, _FunctionNode))
            if a not in facts.attributes
        ]
        # Base classes' attributes are flattened too (the rebuilt `self` must hold them);
        # what their constructors are given is not seen from here.
        facts.attributes += list(dict.fromkeys(inherited))
        facts.guessed |= set(inherited)
        facts.guessed |= _given_packed_arguments(facts.init)
    # Attributes top-level code sets on instances (`sim.scale = 2.0`): the rebuilt object
    # must hold them too, or the method reading them raises AttributeError once registered.
    outside = sorted(_set_on_instances(module, node) - set(facts.attributes))
    traced = _traced_methods(facts, methods)
    if facts.dataclass and outside:
        facts.unheld = set(outside)  # `register_dataclass` flattens the fields only
    else:
        facts.set_later |= set(outside)
        facts.attributes += outside
    if facts.node.bases and not facts.dataclass:
        unseen = _read_unheld(facts, traced, bases)
        if unseen_base:
            facts.guessed |= unseen  # a base this module does not define may set them
        else:
            facts.unheld |= unseen
    elif not facts.node.bases:
        facts.unheld |= _read_unheld(facts, traced, [])
    facts.assigned_in_trace = _assigned_attributes(traced)
    controlling = _control_flow_attributes(facts, methods)
    placements = ValuePlacement(module).of_class(node) if not facts.dataclass else {}
    facts.arrays = {
        name
        for name in facts.attributes
        if _annotation_kind(module, annotations.get(name)) == "array"
    }
    if not facts.dataclass:
        facts.arrays |= ValuePlacement(module).array_attributes(node) & set(facts.attributes)
    literal = _literal_static_attributes(facts)
    for name in facts.attributes:
        kind = _annotation_kind(module, annotations.get(name))
        placed = placements.get(name)
        if kind == "array":
            continue
        if kind == "static" or name in literal or placed in (Placement.AUX, Placement.NEUTRAL):
            facts.aux.add(name)
        elif placed is Placement.SETTINGS:
            facts.aux.add(name)
            facts.unhashable.add(name)
        elif isinstance(placed, HeldObject):
            facts.aux.add(name)
            if placed.holds_arrays:
                facts.held_objects[name] = placed.class_name
        elif kind == "scalar" or placed is Placement.SCALAR:
            if name in controlling:  # a Python number deciding a branch stays one
                facts.aux.add(name)
        elif placed is Placement.CHILD:
            if name in controlling:
                facts.guessed.add(name)  # arrays deciding a Python branch: tracing may fail
        else:  # what the attribute holds is not known
            facts.guessed.add(name)
            if name in controlling:
                facts.aux.add(name)
    return facts


def _given_packed_arguments(init: _FunctionNode) -> set[str]:
    """Attributes `__init__` gives from its `*args` or `**kwargs`: other callers may pass
    anything there."""
    packed = {a.arg for a in (init.args.vararg, init.args.kwarg) if a is not None}
    self_name = _self_name(init)
    found: set[str] = set()
    for node in ast.walk(init):
        if isinstance(node, ast.Assign) and any(
            isinstance(n, ast.Name) and n.id in packed for n in ast.walk(node.value)
        ):
            found.update(a for t in node.targets if (a := _self_attribute(t, self_name)))
    return found


def _module_bases(module: ModuleSource, node: ast.ClassDef) -> tuple[list[ast.ClassDef], bool]:
    """The module's classes `node` derives from (transitively), and whether some base is one
    the module does not define (besides `object`)."""
    classes = {
        statement.name: statement
        for unit in module.document.units
        for statement in (unit.tree.body if unit.tree else ())
        if isinstance(statement, ast.ClassDef)
    }
    found: list[ast.ClassDef] = []
    unseen = bool(node.keywords)  # a metaclass may do anything
    pending = list(node.bases)
    while pending:
        base = pending.pop(0)
        if isinstance(base, ast.Name) and base.id in classes and classes[base.id] is not node:
            cls = classes[base.id]
            if cls not in found:
                found.append(cls)
                pending.extend(cls.bases)
                unseen |= bool(cls.keywords)
        elif module.resolver.qualname(base) != "builtins.object":
            unseen = True
    return found, unseen


def _set_on_instances(module: ModuleSource, node: ast.ClassDef) -> set[str]:
    """The attributes top-level code assigns to instances of the class (`sim = Simulator(0.1)`,
    then `sim.scale = 2.0`)."""
    events = []
    for unit in module.document.units:
        if unit.tree is not None:
            events += instance_events(unit.tree)
    return set(attributes_set_per_class(events).get(node, frozenset()))


def _read_unheld(facts: _Class, traced: list[_FunctionNode], bases: list[ast.ClassDef]) -> set[str]:
    """`self.x` read by the traced methods that neither the flattened attributes nor the class
    itself or its module bases (a method, a class attribute) provide."""
    if facts.dataclass:
        return set()  # checked above
    provided = set(facts.attributes)
    for statement in [s for cls in (facts.node, *bases) for s in cls.body]:
        if isinstance(statement, _FunctionNode | ast.ClassDef):
            provided.add(statement.name)
        for target in getattr(statement, "targets", [getattr(statement, "target", None)]):
            if isinstance(target, ast.Name):
                provided.add(target.id)
    read: set[str] = set()
    for method in traced:
        self_name = _self_name(method)
        called = {id(n.func) for n in ast.walk(method) if isinstance(n, ast.Call)}
        read |= {
            name
            for n in ast.walk(method)
            if (name := _self_attribute(n, self_name))
            and isinstance(n.ctx, ast.Load)
            and id(n) not in called  # `self.g(y)`: a method, maybe of a class not seen
        }
    return read - provided


def _callee(decorator: ast.expr) -> ast.expr:
    return decorator.func if isinstance(decorator, ast.Call) else decorator


def _self_name(function: _FunctionNode) -> str | None:
    positional = [*function.args.posonlyargs, *function.args.args]
    return positional[0].arg if positional else None


def _self_attribute(node: ast.AST, self_name: str | None) -> str | None:
    if (
        isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id == self_name
    ):
        return node.attr
    return None


def _assigned_attributes(methods: Iterable[_FunctionNode]) -> list[str]:
    """Attributes the methods assign on their `self`, in order of first assignment."""
    names: list[str] = []
    for method in methods:
        names += [name for name in _init_attributes(method) if name not in names]
    return names


def _init_attributes(init: _FunctionNode) -> list[str]:
    """Attributes `__init__` assigns on `self`, in order of first assignment."""
    self_name = _self_name(init)
    names: list[str] = []
    for node in ast.walk(init):
        attribute = _self_attribute(node, self_name)
        if attribute and isinstance(node.ctx, ast.Store) and attribute not in names:
            names.append(attribute)
    return sorted(names, key=lambda n: _first_store_line(init, n, self_name))


def _first_store_line(init: _FunctionNode, name: str, self_name: str | None) -> tuple[int, int]:
    return min(
        (n.lineno, n.col_offset)
        for n in ast.walk(init)
        if _self_attribute(n, self_name) == name and isinstance(n.ctx, ast.Store)
    )


def _annotations(facts: _Class) -> dict[str, ast.expr]:
    """Attribute -> annotation, from class fields, `self.a: T` and annotated `__init__` params."""
    found: dict[str, ast.expr] = {}
    for statement in facts.node.body:
        if (
            isinstance(statement, ast.AnnAssign)
            and isinstance(statement.target, ast.Name)
            and not _is_class_var(facts.module, statement.annotation)
        ):
            found[statement.target.id] = statement.annotation
    init = facts.init
    if init is None or facts.dataclass:
        return found
    self_name = _self_name(init)
    params = {a.arg: a.annotation for a in [*init.args.args, *init.args.kwonlyargs] if a.annotation}
    for node in ast.walk(init):
        if isinstance(node, ast.AnnAssign) and (name := _self_attribute(node.target, self_name)):
            found.setdefault(name, node.annotation)
        elif isinstance(node, ast.Assign) and isinstance(node.value, ast.Name):
            for target in node.targets:
                name = _self_attribute(target, self_name)
                if name and node.value.id in params:
                    found.setdefault(name, params[node.value.id])
    return found


def _is_class_var(module: ModuleSource, annotation: ast.expr) -> bool:
    base = annotation.value if isinstance(annotation, ast.Subscript) else annotation
    return module.resolver.qualname(base) == "typing.ClassVar"


def _annotation_kind(module: ModuleSource, annotation: ast.expr | None) -> str | None:
    """ "static" for bool/int/str/Literal/Callable/enum, "scalar" for float/complex, "array" for
    array types (each optional too), else None."""
    if annotation is None:
        return None
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
        try:  # a string annotation
            annotation = ast.parse(annotation.value, mode="eval").body
        except SyntaxError:
            return None
    annotation = _without_none(module, annotation)
    base = annotation.value if isinstance(annotation, ast.Subscript) else annotation
    qualname = module.resolver.qualname(base) or ""
    if qualname in _STATIC_TYPES or _is_module_enum(module, base):
        return "static"
    if qualname in ("builtins.float", "builtins.complex"):
        return "scalar"
    if qualname in _ARRAY_TYPES or qualname.startswith("jaxtyping."):
        return "array"
    return None


def _without_none(module: ModuleSource, annotation: ast.expr) -> ast.expr:
    """`T` for `T | None` and `Optional[T]`: None fits a child and aux data alike."""
    if isinstance(annotation, ast.BinOp) and isinstance(annotation.op, ast.BitOr):
        parts = [annotation.left, annotation.right]
        kept = [p for p in parts if not (isinstance(p, ast.Constant) and p.value is None)]
        return kept[0] if len(kept) == 1 else annotation
    if (
        isinstance(annotation, ast.Subscript)
        and module.resolver.qualname(annotation.value) == "typing.Optional"
    ):
        return annotation.slice
    return annotation


def _is_module_enum(module: ModuleSource, node: ast.expr) -> bool:
    if not isinstance(node, ast.Name):
        return False
    for unit in module.document.units:
        for statement in unit.tree.body if unit.tree else ():
            if isinstance(statement, ast.ClassDef) and statement.name == node.id:
                return any(module.resolver.qualname(b) in _ENUM_BASES for b in statement.bases)
    return False


def _literal_static_attributes(facts: _Class) -> set[str]:
    """Attributes given a str or bool literal: never valid as traced leaves."""
    found: set[str] = set()
    statements = list(facts.node.body) + (list(ast.walk(facts.init)) if facts.init else [])
    self_name = _self_name(facts.init) if facts.init else None
    for node in statements:
        value = getattr(node, "value", None)
        if not (isinstance(value, ast.Constant) and isinstance(value.value, str | bool)):
            continue
        targets = node.targets if isinstance(node, ast.Assign) else [getattr(node, "target", None)]
        for target in targets:
            name = _self_attribute(target, self_name) or (
                target.id if isinstance(target, ast.Name) and facts.dataclass else None
            )
            if name in facts.attributes:
                found.add(name)
    return found


def _traced_methods(facts: _Class, methods: dict[str, _FunctionNode]) -> list[_FunctionNode]:
    """The jitted methods and the methods they call through `self`, transitively."""
    seen = {m.name: m for m in facts.jitted}
    pending = list(facts.jitted)
    while pending:
        method = pending.pop()
        self_name = _self_name(method)
        for node in ast.walk(method):
            if isinstance(node, ast.Call):
                name = _self_attribute(node.func, self_name)
                if name in methods and name not in seen:
                    seen[name] = methods[name]
                    pending.append(methods[name])
    return list(seen.values())


def _control_flow_attributes(facts: _Class, methods: dict[str, _FunctionNode]) -> set[str]:
    """Attributes whose Python value decides control flow or a shape in a traced method."""
    found: set[str] = set()
    for method in _traced_methods(facts, methods):
        self_name = _self_name(method)
        for expression in _deciding_expressions(method, facts.module.resolver):
            found |= _attributes_read(expression, self_name)
    return found


def _deciding_expressions(function: _FunctionNode, resolver: Resolver) -> list[ast.expr]:
    found: list[ast.expr] = []
    for node in ast.walk(function):
        if isinstance(node, ast.If | ast.While | ast.IfExp | ast.Assert):
            found.append(node.test)
        elif isinstance(node, ast.comprehension):
            found.extend(node.ifs)
        elif isinstance(node, ast.BoolOp):
            found.extend(node.values)
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            found.append(node.operand)
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in ("range", "bool", "int")
        ):
            found.extend(node.args)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            found.extend(_shape_arguments(node, resolver))
    return found


# Functions (`jnp.zeros(shape)`) and array methods (`x.reshape(shape)`) whose arguments are
# shapes, which must be Python ints while tracing.
_SHAPE_FIRST = frozenset({"zeros", "ones", "empty", "full", "eye", "identity"})
_SHAPE_METHODS = frozenset({"reshape", "broadcast_to"})


def _shape_arguments(call: ast.Call, resolver: Resolver) -> list[ast.expr]:
    """The arguments of `call` that are shapes."""
    func = call.func
    name = func.attr if isinstance(func, ast.Attribute) else ""
    module_function = resolver.qualname(func) or ""
    found = [k.value for k in call.keywords if k.arg in ("shape", "newshape")]
    if module_function.startswith(("jax.numpy.", "numpy.")):
        if name in _SHAPE_FIRST and call.args:
            found.append(call.args[0])
        elif name in _SHAPE_METHODS:
            found.extend(call.args[1:])  # jnp.reshape(x, shape)
    elif not module_function and name in _SHAPE_METHODS:
        found.extend(call.args)  # x.reshape(n, m)
    return found


def _attributes_read(expression: ast.expr, self_name: str | None) -> set[str]:
    """`self.a` read in `expression`, except through static properties (`self.a.shape`)."""
    found: set[str] = set()
    hidden: set[int] = set()
    for node in ast.walk(expression):
        if isinstance(node, ast.Attribute) and node.attr in _STATIC_ATTRIBUTES:
            hidden.add(id(node.value))
        elif (
            isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "len"
        ):
            hidden.update(id(arg) for arg in node.args)
        elif isinstance(node, ast.Compare) and all(
            isinstance(op, ast.Is | ast.IsNot) for op in node.ops
        ):
            # `self.b is not None`: which PyTree, not what its leaves hold
            hidden.update(id(operand) for operand in [node.left, *node.comparators])
    for node in ast.walk(expression):
        name = _self_attribute(node, self_name)
        if name and id(node) not in hidden:
            found.add(name)
    return found


# Fix 1: registration ------------------------------------------------------------------------


def _tuple(items: list[str]) -> str:
    return f"({items[0]},)" if len(items) == 1 else f"({', '.join(items)})"


def _unpack(targets: list[str], source: str) -> list[str]:
    if not targets:
        return []
    left = f"({targets[0]},)" if len(targets) == 1 else ", ".join(targets)
    return [f"{left} = {source}"]


def _just_assigns_parameters(init: _FunctionNode | None) -> bool:
    """`__init__` only stores each parameter in the attribute of the same name."""
    if init is None or init.args.posonlyargs or init.args.vararg or init.args.kwarg:
        return False
    self_name = _self_name(init)
    params = [a.arg for a in [*init.args.args[1:], *init.args.kwonlyargs]]
    body = init.body[1:] if init.body and is_docstring(init.body[0]) else init.body
    assigned = []
    for statement in body:
        if not (
            isinstance(statement, ast.Assign)
            and len(statement.targets) == 1
            and isinstance(statement.value, ast.Name)
            and _self_attribute(statement.targets[0], self_name) == statement.value.id
        ):
            return False
        assigned.append(statement.value.id)
    return sorted(assigned) == sorted(params)


def _flatten_methods(facts: _Class) -> list[str]:
    children = [a for a in facts.attributes if a not in facts.aux]
    aux = [a for a in facts.attributes if a in facts.aux]
    flatten = [
        "def tree_flatten(self):",
        f"    children = {_tuple([f'self.{a}' for a in children])}",
        f"    aux_data = {_tuple([f'self.{a}' for a in aux])}",
        "    return children, aux_data",
    ]
    if _just_assigns_parameters(facts.init) and not facts.set_later:
        # Construction is exactly the state: rebuild through the constructor.
        body = _unpack(children, "children") + _unpack(aux, "aux_data")
        keywords = ", ".join(f"{a}={a}" for a in facts.attributes)
        body.append(f"return cls({keywords})")
    else:
        # `__init__` does more than store its arguments: never run it on tracers.
        body = ["obj = object.__new__(cls)"]
        body += _unpack([f"obj.{a}" for a in children], "children")
        body += _unpack([f"obj.{a}" for a in aux], "aux_data")
        body.append("return obj")
    unflatten = [
        "@classmethod",
        "def tree_unflatten(cls, aux_data, children):",
        *(f"    {line}" for line in body),
    ]
    return [*flatten, "", *unflatten]


def _insert_decorator(facts: _Class, decorator: str) -> Edit:
    line = facts.first_line
    return edit((line, 0), (line, 0), f"{facts.indent}@{decorator}\n")


def _append_to_class(facts: _Class, lines: list[str]) -> Edit:
    """Insert `lines` (relative to the body indentation) after the class's last line."""
    block = "".join(f"\n{facts.body_indent}{line}" if line else "\n" for line in lines)
    last = facts.last_line
    end = (last, len(facts.module.lines[last]))
    return edit(end, end, block)


def _node_class_fix(facts: _Class) -> Fix | None:
    methods = facts.methods()
    if facts.init is None:
        return None
    decorator = facts.module.alias("jax.tree_util.register_pytree_node_class")
    edits = [_insert_decorator(facts, decorator)]
    if not ("tree_flatten" in methods and "tree_unflatten" in methods):
        if "tree_flatten" in methods or "tree_unflatten" in methods:
            return None  # half a protocol: leave it to the author
        edits.append(_append_to_class(facts, ["", *_flatten_methods(facts)]))
    return Fix(
        _registration_title(facts, "Register the class as a PyTree (register_pytree_node_class)"),
        facts.module.with_imports(edits),
        _registration_safety(facts),
    )


def _registration_safety(facts: _Class) -> Applicability:
    """Unsafe when flattening may meet a missing attribute (one set after `__init__`) or an
    object whose arrays JAX would bake into the compiled code (stale once they change)."""
    if facts.set_later or facts.held_objects or facts.guessed:
        return Applicability.UNSAFE
    return Applicability.SAFE


def _registration_title(facts: _Class, title: str) -> str:
    held = sorted(set(facts.held_objects.values()))
    if held:
        names = ", ".join(f"`{name}`" for name in held)
        title += f"; register {names} as a PyTree too"
    return title


def _dataclass_fix(facts: _Class) -> Fix | None:
    if any(_field_without_init(facts, s) for s in facts.node.body):
        return None
    data = [a for a in facts.attributes if a not in facts.aux]
    meta = [a for a in facts.attributes if a in facts.aux]
    partial = facts.module.alias("functools.partial")
    register = facts.module.alias("jax.tree_util.register_dataclass")
    decorator = f"{partial}({register}, data_fields={data!r}, meta_fields={meta!r})"
    decorator = decorator.replace("'", '"')
    # __post_init__ would run again on every unflatten, with tracers.
    unsafe = "__post_init__" in facts.methods() or facts.guessed
    safety = Applicability.UNSAFE if unsafe else Applicability.SAFE
    return Fix(
        "Register the dataclass as a PyTree (register_dataclass)",
        facts.module.with_imports([_insert_decorator(facts, decorator)]),
        safety,
    )


def _field_without_init(facts: _Class, statement: ast.stmt) -> bool:
    value = getattr(statement, "value", None)
    if not (isinstance(statement, ast.AnnAssign) and isinstance(value, ast.Call)):
        return False
    return any(
        k.arg == "init" and isinstance(k.value, ast.Constant) and not k.value.value
        for k in value.keywords
    )


# Fix 2: module-level helper -----------------------------------------------------------------


class _SelfToNames(cst.CSTTransformer):
    """`self.a` -> `a` for the given attributes; notes any other use of `self`."""

    def __init__(self, self_name: str, attributes: set[str]) -> None:
        self.self_name = self_name
        self.attributes = attributes
        self.used: list[str] = []
        self.other_use = False

    def _attribute(self, node: cst.Attribute) -> str | None:
        value = node.value
        if isinstance(value, cst.Name) and value.value == self.self_name:
            return node.attr.value if node.attr.value in self.attributes else None
        return None

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        name = self._attribute(node)
        if name is not None and name not in self.used:
            self.used.append(name)
        return name is None  # `self` inside a rewritten `self.a` is not another use

    def leave_Attribute(self, original: cst.Attribute, updated: cst.Attribute):
        name = self._attribute(original)
        return updated if name is None else cst.Name(name)

    def visit_Name(self, node: cst.Name) -> None:
        if node.value == self.self_name:
            self.other_use = True  # reached only for uses not rewritten above


def _dedented(facts: _Class, node: ast.AST) -> str | None:
    """The source lines of `node` (decorators excluded), without their common indentation."""
    first = node.lineno - 1 + facts.offset
    last = node.end_lineno - 1 + facts.offset
    lines = facts.module.lines[first : last + 1]
    indent = lines[0][: len(lines[0]) - len(lines[0].lstrip())]
    if any(line.strip() and not line.startswith(indent) for line in lines):
        return None
    return "\n".join(line[len(indent) :] for line in lines) + "\n"


def _helper(facts: _Class, method: _FunctionNode, name: str) -> tuple[str, str] | None:
    """(module-level helper source, the call the method's body becomes)."""
    decorator = method.decorator_list[0]
    if len(method.decorator_list) != 1 or not isinstance(decorator, ast.Name | ast.Attribute):
        return None  # only a bare `@jit`: other arguments would need merging
    text = _dedented(facts, method)
    self_name = _self_name(method)
    if text is None or self_name is None:
        return None
    function = cst.ensure_type(cst.parse_statement(text), cst.FunctionDef)
    rewriter = _SelfToNames(self_name, set(facts.attributes))
    # Visit the body only: the `self` parameter itself is dropped below.
    body = function.body.visit(rewriter)
    # Compare with self's own params and local names: a clash would change meaning.
    local_names = {n.id for n in ast.walk(method) if isinstance(n, ast.Name)}
    params = function.params
    kept = [*params.posonly_params, *params.params][1:]
    if rewriter.other_use or set(rewriter.used) & (local_names | {p.name.value for p in kept}):
        return None
    new_params = [cst.Param(cst.Name(a)) for a in rewriter.used]
    if params.posonly_params:
        params = params.with_changes(
            posonly_params=[], params=[*params.posonly_params[1:], *params.params]
        )
    else:
        params = params.with_changes(params=params.params[1:])
    params = params.with_changes(params=[*new_params, *params.params])
    helper = function.with_changes(name=cst.Name(name), params=params, body=body, decorators=[])
    jit = facts.text(decorator)
    static = [a for a in rewriter.used if a in facts.aux]
    if facts.unhashable.intersection(static):
        return None  # jit hashes its static arguments: a list raises ValueError
    if static:
        partial = facts.module.alias("functools.partial")
        names = _tuple([f'"{a}"' for a in static])
        jit = f"{partial}({jit}, static_argnames={names})"
    source = f"@{jit}\n" + cst.Module(body=[helper]).code
    return source, f"{name}({', '.join(_call_arguments(method, rewriter.used, self_name))})"


def _call_arguments(method: _FunctionNode, used: list[str], self_name: str) -> list[str]:
    arguments = [f"{self_name}.{a}" for a in used]
    args = method.args
    arguments += [a.arg for a in [*args.posonlyargs, *args.args][1:]]
    if args.vararg:
        arguments.append(f"*{args.vararg.arg}")
    arguments += [f"{a.arg}={a.arg}" for a in args.kwonlyargs]
    if args.kwarg:
        arguments.append(f"**{args.kwarg.arg}")
    return arguments


def _top_level_names(module: ModuleSource) -> set[str]:
    """Names bound at module level (function and class bodies are not walked)."""
    names = set(module.bindings)
    for unit in module.document.units:
        for statement in unit.tree.body if unit.tree else ():
            if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                names.add(statement.name)
                continue
            for node in ast.walk(statement):
                if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                    names.add(node.name)
                elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                    names.add(node.id)
    return names


def _helper_names(class_name: str, method_name: str) -> tuple[str, str]:
    """The module-level names a method's helper may take: `_call` for `__call__`, then with
    the class's name (`_model_call`). One leading underscore only: the method's body calls the
    helper from inside the class, where a name starting with two (and not ending with two,
    `__step`) is mangled to `_Model__step`, which does not exist."""
    stem = method_name.strip("_") or "method"
    return f"_{stem}", f"_{class_name.strip('_').lower()}_{stem}"


def _static_helper(facts: _Class) -> Fix | None:
    if not facts.jitted or facts.indent:
        return None  # a nested class has no module level beside it
    taken = _top_level_names(facts.module)
    helpers: list[str] = []
    edits: list[Edit] = []
    for method in facts.jitted:
        name = next(
            (n for n in _helper_names(facts.node.name, method.name) if n not in taken), None
        )
        if name is None:
            return None
        taken.add(name)
        built = _helper(facts, method, name)
        if built is None:
            return None
        helper, call = built
        helpers.append(helper)
        edits.extend(_delegate(facts, method, call))
    last = facts.last_line
    end = (last, len(facts.module.lines[last]))
    edits.append(edit(end, end, "".join(f"\n\n\n{h.rstrip()}" for h in helpers)))
    # A guessed place may make an array static (unhashable) or a shape traced.
    safety = (
        Applicability.UNSAFE if set(facts.guessed) & set(facts.attributes) else Applicability.SAFE
    )
    return Fix(
        "Move the jitted method body to a module-level helper",
        facts.module.with_imports(edits),
        safety,
    )


def _delegate(facts: _Class, method: _FunctionNode, call: str) -> list[Edit]:
    """Drop the method's jit decorator and make its body `return helper(...)`."""
    decorator = method.decorator_list[0]
    first = decorator.lineno - 1 + facts.offset
    edits = [edit((first, 0), (method.lineno - 1 + facts.offset, 0), "")]
    body = method.body[1:] if len(method.body) > 1 and is_docstring(method.body[0]) else method.body
    start = facts.module.start(body[0], facts.offset)
    end = facts.module.end(body[-1], facts.offset)
    edits.append(edit(start, end, f"return {call}"))
    return edits


# Fix 3: static self (unsafe) ----------------------------------------------------------------


def _static_self(facts: _Class) -> Fix | None:
    if not facts.jitted or not facts.attributes:
        return None
    methods = facts.methods()
    hashed_here = "__hash__" not in methods and "__eq__" not in methods
    by_identity = False
    unhashable = facts.arrays | facts.unhashable
    if hashed_here and (unhashable or any(a not in facts.aux for a in facts.attributes)):
        # An attribute that may hold an array: a written `__hash__` would raise TypeError.
        # Where no registration can carry `self` (an attribute it reads is set where the fix
        # cannot see) and nothing visible changes it after construction, the default
        # identity hash and equality are all jit needs of a static argument.
        if not facts.unheld or facts.set_later:
            return None
        by_identity, hashed_here = True, False
    edits: list[Edit] = []
    for method in facts.jitted:
        decorator = next(d for d in method.decorator_list if transform_of(d, facts.module.resolver))
        if not isinstance(decorator, ast.Name | ast.Attribute):
            return None
        partial = facts.module.alias("functools.partial")
        start = facts.module.start(decorator, facts.offset)
        end = facts.module.end(decorator, facts.offset)
        edits.append(edit(start, end, f"{partial}({facts.text(decorator)}, static_argnums=0)"))
    if hashed_here:
        fields = _tuple([f"self.{a}" for a in facts.attributes])
        others = _tuple([f"other.{a}" for a in facts.attributes])
        edits.append(
            _append_to_class(
                facts,
                [
                    "",
                    "def __hash__(self):",
                    f"    return hash({fields})",
                    "",
                    "def __eq__(self, other):",
                    f"    return isinstance(other, {facts.node.name}) and {fields} == {others}",
                ],
            )
        )
    title = (
        "Mark `self` static (hashed by identity: its attributes become constants of the "
        "compiled code; stale results if the object is mutated)"
        if by_identity
        else "Mark `self` static (its attributes must be hashable; stale results if the object "
        "is mutated)"
    )
    return Fix(title, facts.module.with_imports(edits), Applicability.UNSAFE)

"""Abstract values: what the flow interpreter knows about a value beyond its Kind.

Most values are plain `Kind` members (a traced value, a JAX or NumPy array, a Python value,
unknown). The richer ones below keep what rules and calls need to follow values the way JAX
does: a pytree container with its leaves, a `jax.Ref`, a function with the transformation
applied to it (so that calling `jax.value_and_grad(f)` gives a known result).

Every value is hashable (frozen dataclasses of strings, Kinds and other values): values of
module-level names are part of cache keys. `kind_of` maps any value to the Kind the existing
rules read, so a rule that only knows Kinds keeps working.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Callable
from dataclasses import dataclass

from jax_lsp.analysis.kinds import Kind, merge

_JAX_LIKE = (Kind.TRACED, Kind.ARRAY, Kind.STATIC, Kind.NUMPY)


@dataclass(frozen=True, slots=True)
class Container:
    """A Python tuple, list or dict (a pytree node): its items where known.

    `items` are the element values in order (tuple, list) or the values of `keys` (a dict with
    string keys); None when not known. `leaf` is the value of any element not listed (a pytree
    of tracers seen only through `x["key"]`)."""

    form: str  # "tuple", "list" or "dict"
    items: tuple[Value, ...] | None = None
    keys: tuple[str, ...] | None = None
    leaf: Value = Kind.UNKNOWN

    @property
    def kind(self) -> Kind:
        # Tuples and lists keep the Kind they always had; a dict is no array (nor a sequence).
        return Kind.SEQUENCE if self.form in ("tuple", "list") else Kind.UNKNOWN

    def item(self, key: object) -> Value:
        """The value of `container[key]` for a constant key."""
        if self.items is not None:
            if self.keys is not None and isinstance(key, str) and key in self.keys:
                return self.items[self.keys.index(key)]
            if (
                self.keys is None
                and isinstance(key, int)
                and -len(self.items) <= key < len(self.items)
            ):
                return self.items[key]
        return self.element()

    def element(self) -> Value:
        """The value of an element whose position is not known."""
        if self.items:
            return merge_values_all(list(self.items))
        return self.leaf


@dataclass(frozen=True, slots=True)
class Ref:
    """A `jax.Ref` (`jax.new_ref(x)`): mutable, `ref[...] = v` and `ref[i] += v` are legal."""

    @property
    def kind(self) -> Kind:
        return Kind.UNKNOWN


@dataclass(frozen=True, slots=True)
class Function:
    """A callable the model can follow: a function of this module (by its path, "f" or
    "outer.inner") and the transformation applied to it ("jit", "grad", ...; None: plain)."""

    path: str | None
    transform: str | None = None
    argnums: int | tuple[int, ...] | None = 0  # grad-like: differentiated positions (None: unread)
    has_aux: bool = False

    @property
    def kind(self) -> Kind:
        return Kind.UNKNOWN


@dataclass(frozen=True, slots=True)
class Derived:
    """The result of a call the model cannot see, of traced values inside traced code: most
    likely a traced array, so what is computed or compared with it is traced; itself it may be
    a pytree or an object (`if result:` may be a truthy tuple), so its own Kind is unknown."""

    @property
    def kind(self) -> Kind:
        return Kind.UNKNOWN


@dataclass(frozen=True, slots=True)
class Instance:
    """An object of a PyTree class of the module (an `eqx.Module`, a flax struct, a registered
    class) whose leaves are tracers: passed through a transformation, or the `self` of a method
    traced with its object. Its attributes have the values of its fields: array fields are
    traced, static fields (aux data) Python values, refs stay refs; others are unknown.

    Its own Kind is TRACED, as a traced parameter's always was (a call passing it on traces
    the callee's parameter)."""

    class_name: str
    fields: tuple[tuple[str, Value], ...]

    @property
    def kind(self) -> Kind:
        return Kind.TRACED

    def attribute(self, name: str) -> Value:
        for field_name, value in self.fields:
            if field_name == name:
                return value
        return Kind.UNKNOWN


@dataclass(frozen=True, slots=True)
class Object:
    """An object of a class of the module seen outside any trace (the `self` of a method
    nothing traces): each attribute listed holds the value every assignment of it in the
    class gives (`self.data = jnp.zeros(n)`: a JAX array). Its own Kind is unknown."""

    class_name: str
    fields: tuple[tuple[str, Value], ...]

    @property
    def kind(self) -> Kind:
        return Kind.UNKNOWN

    def attribute(self, name: str) -> Value:
        for field_name, value in self.fields:
            if field_name == name:
                return value
        return Kind.UNKNOWN


@dataclass(frozen=True, slots=True)
class Constructor:
    """A class of the module whose constructor stores what it is given: a generated one
    taking the declared fields in order (a dataclass, a NamedTuple, a flax struct, an
    `eqx.Module` without an `__init__` of its own), or an `__init__` assigning parameters to
    attributes as they are (`self.q = q`). Calling it with tracers builds an object that
    holds them."""

    class_name: str
    fields: tuple[str, ...]  # the parameters taken by position, in order
    keyword_only: tuple[str, ...] = ()
    # Parameters with a default (an argument unpacked from `**d` may not give them).
    defaults: frozenset[str] = frozenset()
    # (attribute, parameter) for each attribute an `__init__` stores a parameter in; None: a
    # generated constructor, whose every parameter is the attribute of its name.
    attributes: tuple[tuple[str, str], ...] | None = None

    @property
    def kind(self) -> Kind:
        return Kind.UNKNOWN


Value = Kind | Container | Ref | Function | Derived | Instance | Object | Constructor
REF = Ref()
DERIVED = Derived()


def kind_of(value: Value) -> Kind:
    return value if type(value) is Kind else value.kind


def merge_values(first: Value, second: Value) -> Value:
    if first == second:
        return first
    if type(first) is Kind and type(second) is Kind:
        return merge(first, second)
    if type(first) is Container and type(second) is Container and first.form == second.form:
        if (
            first.items is not None
            and second.items is not None
            and first.keys == second.keys
            and len(first.items) == len(second.items)
        ):
            items = tuple(map(merge_values, first.items, second.items))
            return Container(first.form, items, first.keys, merge_values(first.leaf, second.leaf))
        # A list known empty holds no element to merge (`params = []` before a loop appends).
        if first.items == () and first.form == "list":
            return Container(first.form, None, None, second.element())
        if second.items == () and second.form == "list":
            return Container(first.form, None, None, first.element())
        return Container(first.form, None, None, merge_values(first.element(), second.element()))
    if type(first) is Object and type(second) is Object and first.class_name == second.class_name:
        # Two objects of one class: each attribute both know, merged (an attribute only one
        # knows is unknown in the other).
        theirs = dict(second.fields)
        fields = tuple(
            (name, merge_values(value, theirs[name]))
            for name, value in first.fields
            if name in theirs
        )
        kept = tuple((name, value) for name, value in fields if value is not Kind.UNKNOWN)
        return Object(first.class_name, kept) if kept else Kind.UNKNOWN
    if (first is DERIVED and second is Kind.TRACED) or (first is Kind.TRACED and second is DERIVED):
        # A tracer on one path, what an unseen call makes of tracers on the other (`x =
        # helper(x)`, then `x = x.reshape(...)` under an `if`): still most likely a tracer.
        return DERIVED
    return merge(kind_of(first), kind_of(second))


def merge_values_all(values: list[Value]) -> Value:
    return functools.reduce(merge_values, values) if values else Kind.UNKNOWN


def contains_traced(value: Value) -> bool:
    """A traced value, or a container or object with a traced leaf."""
    if type(value) is Kind:
        return value is Kind.TRACED
    if type(value) is Object:
        return any(contains_traced(field) for _, field in value.fields)
    if type(value) is Container:
        if contains_traced(value.leaf):
            return True
        return value.items is not None and any(contains_traced(item) for item in value.items)
    return False


def any_traced(values: list[Value]) -> bool:
    if Kind.TRACED in values:
        return True
    return any(
        (type(value) is Container or type(value) is Object) and contains_traced(value)
        for value in values
    )


def as_jax(value: Value, traced: bool, keep_python: bool = False) -> Value:
    """What JAX gives back for `value` through a transformation (jit outputs, while_loop
    carries, gradients): every array-like leaf becomes a JAX array, a tracer when `traced`;
    containers keep their structure. With `keep_python` (equinox's filtered transformations,
    which return the leaves that are not arrays as they are), a Python value stays one."""
    if type(value) is Kind:
        if keep_python and value is Kind.STATIC:
            return value
        if value in _JAX_LIKE:
            return Kind.TRACED if traced else Kind.ARRAY
        return Kind.UNKNOWN
    if type(value) is Container:
        items = (
            None
            if value.items is None
            else tuple(as_jax(v, traced, keep_python) for v in value.items)
        )
        return Container(value.form, items, value.keys, as_jax(value.leaf, traced, keep_python))
    return Kind.UNKNOWN


def called_result(value: Value, traced: bool) -> Value:
    """What a call of a plain module function gives, from its return summary: leaves that are
    JAX arrays there are arrays here (tracers when `traced`); Python and NumPy values stay."""
    if type(value) is Kind:
        if value.is_jax:
            return Kind.TRACED if traced else Kind.ARRAY
        return value
    if type(value) is Container:
        items = (
            None if value.items is None else tuple(called_result(v, traced) for v in value.items)
        )
        return Container(value.form, items, value.keys, called_result(value.leaf, traced))
    return value


def element_value(value: Value) -> Value:
    """The value of one element when iterating or unpacking `value`."""
    if type(value) is Container:
        if value.form == "dict":  # iterating a dict gives its keys
            return Kind.STATIC if value.keys is not None else Kind.UNKNOWN
        return value.element()
    if value in (Kind.TRACED, Kind.ARRAY, Kind.NUMPY, Kind.STATIC):
        return value
    return Kind.UNKNOWN


def reduces_python_values(
    qualname: str,
    node: ast.Call,
    args: list[Value],
    keywords: dict[str | None, Value],
    value_at: Callable[[ast.expr], Value],
) -> bool:
    """`sum(jnp.size(v) for v in leaves)`, `max(a, b)` of Python values: Python's own
    reductions (`qualname`, one of `PYTHON_REDUCTIONS`) of Python numbers give a Python
    number, whatever made the iterable. `value_at` gives what a walked node held."""
    if any(isinstance(arg, ast.Starred) for arg in node.args) or not args:
        return False
    given = [value for name, value in keywords.items() if name != "key"]
    if len(args) > 1 and qualname != "builtins.sum":  # `max(a, b)`: the values themselves
        return all(value is Kind.STATIC for value in [*given, *args])
    source = node.args[0]
    if isinstance(source, ast.GeneratorExp | ast.ListComp | ast.SetComp):
        given.append(value_at(source.elt))
    else:
        given.append(element_value(args[0]))
    given += args[1:]  # `sum(values, start)`
    return all(value is Kind.STATIC for value in given)


def portable(value: Value) -> Value:
    """`value` as another module may hold it: kinds and containers keep their meaning across
    modules, as do refs and unseen results (the fields of a traced instance of a class);
    a function, class or object of the module it comes from does not (its path names that
    module's code), so it becomes unknown."""
    if type(value) is Kind:
        return value
    if type(value) is Container:
        items = None if value.items is None else tuple(portable(item) for item in value.items)
        return Container(value.form, items, value.keys, portable(value.leaf))
    if value is REF or value is DERIVED:
        return value
    return Kind.UNKNOWN


def pytree_of(value: Value) -> Value:
    """`x` once `x["key"]` was read: no JAX array (an array cannot be indexed by a str), so a
    dict-like pytree whose leaves have the kind `x` was given."""
    if type(value) is Kind:
        leaf = value if value.is_jax else Kind.UNKNOWN
        return Container("dict", leaf=leaf)
    return value

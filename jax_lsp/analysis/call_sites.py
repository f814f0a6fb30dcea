"""What the module's own calls pass to a function's parameters.

A parameter nothing traces has no kind of its own: `def quantize(x, scale)` may be given a
JAX array, a NumPy array or a Python number. When every use of the function is a call the
module makes, and each of those calls passes a JAX array (or each a NumPy array) to `x`,
that is what `x` holds. The pieces here are per call site; `ModuleModel.call_site_kinds`
joins them over the sites and follows them through the callers' own parameters.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field

from jax_lsp.analysis.booleans import is_boolean
from jax_lsp.analysis.document import UnitSource
from jax_lsp.analysis.kinds import Kind
from jax_lsp.analysis.nodes import walk_nodes
from jax_lsp.analysis.summary import CallSite, FunctionNode, FunctionRef
from jax_lsp.analysis.traced import passed_arguments

# Kinds a call site can give a parameter: a JAX array (a tracer is one too) or a NumPy array.
# Anything else (Python values, containers, unknown) gives the parameter no kind.
SiteKinds = tuple[tuple[str, Kind], ...]
# Levels of callers followed: a function called from a function called from top-level code.
SITE_LEVELS = 3


def site_kinds(
    node: FunctionNode, call: ast.Call, ref: FunctionRef, kind_of: Callable[[ast.expr], Kind]
) -> dict[str, Kind]:
    """The kind this call gives each named parameter of `node`: its argument's, or its
    default's (a default is evaluated where the function is defined: a literal is a Python
    value, anything else unknown). A parameter `*args` or `**kwargs` may fill is unknown."""
    found = {name: _site_kind(kind_of(arg)) for name, arg in passed_arguments(node, call, ref)}
    unpacks = any(type(arg) is ast.Starred for arg in call.args) or any(
        keyword.arg is None for keyword in call.keywords
    )
    for name, default in _defaults(node):
        if name not in found:
            found[name] = Kind.UNKNOWN if unpacks else _default_kind(default)
    return found


def _site_kind(kind: Kind) -> Kind:
    if kind.is_jax:
        return Kind.ARRAY  # a tracer passed from traced code is a JAX array as well
    return kind if kind is Kind.NUMPY else Kind.UNKNOWN


def _default_kind(default: ast.expr | None) -> Kind:
    return Kind.STATIC if isinstance(default, ast.Constant) else Kind.UNKNOWN


def _defaults(node: FunctionNode) -> Iterator[tuple[str, ast.expr | None]]:
    """Each named parameter with its default (None: it has none)."""
    arguments = node.args
    positional = [*arguments.posonlyargs, *arguments.args]
    padded = [None] * (len(positional) - len(arguments.defaults)) + list(arguments.defaults)
    for arg, default in zip(positional, padded, strict=True):
        yield arg.arg, default
    for arg, default in zip(arguments.kwonlyargs, arguments.kw_defaults, strict=True):
        yield arg.arg, default


def join_sites(node: FunctionNode, sites: Iterable[Mapping[str, Kind]]) -> SiteKinds:
    """Parameters every site gives the same array kind: a JAX array only if every site
    passes one, a NumPy array only if every site passes one. No site: nothing."""
    joined: dict[str, Kind] | None = None
    for site in sites:
        if joined is None:
            joined = {name: kind for name, kind in site.items() if kind is not Kind.UNKNOWN}
        else:
            joined = {name: kind for name, kind in joined.items() if site.get(name) is kind}
        if not joined:
            return ()
    if not joined:
        return ()
    order = {name: index for index, (name, _) in enumerate(_defaults(node))}
    return tuple(
        sorted(
            ((name, kind) for name, kind in joined.items() if kind.is_jax or kind is Kind.NUMPY),
            key=lambda item: order[item[0]],
        )
    )


def value_uses(source: UnitSource, names: frozenset[str]) -> frozenset[str]:
    """Those of `names` a unit reads other than as the function of a call (`jax.jit(f)`,
    `fs = [f]`, `return f`) or exports (the strings of an `__all__` it assigns): a function
    so named may be called where the module cannot see it. Memoised on the unit's parse; a
    unit whose text holds none of the names is not walked."""
    if not names & source.words():
        return frozenset()
    key = ("value-uses", names)
    found = source.memo.get(key)
    if found is None:
        called: set[int] = set()
        used: set[str] = set()
        # Breadth first: a call is seen before its function, so every callee is known then.
        for node in walk_nodes(source.tree):
            if type(node) is ast.Call and type(node.func) is ast.Name:
                called.add(id(node.func))
            elif (
                type(node) is ast.Name
                and node.id in names
                and type(node.ctx) is ast.Load
                and id(node) not in called
            ):
                used.add(node.id)
        used.update(names & _exported(source.tree))
        found = source.memo[key] = frozenset(used)
    return found


def bare_calls(source: UnitSource, calls: Iterable[CallSite]) -> Mapping[str, tuple[CallSite, ...]]:
    """A unit's calls of bare names (`f(x)`, not `obj.f(x)`) by the name, memoised on its
    parse (its summary's calls are the same for the same parse)."""
    found = source.memo.get("bare-calls")
    if found is None:
        grouped: dict[str, list[CallSite]] = {}
        for call in calls:
            if "." not in call.callee.name:
                grouped.setdefault(call.callee.name, []).append(call)
        found = source.memo["bare-calls"] = {name: tuple(c) for name, c in grouped.items()}
    return found


def _exported(tree: ast.Module) -> set[str]:
    found: set[str] = set()
    for statement in tree.body:
        targets = (
            statement.targets
            if type(statement) is ast.Assign
            else [statement.target]
            if type(statement) is ast.AugAssign or type(statement) is ast.AnnAssign
            else []
        )
        if any(type(t) is ast.Name and t.id == "__all__" for t in targets) and statement.value:
            found.update(
                node.value
                for node in ast.walk(statement.value)
                if type(node) is ast.Constant and isinstance(node.value, str)
            )
    return found


def runs_as_program(source: UnitSource) -> bool:
    """A unit guarded by `if __name__ == "__main__":`: the module is run as a program."""
    found = source.memo.get("main-guard")
    if found is None:
        found = source.memo["main-guard"] = "__main__" in source.text and any(
            type(statement) is ast.If and "__main__" in ast.unparse(statement.test)
            for statement in source.tree.body
        )
    return found


@dataclass
class SiteScope:
    """Where a call stands, as `booleans.is_boolean` reads it: the function making it (none
    at module level), and the module's names."""

    qualname: Callable[[ast.AST], str | None]
    functions: list[ast.AST] = field(default_factory=list)


def passes_boolean(arg: ast.expr, scope: SiteScope, module_values: Mapping[str, ast.expr]) -> bool:
    """A boolean array argument: a comparison, `~mask`, `jnp.isnan(x)`, a local name bound
    only to such values, or at module level a name bound once to one (`mask = y != 0`)."""
    if not scope.functions and type(arg) is ast.Name and arg.id in module_values:
        arg = module_values[arg.id]
    return is_boolean(arg, scope)

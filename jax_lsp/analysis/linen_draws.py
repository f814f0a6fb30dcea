"""Which flax linen module classes of the module draw no random numbers when applied: no
`self.make_rng(...)`, no layer that draws (`nn.Dropout` left on, attention with its dropout),
and nothing the model cannot see into (a field holding any module, a name of another library
or module whose facts do not say). `model.apply(v, x, rngs={"dropout": key})` of such a
module reads no key: calling it twice with one key repeats nothing random.
"""

from __future__ import annotations

import ast
import weakref
from collections.abc import Hashable, Iterable, Mapping

from jax_lsp.analysis.external import ExternalFacts
from jax_lsp.analysis.imports import Resolver
from jax_lsp.analysis.key_consumers import switched_off
from jax_lsp.analysis.nodes import walk_once
from jax_lsp.analysis.summary import ClassRecord

_LINEN_MODULE = "flax.linen.Module"
# flax's linen layers that draw from the `dropout` stream when applied (attention: with a
# dropout rate); the others draw only in `init`.
_DRAWING_LAYERS = frozenset(
    {
        "flax.linen.Dropout",
        "flax.linen.MultiHeadDotProductAttention",
        "flax.linen.MultiHeadAttention",
        "flax.linen.SelfAttention",
    }
)
# Libraries whose names a linen module may use without drawing from its rngs (a key they
# take comes from a parameter, not the module's stream).
_QUIET_LIBRARIES = frozenset(
    {
        "flax",
        "jax",
        "numpy",
        "math",
        "functools",
        "typing",
        "dataclasses",
        "einops",
        "operator",
        "builtins",
    }
)


def quiet_linen_classes(
    classes: Mapping[str, ClassRecord],
    functions: Mapping[str, ast.AST],
    globals_bound: Iterable[str],
    resolver: Resolver,
    external: Mapping[str, ExternalFacts] | None,
    memo_key: Hashable = None,
) -> frozenset[str]:
    """The module's linen module classes (deriving from `nn.Module` or from one of them)
    known to draw nothing when applied: their code, and that of the module's classes and
    functions they name, draws from no rngs stream and names nothing unknown.
    `functions`: the module's top-level functions by name; `globals_bound`: every name the
    module binds at top level; `memo_key`: what stands for the resolver and `external` (the
    answers of each class or function are memoised on its node while it and they hold)."""
    linen = {
        name
        for name, record in classes.items()
        if _LINEN_MODULE in record.bases
        or any(isinstance(b, ast.Name) and b.id in classes for b in record.node.bases)
    }
    if not linen:
        return frozenset()
    local = {name: record.node for name, record in classes.items()}
    local.update((name, node) for name, node in functions.items() if name not in local)
    module_names = frozenset(globals_bound) | local.keys()
    named: dict[str, frozenset[str] | None] = {}  # unit -> the local units it names; None: draws
    inputs = (memo_key, frozenset(local), module_names)
    # Only the units the linen classes reach through the names they spell decide their
    # answer: the module's other functions and classes are never read.
    pending = list(linen)
    while pending:
        name = pending.pop()
        if name in named:
            continue
        node = local[name]
        known = _NAMED_UNITS.get(node) if memo_key is not None else None
        if known is not None and known[0] == inputs:
            named[name] = known[1]
        else:
            named[name] = _named_units(node, local, module_names, resolver, external or {})
            if memo_key is not None:
                _NAMED_UNITS[node] = (inputs, named[name])
        pending.extend(named[name] or ())
    quiet = {name for name, names in named.items() if names is not None}
    changed = True
    while changed:
        changed = False
        for name in list(quiet):
            if not named[name] <= quiet:
                quiet.discard(name)
                changed = True
    return frozenset(quiet & linen)


# `_named_units` by class or function node: (its inputs, the answer). Weak keys: a forgotten
# tree takes its entries along.
_NAMED_UNITS: weakref.WeakKeyDictionary[ast.AST, tuple[tuple, frozenset[str] | None]] = (
    weakref.WeakKeyDictionary()
)


def _named_units(
    node: ast.AST,
    local: Mapping[str, ast.AST],
    module_names: frozenset[str],
    resolver: Resolver,
    external: Mapping[str, ExternalFacts],
) -> frozenset[str] | None:
    """The module's classes and functions the code of `node` names, or None when it may draw
    (or names what the model cannot see into)."""
    body = node.body if isinstance(node, ast.ClassDef) else [node]
    off: set[int] = set()  # the layers built or called switched off
    nodes = [n for statement in body for n in walk_once(statement)]
    for child in nodes:
        if isinstance(child, ast.Call) and switched_off(child):
            off.add(id(child.func))
            if isinstance(child.func, ast.Call):
                off.add(id(child.func.func))
    # Names the code binds itself (parameters, assignments) are its own, not the module's.
    own = {a.arg for n in nodes if isinstance(n, ast.arguments) for a in _arguments(n)}
    own.update(n.id for n in nodes if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load))
    found: set[str] = set()
    for child in nodes:
        if isinstance(child, ast.Attribute):
            if child.attr == "make_rng":
                return None
            qualname = resolver.qualname(child)
            if qualname is not None and not _quiet_library_name(qualname, id(child) in off):
                return None
        elif isinstance(child, ast.Name) and isinstance(child.ctx, ast.Load):
            name = child.id
            if name in own:
                continue
            if name in local:
                found.add(name)
                continue
            qualname = resolver.qualname(child)
            if qualname is not None and _quiet_library_name(qualname, id(child) in off):
                continue
            if qualname is not None or name in module_names:
                # A name of another library or of a module of the project (relative imports
                # bind no qualname), or a global: it may hold anything, unless its facts say
                # it is a linen module that draws nothing.
                facts = external.get(name)
                if facts is None or not facts.quiet_linen:
                    return None
    return frozenset(found)


def _arguments(arguments: ast.arguments) -> list[ast.arg]:
    extra = [a for a in (arguments.vararg, arguments.kwarg) if a is not None]
    return [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs, *extra]


def _quiet_library_name(qualname: str, switched_off_here: bool) -> bool:
    """A library name a linen module may use without drawing: of a library that draws from
    no module's stream, not a layer that draws (unless built or called switched off), not
    `nn.Module` itself (a field holding any module)."""
    if qualname in _DRAWING_LAYERS:
        return switched_off_here
    if qualname == _LINEN_MODULE:
        return False
    return qualname.partition(".")[0] in _QUIET_LIBRARIES


def module_bound_names(trees: Iterable[ast.Module]) -> frozenset[str]:
    """The names the modules' top-level statements bind: definitions, assignments and every
    import (relative ones too)."""
    found: set[str] = set()
    statements = [statement for tree in trees for statement in tree.body]
    while statements:
        statement = statements.pop()
        if isinstance(statement, ast.Import | ast.ImportFrom):
            found.update((a.asname or a.name).partition(".")[0] for a in statement.names)
        elif isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            found.add(statement.name)
        elif isinstance(statement, ast.Assign | ast.AnnAssign | ast.AugAssign):
            targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
            found.update(n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name))
        elif isinstance(statement, ast.If | ast.Try | ast.With):  # `try: import ...`
            for block in ("body", "orelse", "finalbody", "handlers"):
                statements.extend(getattr(statement, block, []))
        elif isinstance(statement, ast.ExceptHandler):
            statements.extend(statement.body)
    return frozenset(found)

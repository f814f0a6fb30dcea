"""Import aliases: which module or object each local name stands for.

`import jax.numpy as np` makes `np.zeros` resolve to `jax.numpy.zeros`; `from jax import jit
as J` makes `J` resolve to `jax.jit`. Names nobody imported resolve to builtins.
"""

from __future__ import annotations

import ast
import builtins
from collections.abc import Iterable, Mapping

# Public spellings that name the same object; resolution returns the canonical one.
_CANONICAL = {
    "jax.remat": "jax.checkpoint",
    "jax.ad_checkpoint.checkpoint": "jax.checkpoint",
    "jax.ad_checkpoint.remat": "jax.checkpoint",
    "jax.api.jit": "jax.jit",
    "jax.numpy.ndarray": "jax.Array",
    "jax.experimental.shard_map.shard_map": "jax.shard_map",
    "jax.experimental.enable_x64": "jax.enable_x64",
    "jaxtyping.Array": "jax.Array",
    "flax.nnx.nn.jit": "flax.nnx.jit",
    "eqx": "equinox",
}
# flax re-exports jax.nn's activations (`nn.relu is jax.nn.relu`).
_FLAX_ACTIVATIONS = (
    *("celu", "elu", "gelu", "glu", "hard_sigmoid", "hard_silu", "hard_swish", "hard_tanh"),
    *("leaky_relu", "log_sigmoid", "log_softmax", "logsumexp", "one_hot", "relu", "relu6"),
    *("selu", "sigmoid", "silu", "soft_sign", "softmax", "softplus", "standardize", "swish"),
    "tanh",
)
_CANONICAL.update(
    (f"flax.{api}.{name}", f"jax.nn.{name}")
    for api in ("linen", "nnx")
    for name in _FLAX_ACTIVATIONS
)
_BUILTINS = frozenset(dir(builtins))
# Answers of `canonical`, by spelling: a module's spellings are few and asked again and again.
_CANONICAL_MEMO: dict[str, str] = {}
_UNANSWERED = object()  # no answer yet (None is an answer)


def canonical(qualname: str) -> str:
    hit = _CANONICAL_MEMO.get(qualname)
    if hit is None:
        if len(_CANONICAL_MEMO) > 100_000:  # bounded: long-running servers see many spellings
            _CANONICAL_MEMO.clear()
        hit = _CANONICAL_MEMO[qualname] = _canonical(qualname)
    return hit


def _canonical(qualname: str) -> str:
    hit = _CANONICAL.get(qualname)
    if hit:
        return hit
    head, _, tail = qualname.rpartition(".")
    while head:
        mapped = _CANONICAL.get(head)
        if mapped:
            return f"{mapped}.{tail}" if tail else mapped
        head, _, rest = head.rpartition(".")
        tail = f"{rest}.{tail}" if tail else rest
    return qualname


def import_bindings(statements: Iterable[ast.stmt]) -> dict[str, str]:
    """Local name -> qualified name for the import statements among `statements`."""
    bindings: dict[str, str] = {}
    for statement in statements:
        if isinstance(statement, ast.Import):
            for alias in statement.names:
                if alias.asname:
                    bindings[alias.asname] = alias.name
                else:
                    top = alias.name.split(".")[0]
                    bindings[top] = top
        elif isinstance(statement, ast.ImportFrom) and statement.module and not statement.level:
            for alias in statement.names:
                if alias.name != "*":
                    bindings[alias.asname or alias.name] = f"{statement.module}.{alias.name}"
    return bindings


class Resolver:
    """Resolves expressions such as `jnp.zeros` to qualified names, within one scope."""

    def __init__(self, bindings: Mapping[str, str], shadowed: frozenset[str] = frozenset()):
        self._bindings = bindings
        self._shadowed = shadowed  # names assigned locally, hiding an import or builtin
        # Answers by node: several rules ask about the same call in the same scope.
        self._answers: dict[ast.AST, str | None] = {}
        self._bound_under: dict[str, frozenset[str]] = {}

    def child(self, local_bindings: Mapping[str, str], local_names: frozenset[str]) -> Resolver:
        if (
            not local_bindings
            and local_names.isdisjoint(self._bindings)
            and (local_names.isdisjoint(_BUILTINS) or local_names <= self._shadowed)
        ):
            return self  # nothing resolves differently: share this scope's answers
        merged = {k: v for k, v in self._bindings.items() if k not in local_names}
        merged.update(local_bindings)
        return Resolver(merged, (self._shadowed | local_names) - frozenset(local_bindings))

    def qualname(self, node: ast.AST) -> str | None:
        # Not try/except KeyError: every node of an edited unit is a miss, and a raised
        # KeyError costs twenty lookups.
        answer = self._answers.get(node, _UNANSWERED)
        if answer is _UNANSWERED:
            answer = self._answers[node] = self._qualname(node)
        return answer

    def _qualname(self, node: ast.AST) -> str | None:
        if isinstance(node, ast.Name):
            if node.id in self._bindings:
                return canonical(self._bindings[node.id])
            if node.id in _BUILTINS and node.id not in self._shadowed:
                return f"builtins.{node.id}"
            return None
        if isinstance(node, ast.Attribute):
            base = self.qualname(node.value)
            return canonical(f"{base}.{node.attr}") if base else None
        return None

    def alias_of(self, qualname: str) -> str | None:
        """How this scope spells `qualname` ("jnp" for jax.numpy after `import jax.numpy as
        jnp`, "jax.numpy" after `import jax`), or None when nothing imported reaches it."""
        best: str | None = None
        for name, bound in self._bindings.items():
            if name in self._shadowed:
                continue
            if bound == qualname:
                return name
            if qualname.startswith(bound + ".") and best is None:
                best = name + qualname[len(bound) :]
        return best

    def bindings_items(self) -> Iterable[tuple[str, str]]:
        """(local name, qualified name) of every import in scope."""
        return self._bindings.items()

    def names_bound_under(self, prefix: str) -> frozenset[str]:
        """Local names bound to `prefix` or to something inside it."""
        names = self._bound_under.get(prefix)
        if names is None:
            inside = prefix + "."
            names = self._bound_under[prefix] = frozenset(
                name
                for name, value in self._bindings.items()
                if value == prefix or value.startswith(inside)
            )
        return names

    def binds_module(self, prefix: str) -> bool:
        """Does any import bring in `prefix` or something inside it?"""
        return bool(self.names_bound_under(prefix))


# A function's own imports, kept on its node: several layers ask on every analysis, trees are
# immutable once parsed, and the summary walk records them while it passes by.
_LOCAL_IMPORTS = "_jax_lsp_local_imports"
_NO_IMPORTS: dict[str, str] = {}  # shared by the many functions without imports (never mutated)


def local_imports(node: ast.AST) -> dict[str, str]:
    """Imports written in a function's own body (not in nested functions or classes)."""
    if isinstance(node, ast.Lambda):
        return _NO_IMPORTS
    found = node.__dict__.get(_LOCAL_IMPORTS)
    if found is None:
        found = record_local_imports(node, _own_import_statements(node))
    return found


def record_local_imports(node: ast.AST, statements: list[ast.stmt]) -> dict[str, str]:
    """Keep a function's own import statements (in source order) on its node. Where two bind
    one name, the first wins."""
    found = import_bindings(reversed(statements)) if statements else _NO_IMPORTS
    node.__dict__[_LOCAL_IMPORTS] = found
    return found


def _own_import_statements(node: ast.AST) -> list[ast.stmt]:
    """A function's own import statements in source order, for trees the summary walk has not
    seen."""
    statements: list[ast.stmt] = []
    pending = list(reversed(node.body))
    while pending:
        statement = pending.pop()
        if isinstance(statement, ast.Import | ast.ImportFrom):
            statements.append(statement)
        elif not isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            # Only compound statements hold statements: in their blocks, handlers and cases.
            blocks: list[ast.stmt] = []
            for field in _BLOCK_FIELDS:
                for child in getattr(statement, field, ()):
                    if isinstance(child, ast.stmt):
                        blocks.append(child)
                    else:  # an except handler or a match case: statements in its body
                        blocks.extend(child.body)
            pending.extend(reversed(blocks))
    return statements


_BLOCK_FIELDS = ("body", "handlers", "orelse", "finalbody", "cases")

"""JAX names the project's JAX release removed (JAX1101) or deprecates (JAX1102).

Which release: the `target-jax-version` setting, else the lowest the project's requirement on
`jax` allows (`config.declared_jax_version`), else the installed JAX's metadata, else the
newest the table knows (`analysis/api_changes.py`, the data both rules read). Code that guards
the name itself is left alone: an import or attribute inside `try:` with a handler for
`ImportError`/`AttributeError` (or any exception) or inside that handler, a branch on
`hasattr(...)` or on a version, an annotation the module never evaluates (`from __future__
import annotations`), and an assignment to the name (a compatibility shim).
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator
from typing import ClassVar

from jax_lsp.analysis.api_changes import (
    BY_NAME,
    LAST_PARTS,
    ApiChange,
    jax_release,
    row_for,
    status,
)
from jax_lsp.codeactions.api_changes import (
    at_update_fix,
    attribute_fix,
    import_fix,
    import_from_fix,
    import_module_fix,
)
from jax_lsp.compat import TRY_STATEMENTS
from jax_lsp.diagnostics.base import Example, Rule, RuleContext, RuleSettings
from jax_lsp.findings import Applicability, Finding, Fix, Severity

# Handlers under which a missing name is expected: the code guards it.
_GUARDING_ERRORS = frozenset(
    {"ImportError", "ModuleNotFoundError", "AttributeError", "Exception", "BaseException"}
)


class _ApiChangeRule(Rule):
    """What JAX1101 and JAX1102 share: finding the table's names, the target release."""

    # "removed" or "deprecated": which of the table's statuses this rule reports.
    reported: ClassVar[str]
    # `target-jax-version`, None for the installed JAX's release: that one is read only when a
    # name of the table is met (its metadata costs an import at start-up).
    target_setting: ClassVar[str | None] = None
    node_types = (ast.Attribute, ast.ImportFrom, ast.Import)
    attribute_names = LAST_PARTS  # the last part of each name of the table
    _variants: ClassVar[dict[tuple[type, str], type[Rule]]] = {}

    @classmethod
    def configured(cls, settings: RuleSettings) -> type[Rule]:
        setting = settings.target_jax_version
        if setting == cls.target_setting:
            return cls
        key = (cls, setting)
        variant = _ApiChangeRule._variants.get(key)
        if variant is None:
            variant = type(cls.__name__, (cls,), {"target_setting": setting})
            variant.__module__ = cls.__module__
            _ApiChangeRule._variants[key] = variant
        return variant

    def check(self, node: ast.AST, ctx: RuleContext) -> Iterable[Finding]:
        # Not a generator: an attribute of another name or not read (without the walker's
        # `attribute_names`, most attributes) leaves here without the cost of making one.
        if isinstance(node, ast.Attribute):
            if node.attr not in LAST_PARTS or not isinstance(node.ctx, ast.Load):
                return ()
            return self._attribute(node, ctx)
        if isinstance(node, ast.ImportFrom):
            return self._import_from(node, ctx)
        if isinstance(node, ast.Import):
            return self._import(node, ctx)
        return ()

    # -- where the names are --------------------------------------------------------------
    def _attribute(self, node: ast.Attribute, ctx: RuleContext) -> Iterator[Finding]:
        if node.attr not in LAST_PARTS or not isinstance(node.ctx, ast.Load):
            return
        dotted = _dotted(node, ctx)
        row = _exact_row(dotted)
        if row is None or not self._reports(row):
            return
        parent = ctx.parent
        # A more specific row on the enclosing attribute reports instead
        # (`jax.experimental.maps.Mesh` rather than `jax.experimental.maps`).
        if isinstance(parent, ast.Attribute) and _exact_row(_dotted(parent, ctx)) is not None:
            return
        if _guarded(node, ctx) or _unevaluated_annotation(node, ctx):
            return
        fix: Fix | None
        if row.at_method is not None:
            called = isinstance(parent, ast.Call) and parent.func is node
            fix = at_update_fix(parent, row, ctx) if called else None  # type: ignore[arg-type]
        else:
            fix = attribute_fix(node, row, ctx)
        yield ctx.finding(self, node, self._message(row, "AttributeError"), fix=fix)

    def _import_from(self, node: ast.ImportFrom, ctx: RuleContext) -> Iterator[Finding]:
        if node.level or not node.module or not node.module.startswith("jax"):
            return
        module_row = row_for(node.module)
        if module_row is not None:  # the module itself is gone: one finding for the line
            if self._reports(module_row) and not _guarded(node, ctx):
                fix = import_module_fix(node, module_row, ctx)
                message = self._message(module_row, "ModuleNotFoundError")
                yield ctx.finding(self, node, message, fix=fix)
            return
        for alias in node.names:
            row = _exact_row(f"{node.module}.{alias.name}")
            if row is None or not self._reports(row) or _guarded(node, ctx):
                continue
            fix = import_from_fix(node, alias, row, ctx)
            yield ctx.finding(self, alias, self._message(row, "ImportError"), fix=fix)

    def _import(self, node: ast.Import, ctx: RuleContext) -> Iterator[Finding]:
        for alias in node.names:
            if not alias.name.startswith("jax."):
                continue
            row = row_for(alias.name)
            if row is None or not self._reports(row) or _guarded(node, ctx):
                continue
            fix = import_fix(alias, row, ctx)
            yield ctx.finding(self, alias, self._message(row, "ModuleNotFoundError"), fix=fix)

    # -- what to say ----------------------------------------------------------------------
    @property
    def target_version(self) -> tuple[int, ...]:
        return jax_release(self.target_setting)

    def _reports(self, row: ApiChange) -> bool:
        return status(row, self.target_version) == self.reported

    def _message(self, row: ApiChange, error: str) -> str:
        version = ".".join(str(part) for part in self.target_version)
        instead = row.use_instead
        if self.reported == "removed" and row.never_public:
            text = (
                f"`{row.name}` is no JAX name (no release since 0.3 defines it; checked "
                f"against JAX {version}): {error} when this line runs"
            )
        elif self.reported == "removed":
            text = (
                f"`{row.name}` was removed in JAX {row.removed} (checked against JAX {version}; "
                f"`target-jax-version` sets another): "
                f"{error} when this line runs"
            )
        else:
            text = (
                f"`{row.name}` is deprecated since JAX {row.deprecated} and warns "
                f"(DeprecationWarning); a later release removes it"
            )
        return f"{text}. Instead, use {instead}" if instead else f"{text}."


class RemovedJaxApi(_ApiChangeRule):
    code = "JAX1101"
    fix_applicabilities = frozenset({Applicability.SAFE, Applicability.UNSAFE})
    fix_in_some_cases_only = True
    name = "removed-jax-api"
    summary = "A JAX name the project's JAX release has removed"
    severity = Severity.ERROR
    reported = "removed"
    what_it_does = """
        Flags uses and imports of names that the JAX release the project uses no longer has:
        `jax.tree_map` and the other top-level `jax.tree_*` aliases, `jax.ops.index_update`
        and its siblings, `jax.experimental.optimizers`/`stax` (now `jax.example_libraries`),
        `jax.xla_computation`, `jax.experimental.host_callback`, `jnp.DeviceArray`,
        `jax.random.KeyArray`, `jnp.product`, `jnp.in1d`, `jnp.trapz`, `jax.experimental.maps`
        (`xmap`), internals of `jax.core`, and more: a table of every name removed from JAX
        0.4.0 on (and the commonest earlier ones), each with the release that removed it and
        its replacement. Aliases are resolved (`import jax.numpy as np`, `from jax import
        tree_map`). The release is the `target-jax-version` setting, else the lowest the
        project's requirement on `jax` allows (pyproject's `dependencies`, `requirements.txt`),
        else the installed JAX's (from its metadata), else the newest known. Code that guards
        the name is not flagged: inside `try:` with an `ImportError`/`AttributeError` handler,
        under `if hasattr(...)` or a version test, an annotation the module never evaluates.
    """
    why_bad = """
        The line fails when it runs: `AttributeError: module 'jax' has no attribute
        'tree_map'`, or `ImportError` at the import. The message names what is missing, not
        what to write instead, and code copied from tutorials and answers written for older
        JAX is full of these names.
    """
    fix_safety = """
        Safe where the replacement computes the same (`jax.tree_map` -> `jax.tree.map`,
        `jnp.product` -> `jnp.prod`, `jax.ops.index_update(x, i, v)` -> `x.at[i].set(v)`,
        `from jax.experimental import optimizers` -> `from jax.example_libraries import
        optimizers`, `jnp.DeviceArray` -> `jax.Array`): the new name is written through the
        module's own import of its module, and an import keeps its local name (`from jax
        import tree_map` -> `from jax.tree import map as tree_map`). Unsafe where the
        replacement differs (`jnp.in1d` -> `jnp.isin` keeps the input's shape where `in1d`
        flattened). No fix where the replacement is another API (`host_callback.id_tap` ->
        `jax.debug.callback`, `xla_computation` -> `jax.jit(f).lower(...)`): the message
        names it.
    """
    invalid = (
        Example(
            """
            import jax
            import jax.numpy as jnp

            params = {"w": jnp.ones(2), "b": jnp.zeros(2)}
            doubled = jax.tree_map(lambda p: 2 * p, params)  # error
            """,
            raises="AttributeError",
            fixed="""
            import jax
            import jax.numpy as jnp

            params = {"w": jnp.ones(2), "b": jnp.zeros(2)}
            doubled = jax.tree.map(lambda p: 2 * p, params)
            """,
            fixed_check="assert float(doubled['w'][0]) == 2.0",
        ),
        Example(
            """
            import jax
            import jax.numpy as jnp

            x = jnp.zeros(4)
            y = jax.ops.index_update(x, 1, 5.0)  # error
            """,
            raises="AttributeError",
            fixed="""
            import jax
            import jax.numpy as jnp

            x = jnp.zeros(4)
            y = x.at[1].set(5.0)
            """,
            fixed_check="assert y.tolist() == [0.0, 5.0, 0.0, 0.0]",
        ),
        Example(
            """
            import jax.numpy as np

            total = np.product(np.arange(1, 5))  # error
            """,
            raises="AttributeError",
            fixed="""
            import jax.numpy as np

            total = np.prod(np.arange(1, 5))
            """,
            fixed_check="assert int(total) == 24",
        ),
        Example(
            """
            from jax.experimental import optimizers  # error

            init, update, get_params = optimizers.sgd(0.1)
            """,
            raises="ImportError",
            fixed="""
            from jax.example_libraries import optimizers

            init, update, get_params = optimizers.sgd(0.1)
            """,
        ),
        Example(
            """
            from jax import tree_map  # error

            sizes = tree_map(len, {"a": [1, 2], "b": [3]})
            """,
            raises="ImportError",
        ),
        Example(
            """
            import jax.numpy as jnp
            from jax.experimental import host_callback as hcb  # error

            def f(x):
                return hcb.id_tap(lambda v, _: print(v), x)
            """,
            raises="ImportError",
        ),
    )
    valid = (
        Example(
            """
            import jax
            import jax.numpy as jnp

            params = {"w": jnp.ones(2), "b": jnp.zeros(2)}
            doubled = jax.tree.map(lambda p: 2 * p, params)
            y = jnp.zeros(4).at[1].set(5.0)
            total = jnp.prod(jnp.arange(1, 5))
            """,
            check="assert int(total) == 24 and float(y[1]) == 5.0",
        ),
        Example(
            """
            import jax
            import numpy as np

            try:
                from jax.experimental import host_callback  # older JAX
            except ImportError:
                host_callback = None

            if hasattr(jax, "tree_map"):
                tree_map = jax.tree_map
            else:
                tree_map = jax.tree.map
            total = np.prod(np.arange(1, 5))  # NumPy's own

            def is_key(x):
                return hasattr(jax.random, "PRNGKeyArray") and isinstance(
                    x, jax.random.PRNGKeyArray  # read only where it exists
                )
            """,
            check=(
                "assert host_callback is None and tree_map is jax.tree.map"
                " and not is_key(jax.random.key(0))"
            ),
        ),
    )


class DeprecatedJaxApi(_ApiChangeRule):
    code = "JAX1102"
    fix_applicabilities = frozenset({Applicability.SAFE, Applicability.UNSAFE})
    fix_in_some_cases_only = True
    name = "deprecated-jax-api"
    summary = "A JAX name the project's JAX release deprecates"
    severity = Severity.WARNING
    reported = "deprecated"
    what_it_does = """
        Flags uses and imports of names that the JAX release the project uses still has but
        deprecates (`jax.experimental.pjit.pjit`, `jax.experimental.shard_map.shard_map`,
        `jax.scipy.special.lpmn`, deprecated `jax.core` internals, ...), from the same table
        and with the same release and guards as JAX1101. Under an older target release, the
        names JAX1101 reports for today's JAX are reported here while that release still has
        them (`jax.tree_map` under `target-jax-version = "0.4.30"`).
    """
    why_bad = """
        Each access warns (`DeprecationWarning`), and a later release removes the name: the
        upgrade then fails with an `AttributeError` or `ImportError`.
    """
    fix_safety = """
        As JAX1101: safe where the replacement computes the same
        (`jax.core.DropVar` -> `jax.extend.core.DropVar`), unsafe where its arguments differ
        (`pjit` -> `jax.jit`, `jax.experimental.shard_map.shard_map` -> `jax.shard_map`).
    """
    invalid = (
        Example(
            """
            import jax
            import jax.experimental.pjit

            f = jax.experimental.pjit.pjit(lambda x: x + 1)  # error
            """,
            # JAX warns at the first access only; its registry of deprecations says it.
            check="assert 'pjit' in jax.experimental.pjit._deprecations",
        ),
    )
    valid = (
        Example(
            """
            import jax

            f = jax.jit(lambda x: x + 1)
            """,
            check="assert int(f(1)) == 2",
        ),
    )


def _dotted(node: ast.Attribute, ctx: RuleContext) -> str | None:
    """`a.b.c` as the module's imports spell it out, without canonical renames (the table
    names `jax.ad_checkpoint.checkpoint`, which resolution reads as `jax.checkpoint`)."""
    parts = []
    base: ast.expr = node
    while isinstance(base, ast.Attribute):
        parts.append(base.attr)
        base = base.value
    if not isinstance(base, ast.Name):
        return None
    root = ctx.qualname(base)
    if root is None or not root.startswith("jax"):
        return None
    return ".".join([root, *reversed(parts)])


def _exact_row(dotted: str | None) -> ApiChange | None:
    return BY_NAME.get(dotted) if dotted else None


def _guarded(node: ast.AST, ctx: RuleContext) -> bool:
    """Inside `try:` with a handler for a missing name, or in such a handler (the fallback
    for older releases), or a branch testing `hasattr(...)` or a version: the code expects
    the name to be missing in some release."""
    ancestors = ctx.ancestors
    for index, ancestor in enumerate(ancestors):
        child = ancestors[index + 1] if index + 1 < len(ancestors) else node
        if isinstance(ancestor, TRY_STATEMENTS) and child in ancestor.body:
            if any(_catches_missing(handler) for handler in ancestor.handlers):
                return True
        elif isinstance(ancestor, ast.ExceptHandler) and _catches_missing(ancestor):
            return True  # the fallback for a release where the new name is missing
        elif (
            isinstance(ancestor, ast.If | ast.IfExp)
            and child is not ancestor.test
            and _tests_availability(ancestor.test)
        ):
            return True
        elif (
            isinstance(ancestor, ast.BoolOp)
            and child in ancestor.values
            and any(
                _lets_through(earlier, ancestor.op)
                for earlier in ancestor.values[: ancestor.values.index(child)]
            )
        ):
            return True  # `hasattr(jax, "x") and jax.x(...)`: read only where it exists
    return False


def _lets_through(operand: ast.expr, op: ast.boolop) -> bool:
    """An operand of `and` testing availability (`hasattr(...)`, a version), or one of `or`
    testing unavailability (`not hasattr(...)`): the operands after it run only when it
    lets them."""
    if isinstance(op, ast.Or):
        return (
            isinstance(operand, ast.UnaryOp)
            and isinstance(operand.op, ast.Not)
            and _tests_availability(operand.operand)
        )
    return _tests_availability(operand)


def _catches_missing(handler: ast.ExceptHandler) -> bool:
    if handler.type is None:
        return True
    types = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    for caught in types:
        name = caught.attr if isinstance(caught, ast.Attribute) else getattr(caught, "id", None)
        if name in _GUARDING_ERRORS:
            return True
    return False


def _tests_availability(test: ast.expr) -> bool:
    """`hasattr(jax, "tree_map")`, `jax.__version__ >= ...`, `version.parse(...) < ...`."""
    for node in ast.walk(test):
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "hasattr":
            return True
        name = node.attr if isinstance(node, ast.Attribute) else getattr(node, "id", None)
        if isinstance(name, str) and "version" in name.lower():
            return True
    return False


def _unevaluated_annotation(node: ast.AST, ctx: RuleContext) -> bool:
    """An annotation under `from __future__ import annotations`, never evaluated."""
    if ctx.model.import_bindings.get("annotations") != "__future__.annotations":
        return False
    ancestors = ctx.ancestors
    for index, ancestor in enumerate(ancestors):
        child = ancestors[index + 1] if index + 1 < len(ancestors) else node
        if isinstance(ancestor, ast.arg):
            return True
        if isinstance(ancestor, ast.AnnAssign) and child is ancestor.annotation:
            return True
        if isinstance(ancestor, ast.FunctionDef | ast.AsyncFunctionDef):
            # The walker visits a definition's annotations with the definition as parent.
            arguments = ancestor.args
            parameters = [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]
            parameters += [arguments.vararg, arguments.kwarg]
            annotations = [p.annotation for p in parameters if p is not None]
            if child is ancestor.returns or any(child is a for a in annotations):
                return True
    return False


RULES = [RemovedJaxApi, DeprecatedJaxApi]

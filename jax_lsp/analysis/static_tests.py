"""Branch tests decided without running anything: a literal (`if False:`), and the name of a
module an `import` statement binds. Code written for two array libraries picks one by that
name (`if "jax" in np.__name__:` after `import numpy as np`), and the branch for the library
not imported never runs: no transformation it applies traces anything."""

from __future__ import annotations

import ast
from collections.abc import Callable

from jax_lsp.analysis.imports import Resolver


def constant_test(test: ast.expr) -> bool | None:
    """The truth of a literal test (`if False:`, `x if 0 else y`: code switched off by
    hand), else None."""
    if isinstance(test, ast.Constant) and isinstance(test.value, bool | int | str | None):
        return bool(test.value)
    return None


def decided_test(test: ast.expr, resolver: Resolver, hidden: Callable[[str], bool]) -> bool | None:
    """The truth of a test known without running anything: a literal, or the name of an
    imported module (`module_name_test`); None for any other."""
    found = constant_test(test)
    return found if found is not None else module_name_test(test, resolver, hidden)


def module_name_test(
    test: ast.expr, resolver: Resolver, hidden: Callable[[str], bool]
) -> bool | None:
    """The truth of `test` when it only asks the name of an imported module (`"jax" in
    np.__name__`, `np.__name__ == "numpy"`, `np.__name__.startswith("jax")`, their `not`),
    else None. `hidden(name)`: the name is bound where the test runs (a parameter, a local),
    so it need not be the module."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        inner = module_name_test(test.operand, resolver, hidden)
        return None if inner is None else not inner
    if isinstance(test, ast.Compare) and len(test.ops) == 1:
        left, op, right = test.left, test.ops[0], test.comparators[0]
        if isinstance(op, ast.In | ast.NotIn):
            part, name = _text(left), _module_name(right, resolver, hidden)
            if part is None or name is None:
                return None
            return (part in name) == isinstance(op, ast.In)
        if isinstance(op, ast.Eq | ast.NotEq):
            name = _module_name(left, resolver, hidden) or _module_name(right, resolver, hidden)
            text = _text(right) if _text(left) is None else _text(left)
            if name is None or text is None:
                return None
            return (name == text) == isinstance(op, ast.Eq)
        return None
    if (
        isinstance(test, ast.Call)
        and isinstance(test.func, ast.Attribute)
        and test.func.attr in ("startswith", "endswith")
        and len(test.args) == 1
        and not test.keywords
    ):
        name, text = _module_name(test.func.value, resolver, hidden), _text(test.args[0])
        if name is None or text is None:
            return None
        return name.startswith(text) if test.func.attr == "startswith" else name.endswith(text)
    return None


def _text(node: ast.expr) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def _module_name(node: ast.expr, resolver: Resolver, hidden: Callable[[str], bool]) -> str | None:
    """`M.__name__` of a name bound by `import M` or `import M as name`: the module's name.
    Only an undotted qualified name is sure to be a module: `from a import b` may bind
    anything, and its qualified name `a.b` reads the same as `import a.b as b`'s."""
    if not (
        isinstance(node, ast.Attribute)
        and node.attr == "__name__"
        and isinstance(node.value, ast.Name)
        and not hidden(node.value.id)
    ):
        return None
    qualname = resolver.qualname(node.value)
    if qualname is None or "." in qualname:
        return None
    return qualname

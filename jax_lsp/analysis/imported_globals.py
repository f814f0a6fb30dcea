"""Module-level values of other modules that a module reads or changes, by their qualified
name (`settings.SCALE`): through a module alias (`import settings`, then `settings.SCALE`) or a
name imported from it (`from settings import OPTIONS`). A module that calls a jitted function
of another module and then changes a value that function read while it was traced gives the
function's module the names it changes (`IncomingTrace.globals_changed`): the compiled
function keeps the old value.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable

from jax_lsp.analysis.workspace import absolute_module, package_of

# A line that may store into a value of another module: `settings.SCALE = 3.0`,
# `OPTIONS["scale"] = 3.0` (not `self.attr = ...`, a method storing on its object); the
# name it stores through. Both patterns start at the newline before a line (the text is
# searched with one put before its first line), not at `^` in multiline mode: a literal first
# character is skipped to, where `^` is tried at every character. Possessive: no part gives
# back what it took, as none could let the rest match (three times faster).
_STORE_THROUGH = re.compile(
    r"\n[ \t]*+(?!self\b)([A-Za-z_]\w*+)(?:\.\w++|\[[^\]\n]*+\])++[ \t]*+(?:[-+*/]?=)(?!=)"
)
_IMPORT_LINE = re.compile(r"\n[ \t]*+(?:from[ \t]++\S++[ \t]++)?import[ \t].*")


def may_store_elsewhere(text: str) -> bool:
    """Can code with this text store into a value of another module: a store through a name
    (`settings.SCALE = ...`, `OPTIONS[k] = ...`) that an import line of the text names."""
    lines = "\n" + text
    roots = {match.group(1) for match in _STORE_THROUGH.finditer(lines)}
    if not roots:
        return False
    imported = {word for line in _IMPORT_LINE.findall(lines) for word in re.findall(r"\w+", line)}
    return not roots.isdisjoint(imported)


class ImportedNames:
    """The module's top-level imports: module aliases (local -> module) and names imported
    from modules (local -> `module.name`), relative imports resolved against its package."""

    def __init__(self, statements: Iterable[ast.stmt], path: str | None) -> None:
        self.modules: dict[str, str] = {}
        self.names: dict[str, str] = {}
        package = None
        for statement in statements:
            if isinstance(statement, ast.Import):
                for alias in statement.names:
                    if alias.asname:
                        self.modules[alias.asname] = alias.name
                    elif "." not in alias.name:
                        self.modules[alias.name] = alias.name
            elif isinstance(statement, ast.ImportFrom):
                if statement.level and package is None:
                    package = package_of(path)
                module = absolute_module(statement.module, statement.level, package)
                if module is None:
                    continue
                for alias in statement.names:
                    if alias.name != "*":
                        self.names[alias.asname or alias.name] = f"{module}.{alias.name}"

    def qualified(self, node: ast.expr) -> str | None:
        """The qualified name of another module's value `node` spells (`settings.SCALE`, an
        imported `OPTIONS`), or None."""
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            module = self.modules.get(node.value.id)
            return f"{module}.{node.attr}" if module is not None else None
        if isinstance(node, ast.Name):
            return self.names.get(node.id)
        return None

    def changed(self, statement: ast.stmt) -> frozenset[str]:
        """The values of other modules the statement stores into (rebinds an attribute of a
        module alias, or sets an item or attribute of one or of an imported name)."""
        if isinstance(statement, ast.Assign):
            targets = statement.targets
        elif isinstance(statement, ast.AugAssign | ast.AnnAssign):
            targets = [statement.target]
        else:
            return frozenset()
        found = set()
        for target in targets:
            node = target
            # `settings.OPTIONS["scale"]`, `OPTIONS["scale"]`: the value whose item is set.
            while isinstance(node, ast.Subscript | ast.Attribute):
                qualified = self.qualified(node)
                if qualified is not None:
                    found.add(qualified)
                    break
                node = node.value
            else:
                if node is not target and (qualified := self.qualified(node)) is not None:
                    found.add(qualified)
        return frozenset(found)


def changed_after(body: list[ast.stmt], call_line: int, imported: ImportedNames) -> frozenset[str]:
    """The values of other modules the statements of `body` after line `call_line` store
    into (nested blocks included, nested functions and classes not)."""
    found: set[str] = set()
    stack = [s for s in body if s.lineno > call_line or _spans(s, call_line)]
    while stack:
        statement = stack.pop()
        if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            continue
        if statement.lineno > call_line:
            found |= imported.changed(statement)
        for block in ("body", "orelse", "finalbody"):
            stack.extend(getattr(statement, block, None) or [])
        for handler in getattr(statement, "handlers", ()):
            stack.extend(handler.body)
    return frozenset(found)


def _spans(statement: ast.stmt, line: int) -> bool:
    return statement.lineno <= line <= (statement.end_lineno or statement.lineno)

"""What every codemod needs from the module text, without parsing the whole module again.

The module is read through `Document` (top-level units, each parsed with `ast` once and cached by
text), so locating a node and the module's imports costs little even for a 2,000-line file; libcst
then runs only on the snippet a codemod rewrites.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass, field

from jax_lsp.analysis.document import Document, Unit
from jax_lsp.analysis.header import import_blank_lines, import_insertion_line
from jax_lsp.analysis.imports import Resolver, canonical, import_bindings
from jax_lsp.codeactions.site import header_insertion
from jax_lsp.findings import Edit, Span
from jax_lsp.text import byte_col_to_char

# Import statement added when a module lacks a binding for one of these.
_DEFAULT_IMPORTS = {
    "jax": ("jax", "import jax"),
    "jax.numpy": ("jnp", "import jax.numpy as jnp"),
    "functools": ("functools", "import functools"),
}


@dataclass
class ModuleSource:
    """A module's text with its units, import bindings and the imports a fix must add."""

    text: str
    document: Document = field(init=False)
    bindings: dict[str, str] = field(init=False)
    _added: list[str] = field(init=False, default_factory=list)

    def __post_init__(self) -> None:
        self.document = Document(self.text)
        statements = [s for unit in self.document.units if unit.tree for s in unit.tree.body]
        self.bindings = import_bindings(statements)

    def fork(self) -> ModuleSource:
        """The same module with no imports requested yet (one per fix)."""
        twin = object.__new__(ModuleSource)
        twin.text, twin.document, twin.bindings = self.text, self.document, dict(self.bindings)
        twin._added = []
        return twin

    @property
    def lines(self) -> list[str]:
        return self.document.lines

    @property
    def resolver(self) -> Resolver:
        return Resolver(self.bindings)

    def unit_at(self, line: int) -> Unit | None:
        for unit in self.document.units:
            if unit.start_line <= line < unit.start_line + unit.source.line_count:
                return unit
        return None

    def nodes_at(self, line: int) -> Iterator[tuple[ast.AST, list[ast.AST], int]]:
        """(node, ancestors, unit start line) for the nodes of the unit holding `line`."""
        unit = self.unit_at(line)
        if unit is None or unit.tree is None:
            return
        stack: list[tuple[ast.AST, list[ast.AST]]] = [(unit.tree, [])]
        while stack:
            node, ancestors = stack.pop()
            yield node, ancestors, unit.start_line
            stack.extend((child, [*ancestors, node]) for child in ast.iter_child_nodes(node))

    # Positions -------------------------------------------------------------------------------

    def start(self, node: ast.AST, offset: int) -> tuple[int, int]:
        line = node.lineno - 1 + offset
        return line, byte_col_to_char(self.lines[line], node.col_offset)

    def end(self, node: ast.AST, offset: int) -> tuple[int, int]:
        line = node.end_lineno - 1 + offset
        return line, byte_col_to_char(self.lines[line], node.end_col_offset)

    def in_unit(self, offset: int) -> UnitText:
        """The unit starting at line `offset`, whose nodes fixes locate (`Located`)."""
        return UnitText(self, offset)

    def segment(self, start: tuple[int, int], end: tuple[int, int]) -> str:
        (line, col), (end_line, end_col) = start, end
        if line == end_line:
            return self.lines[line][col:end_col]
        middle = self.lines[line + 1 : end_line]
        return "\n".join([self.lines[line][col:], *middle, self.lines[end_line][:end_col]])

    # Imports -----------------------------------------------------------------------------------

    def alias(self, qualname: str) -> str:
        """The module's spelling of `qualname` ("jnp" for jax.numpy), adding an import if none."""
        parts = qualname.split(".")
        for cut in range(len(parts), 0, -1):
            head, tail = ".".join(parts[:cut]), parts[cut:]
            for local, bound in self.bindings.items():
                if canonical(bound) == head:
                    return ".".join([local, *tail])
        module = qualname if qualname in _DEFAULT_IMPORTS else parts[0]
        name, statement = _DEFAULT_IMPORTS[module]
        if statement not in self._added:
            self._added.append(statement)
        self.bindings[name] = module
        return self.alias(qualname)

    def import_edit(self) -> Edit | None:
        """One edit adding every import `alias` asked for, at the module's import line."""
        if not self._added:
            return None
        block = "".join(f"{statement}\n" for statement in self._added)
        line = import_insertion_line(self.document)
        return header_insertion(self.lines, line, block, import_blank_lines(self.document, line))

    def with_imports(self, edits: list[Edit]) -> tuple[Edit, ...]:
        """`edits` plus the import edit, merged with an insertion at the same place (so the
        imports come first whatever order a client applies same-position insertions in)."""
        import_edit = self.import_edit()
        if import_edit is None:
            return tuple(edits)
        for index, other in enumerate(edits):
            if other.span.start == other.span.end == import_edit.span.start:
                merged = Edit(other.span, import_edit.content + other.content)
                return (*edits[:index], merged, *edits[index + 1 :])
        return (import_edit, *edits)


@dataclass(frozen=True)
class UnitText:
    """One unit of a module as `Located`: its nodes' document spans and source text."""

    module: ModuleSource
    offset: int  # the unit's first line

    def span(self, node: ast.AST) -> Span:
        return Span.of(*self.module.start(node, self.offset), *self.module.end(node, self.offset))

    def segment(self, node: ast.AST) -> str:
        return self.module.segment(
            self.module.start(node, self.offset), self.module.end(node, self.offset)
        )


def edit(start: tuple[int, int], end: tuple[int, int], content: str) -> Edit:
    return Edit(Span.of(*start, *end), content)


def minimal_edit(start: tuple[int, int], old: str, new: str) -> Edit:
    """The edit turning `old` (which begins at `start`) into `new`, trimmed to what differs."""
    prefix = 0
    limit = min(len(old), len(new))
    while prefix < limit and old[prefix] == new[prefix]:
        prefix += 1
    suffix = 0
    while suffix < limit - prefix and old[-1 - suffix] == new[-1 - suffix]:
        suffix += 1
    return edit(
        _advance(start, old[:prefix]),
        _advance(start, old[: len(old) - suffix]),
        new[prefix : len(new) - suffix],
    )


def _advance(start: tuple[int, int], text: str) -> tuple[int, int]:
    """The position reached after `text`, written from `start`."""
    newlines = text.count("\n")
    if not newlines:
        return start[0], start[1] + len(text)
    return start[0] + newlines, len(text) - text.rfind("\n") - 1

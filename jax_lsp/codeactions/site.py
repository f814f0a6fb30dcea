"""What a fix reads about the place it rewrites: protocols, so that fixes depend on analysis and
findings only. A rule's `RuleContext` is a `FixSite`; a codemod's view of a module unit
(`ModuleSource.unit`) is `Located`. And the two edits most fixes write: a node's text replaced
(`node_edit`), a statement added at the module's import line (`import_line_edit`, through
`header_insertion`, which every edit adding to the header uses)."""

from __future__ import annotations

import ast
from dataclasses import replace
from typing import TYPE_CHECKING, Protocol

from jax_lsp.analysis.kinds import Kind
from jax_lsp.findings import Edit, Span

if TYPE_CHECKING:
    from jax_lsp.analysis.imports import Resolver
    from jax_lsp.analysis.model import ModuleModel
    from jax_lsp.analysis.traced import TraceInfo


class Located(Protocol):
    """Where nodes are and what they say."""

    def span(self, node: ast.AST) -> Span: ...

    def segment(self, node: ast.AST) -> str: ...


class FixSite(Located, Protocol):
    """The node a rule's walk stands on, with the facts a fix built there reads. Spans are
    relative to the node's top-level statement (its unit); `lines` are the unit's lines."""

    model: ModuleModel
    lines: list[str]
    unit_start: int  # the unit's first line in the document
    ancestors: list[ast.AST]  # outermost first: the unit's Module, ..., the parent
    functions: list[ast.AST]  # enclosing FunctionDef/Lambda nodes, innermost last
    resolvers: list[Resolver]  # innermost scope last

    @property
    def trace(self) -> TraceInfo | None: ...

    @property
    def parent(self) -> ast.AST | None: ...

    def qualname(self, node: ast.AST) -> str | None: ...

    def kind(self, node: ast.AST) -> Kind: ...


def given_by_callers(site: FixSite, value: ast.expr) -> bool:
    """Is `value` a JAX array here only because traced callers pass one: a value of a
    function traced through calls alone, which is no JAX array whoever calls it (its
    parameter, or computed from one; `ModuleModel.caller_free_kinds`)? An untraced caller
    may pass a NumPy array or a Python value, which has no `.at` and which `jnp.where` or
    `jnp.logical_and` turns into a JAX array: a rewrite would change the function for it."""
    function = site.functions[-1] if site.functions else None
    if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
        return False
    trace = site.trace
    if trace is None or trace.direct:
        return False
    return not site.model.caller_free_kinds(function).kinds.get(value, Kind.UNKNOWN).is_jax


def node_edit(at: Located, node: ast.AST, content: str) -> Edit:
    """`node`'s text replaced by `content`."""
    return Edit(at.span(node), content)


def import_line_edit(site: FixSite, statement: str) -> Edit:
    """An edit adding `statement` (e.g. "import jax") at the module's import line, after its
    imports (document-anchored: the line is the document's, not the unit's), with the blank
    lines an import needs there (`ModuleModel.import_blank_lines`); other code (the x64
    switch, with the `import jax` it may need) goes in as it is."""
    model = site.model
    one_import = statement.startswith(("import ", "from ")) and "\n" not in statement
    blank_lines = model.import_blank_lines if one_import else (0, 0)
    edit = header_insertion(model.document.lines, model.import_line, f"{statement}\n", blank_lines)
    return replace(edit, document_anchored=True)


def header_insertion(
    lines: list[str], line: int, block: str, blank_lines: tuple[int, int], newline: str = "\n"
) -> Edit:
    """The edit inserting `block` (whole lines, each ending in `newline`) at the import line
    `line`, with the blank lines (before, after: `header.import_blank_lines`) that ruff's
    isort and formatter give an import there: every statement a fix adds to the header."""
    before, after = blank_lines
    return insert_lines(lines, line, newline * before + block + newline * after, newline)


def insert_lines(lines: list[str], line: int, block: str, newline: str = "\n") -> Edit:
    """The edit inserting `block` (whole lines, each ending in `newline`) before `line`; past
    the last line of a text without a final newline, after a newline added to that line."""
    if line >= len(lines):
        end = len(lines) - 1
        at_end = Span.of(end, len(lines[end]), end, len(lines[end]))
        return Edit(at_end, newline + block.removesuffix(newline))
    return Edit(Span.of(line, 0, line, 0), block)

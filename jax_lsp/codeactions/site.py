"""What a fix reads about the place it rewrites: protocols, so that fixes depend on analysis and
findings only. A rule's `RuleContext` is a `FixSite`; a codemod's view of a module unit
(`ModuleSource.unit`) is `Located`."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Protocol

from jax_lsp.findings import Edit, Span

if TYPE_CHECKING:
    from jax_lsp.analysis.imports import Resolver
    from jax_lsp.analysis.kinds import Kind
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
    ancestors: list[ast.AST]  # outermost first: the unit's Module, ..., the parent
    functions: list[ast.AST]  # enclosing FunctionDef/Lambda nodes, innermost last
    resolvers: list[Resolver]  # innermost scope last

    @property
    def trace(self) -> TraceInfo | None: ...

    @property
    def parent(self) -> ast.AST | None: ...

    def qualname(self, node: ast.AST) -> str | None: ...

    def kind(self, node: ast.AST) -> Kind: ...

    def edit(self, node: ast.AST, content: str) -> Edit: ...

    def import_edit(self, statement: str) -> Edit:
        """An edit adding `statement` at the module's import line (document-anchored)."""
        ...

"""The Rule base class, its documented examples, and the context rules read facts from.

A rule is a class: its code, name, severity and docs (what it does, why it is bad, example,
use instead, fix safety), VALID and INVALID examples the test suite runs, the AST node types
it looks at, and `check`, which yields Findings. Rules know nothing of LSP or the terminal.
"""

from __future__ import annotations

import ast
import textwrap
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar, Protocol

from jax_lsp.analysis.kinds import Kind
from jax_lsp.analysis.text import byte_col_to_char
from jax_lsp.findings import DeferredFix, Edit, Finding, Fix, Severity, Span

if TYPE_CHECKING:
    from jax_lsp.analysis.imports import Resolver
    from jax_lsp.analysis.model import ModuleModel
    from jax_lsp.analysis.traced import TraceInfo

DOCS_URL = "https://github.com/jax-lsp/jax-lsp/blob/main/docs/rules/{code}.md"
ERROR_MARKER = "# error"


@dataclass(frozen=True)
class Example:
    """A snippet in a rule's docs and tests.

    INVALID examples mark each line the rule must flag with a trailing `# error` comment.
    `raises` names the exception JAX raises when the snippet runs ("TypeError",
    "jax.errors.TracerBoolConversionError"); `check` is code run after the snippet that
    asserts the silent misbehaviour (or, for VALID examples, the intended result).
    `fixed` is the snippet after the rule's fix, where it has one, and `fixed_check` asserts
    that the fixed snippet computes what its author meant.
    """

    source: str
    raises: str | None = None
    check: str | None = None
    fixed: str | None = None
    fixed_check: str | None = None
    runnable: bool = True

    @property
    def code(self) -> str:
        return textwrap.dedent(self.source).strip("\n") + "\n"

    @property
    def display(self) -> str:
        """The snippet as the docs show it: without the test markers."""
        lines = [line.replace(f"  {ERROR_MARKER}", "").rstrip() for line in self.code.split("\n")]
        return "\n".join(lines)

    def marked_lines(self) -> list[int]:
        """0-based lines marked `# error`."""
        return [i for i, line in enumerate(self.code.split("\n")) if line.endswith(ERROR_MARKER)]


class Rule:
    code: ClassVar[str]
    name: ClassVar[str]
    summary: ClassVar[str]  # one line: what is flagged
    severity: ClassVar[Severity] = Severity.WARNING
    default_enabled: ClassVar[bool] = True
    what_it_does: ClassVar[str]
    why_bad: ClassVar[str]
    fix_safety: ClassVar[str] = "This rule offers no automatic fix."
    valid: ClassVar[tuple[Example, ...]] = ()
    invalid: ClassVar[tuple[Example, ...]] = ()
    node_types: ClassVar[tuple[type[ast.AST], ...]] = ()
    # Where the rule can find anything: None (anywhere), "traced" (inside traced code) or
    # "abstract" (where values are abstract tracers). The walker calls it nowhere else.
    needs_trace: ClassVar[str | None] = None

    def check(self, node: ast.AST, ctx: RuleContext) -> Iterable[Finding]:
        raise NotImplementedError

    @classmethod
    def url(cls) -> str:
        return DOCS_URL.format(code=cls.code)

    @classmethod
    def docs(cls) -> str:
        """The rule's documentation page, in Markdown."""
        parts = [
            f"# {cls.code} ({cls.name})",
            "",
            f"Default: {'on' if cls.default_enabled else 'off'}; severity: {cls.severity.value}.",
            "",
            "## What it does",
            textwrap.dedent(cls.what_it_does).strip(),
            "",
            "## Why is this bad?",
            textwrap.dedent(cls.why_bad).strip(),
        ]
        if cls.invalid:
            parts += ["", "## Example", "```python", cls.invalid[0].display.rstrip(), "```"]
        if cls.valid:
            parts += ["", "## Use instead", "```python", cls.valid[0].display.rstrip(), "```"]
        parts += ["", "## Fix safety", textwrap.dedent(cls.fix_safety).strip(), ""]
        return "\n".join(parts)


class KindLookup(Protocol):
    """A scope's kinds by node (a dict, or the walker's lazily interpreted scopes)."""

    def get(self, node: ast.AST, /) -> Kind | None: ...


class RuleContext:
    """What a rule may ask while the walker stands on a node."""

    def __init__(self, model: ModuleModel, lines: list[str]) -> None:
        self.model = model
        self.lines = lines  # the unit's lines, for converting `ast` byte columns
        self.ancestors: list[ast.AST] = []
        self.functions: list[ast.AST] = []  # enclosing FunctionDef/Lambda nodes, innermost last
        self.traces: list[TraceInfo | None] = []
        self.resolvers: list[Resolver] = [model.resolver]
        self.kind_maps: list[KindLookup] = []  # innermost last
        self.loops: list[ast.AST] = []  # enclosing for/while/comprehension nodes
        # The unit's first document line: module facts (model.x64) use absolute lines.
        self.unit_start = 0

    # -- facts ----------------------------------------------------------------------------
    @property
    def trace(self) -> TraceInfo | None:
        """How the innermost enclosing function is traced; None outside traced code."""
        return self.traces[-1] if self.traces else None

    @property
    def in_traced(self) -> bool:
        return self.trace is not None

    @property
    def abstract(self) -> bool:
        """Values here are abstract tracers (jit, vmap, lax control flow)."""
        return self.trace is not None and self.trace.abstract

    def qualname(self, node: ast.AST) -> str | None:
        return self.resolvers[-1].qualname(node)

    def kind(self, node: ast.AST) -> Kind:
        for kinds in reversed(self.kind_maps):
            kind = kinds.get(node)
            if kind is not None:
                return kind
        return Kind.UNKNOWN

    @property
    def parent(self) -> ast.AST | None:
        return self.ancestors[-1] if self.ancestors else None

    def segment(self, node: ast.AST) -> str:
        """The exact source text of a node."""
        span = self.span(node)
        if span.start.line == span.end.line:
            return self.lines[span.start.line][span.start.column : span.end.column]
        first = self.lines[span.start.line][span.start.column :]
        middle = self.lines[span.start.line + 1 : span.end.line]
        last = self.lines[span.end.line][: span.end.column]
        return "\n".join([first, *middle, last])

    # -- reporting ------------------------------------------------------------------------
    def span(self, node: ast.AST, end: ast.AST | None = None) -> Span:
        end = end or node
        start_line, end_line = node.lineno - 1, end.end_lineno - 1
        return Span.of(
            start_line,
            byte_col_to_char(self.lines[start_line], node.col_offset),
            end_line,
            byte_col_to_char(self.lines[end_line], end.end_col_offset),
        )

    def edit(self, node: ast.AST, content: str) -> Edit:
        return Edit(self.span(node), content)

    def import_edit(self, statement: str) -> Edit:
        """An edit adding `statement` (e.g. "import jax") after the module's imports."""
        line = self.model.import_line
        return Edit(Span.of(line, 0, line, 0), f"{statement}\n", document_anchored=True)

    def finding(
        self,
        rule: Rule,
        node: ast.AST,
        message: str,
        *,
        end: ast.AST | None = None,
        fix: Fix | None = None,
        alternatives: tuple[Fix, ...] = (),
        deferred: tuple[DeferredFix, ...] = (),
    ) -> Finding:
        span = self.span(node, end)
        return Finding(rule.code, message, span, rule.severity, fix, alternatives, deferred)

    def deferred(self, codemod: str, node: ast.AST) -> DeferredFix:
        """A codemod to run on demand, starting from `node`."""
        return DeferredFix(codemod, self.span(node).start)


def iter_examples(rules: Iterable[type[Rule]]) -> Iterator[tuple[type[Rule], str, Example]]:
    for rule in rules:
        for index, example in enumerate(rule.valid):
            yield rule, f"{rule.code}-valid-{index}", example
        for index, example in enumerate(rule.invalid):
            yield rule, f"{rule.code}-invalid-{index}", example

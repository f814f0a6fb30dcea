"""What a rule reports: a Finding with an optional Fix. Shared by the CLI, the server and tests.

Positions are 0-based lines and code point columns within the document; faces convert them
(1-based for the terminal, UTF-16 or UTF-8 units for LSP).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field, replace

from jax_lsp.snippets import one_line_title


class Severity(enum.Enum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


class Applicability(enum.Enum):
    SAFE = "safe"  # keeps behaviour: applied by fix-all
    UNSAFE = "unsafe"  # may change behaviour: only on request


@dataclass(frozen=True, order=True)
class Position:
    line: int
    column: int


@dataclass(frozen=True, order=True)
class Span:
    start: Position
    end: Position

    @classmethod
    def of(cls, line: int, column: int, end_line: int, end_column: int) -> Span:
        return cls(Position(line, column), Position(end_line, end_column))

    def overlaps(self, other: Span) -> bool:
        return self.start < other.end and other.start < self.end


@dataclass(frozen=True)
class Edit:
    span: Span
    content: str
    # Rules build spans relative to their top-level statement; an edit elsewhere in the module
    # (an added import) is anchored to the document instead and is not shifted.
    document_anchored: bool = False
    # In a notebook's report, the cell (1-based, as Jupyter counts) the span is relative to:
    # an import a fix adds lands in the first code cell, not the finding's.
    cell: int | None = None


@dataclass(frozen=True)
class Fix:
    title: str
    edits: tuple[Edit, ...]
    applicability: Applicability = Applicability.SAFE

    def __post_init__(self) -> None:
        # Every title one line, whoever built it: the code it quotes may span lines, hold
        # comments or be long (an editor's menu, a terminal row show one line).
        title = one_line_title(self.title)
        if title is not self.title:
            object.__setattr__(self, "title", title)

    @property
    def is_safe(self) -> bool:
        return self.applicability is Applicability.SAFE


class Codemod(str, enum.Enum):
    """The codemods a finding can defer (`jax_lsp.codeactions.CODEMODS` builds each). A str
    enum: its value is the name the LSP diagnostic's `data` carries."""

    PYTREE = "pytree"  # a jitted method -> a class registered as a PyTree
    PYTREE_UNSTATIC = "pytree_unstatic"  # `static_argnums=0` on a method -> a registered class
    WHERE_MASK = "where_mask"  # x[mask].sum() -> jnp.where(mask, x, 0).sum()
    STATIC_JIT = "static_jit"  # a parameter added to `f = jax.jit(f, static_argnames=...)`


@dataclass(frozen=True)
class DeferredFix:
    """A fix too costly to build on every keystroke (a libcst codemod over the module): named
    here, built from the document text only when a client asks (`jax_lsp.codeactions`)."""

    codemod: Codemod
    anchor: Position  # the node the codemod starts from
    # The rule knows the rewrite may change what the code does in a way the text does not
    # show (an array a traced caller passes, where an untraced one may pass a NumPy array):
    # its fixes are unsafe whatever the codemod finds.
    unsafe: bool = False


@dataclass(frozen=True)
class Related:
    """A place that explains a finding: the transform that traces the function, where a value's
    traced-ness comes from, the earlier use of a PRNG key."""

    span: Span
    message: str
    # Rules build spans relative to their top-level statement; a place in another statement
    # (a `jax.jit(f)` call further down) is anchored to the document instead and not shifted.
    document_anchored: bool = False
    # A place in another file of the project (the `jax.jit` that traces a helper from
    # another module): its path; the span is in that file's coordinates.
    path: str | None = None


# The code of a file's syntax error, reported beside the findings of the lines that parse
# (ruff's name for it): not a rule, so not selectable or suppressible.
SYNTAX_ERROR = "invalid-syntax"


@dataclass(frozen=True)
class Finding:
    code: str
    message: str
    span: Span
    severity: Severity
    fix: Fix | None = None
    # Extra fixes offered in the editor beside the main one (e.g. alternative rewrites).
    alternatives: tuple[Fix, ...] = field(default=())
    deferred: tuple[DeferredFix, ...] = field(default=())
    # Places in the same document that explain the finding (LSP relatedInformation).
    related: tuple[Related, ...] = field(default=())

    @property
    def line(self) -> int:
        return self.span.start.line


def _shift_span(span: Span, lines: int) -> Span:
    return Span(
        Position(span.start.line + lines, span.start.column),
        Position(span.end.line + lines, span.end.column),
    )


def shift_finding(finding: Finding, lines: int) -> Finding:
    """`finding` moved down by `lines` (up when negative), fixes and related places included:
    rules find in a top-level statement's lines, reports speak the document's (and a
    notebook cell's, for the server's cells analysed together)."""

    def shift_fix(fix: Fix | None) -> Fix | None:
        if fix is None:
            return None
        edits = tuple(
            e if e.document_anchored else Edit(_shift_span(e.span, lines), e.content)
            for e in fix.edits
        )
        return replace(fix, edits=edits)

    if lines == 0:
        if any(r.document_anchored for r in finding.related):
            return replace(finding, related=_related_in_document(finding.related, 0))
        return finding
    return replace(
        finding,
        span=_shift_span(finding.span, lines),
        fix=shift_fix(finding.fix),
        alternatives=tuple(shift_fix(f) for f in finding.alternatives),
        deferred=tuple(
            replace(d, anchor=Position(d.anchor.line + lines, d.anchor.column))
            for d in finding.deferred
        ),
        related=_related_in_document(finding.related, lines),
    )


def _related_in_document(related: tuple[Related, ...], lines: int) -> tuple[Related, ...]:
    """Related places moved from their statement's coordinates into the document's; from here
    on every span of the finding is in the same coordinates (so none is anchored any more)."""
    return tuple(
        Related(
            r.span if r.document_anchored else _shift_span(r.span, lines), r.message, path=r.path
        )
        for r in related
    )

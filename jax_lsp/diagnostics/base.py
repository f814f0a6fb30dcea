"""The Rule base class, its documented examples, and the context rules read facts from.

A rule is a class: its code, name, severity and docs (what it does, why it is bad, example,
use instead, fix safety), VALID and INVALID examples the test suite runs, the AST node types
it looks at, and `check`, which yields Findings. Rules know nothing of LSP or the terminal.
"""

from __future__ import annotations

import ast
import functools
import os
import textwrap
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

from jax_lsp.analysis.boolean_entries import entry_spelling
from jax_lsp.analysis.imports import Resolver, local_imports
from jax_lsp.analysis.kinds import Kind
from jax_lsp.analysis.text import RecordedLines, document_span
from jax_lsp.analysis.traced import TraceStep, transform_name
from jax_lsp.analysis.values import DERIVED, Container, Instance, Object, contains_traced
from jax_lsp.findings import (
    Applicability,
    Codemod,
    DeferredFix,
    Finding,
    Fix,
    Related,
    Severity,
    Span,
)
from jax_lsp.text import byte_col_to_char

if TYPE_CHECKING:
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


# A test of a node's lines beyond a word, with the scope's imports (`may_draw`: a name bound
# to `jax.random`, as a whole word).
TextTest = Callable[[str, Resolver], bool]


@dataclass(frozen=True)
class Spelled:
    """A rule's cheap pre-filter, which the walker applies: what the lines of a node must
    spell for the rule to find anything there (`RuleContext.code_text`). One of these must
    occur in them: a word of `text`; a name the scope's imports bind to one of `bound_to`
    (`from jax.numpy import take as pick`: "pick" for "jax.numpy.take"); a name one of the
    module facts in `named_by` holds (the module's key helpers, read as the rule reads the
    model, so that kept findings are renewed when the fact changes); or one of `tests` must hold
    of them. `found_by`: a module fact about the node that lets it through whatever its lines
    spell (the key reuses the model found in a unit's top-level code). Before any word is
    looked for: `binds`, modules one of which the scope must be able to name (its enclosing
    imports bind it, or the node has imports of its own); `given`, a fact about the node that
    must hold (a unit of definitions: their headers may index). The walker does not hand the
    rule a node of the types in `on` (None: every type the rule looks at) that fails the
    filter. Comments count: a comment naming one costs work, never a finding."""

    text: tuple[str, ...] = ()
    bound_to: tuple[str, ...] = ()
    on: tuple[type[ast.AST], ...] | None = None
    named_by: tuple[Callable[[Any], Iterable[str]], ...] = ()
    tests: tuple[TextTest, ...] = ()
    found_by: Callable[[ast.AST, RuleContext], object] | None = None
    binds: tuple[str, ...] = ()
    given: Callable[[ast.AST, RuleContext], bool] | None = None
    # Whether any word is looked for (not a filter on the imports or a fact alone).
    _spells: bool = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        spells = bool(self.text or self.bound_to or self.named_by or self.tests or self.found_by)
        object.__setattr__(self, "_spells", spells)

    def spelled_in(self, node: ast.AST, ctx: RuleContext) -> bool:
        """Do the lines of `node` spell one of the words (or does `found_by` let it through)?"""
        resolver = ctx.resolvers[-1]
        if self.binds and not (
            local_imports(node) or any(resolver.binds_module(name) for name in self.binds)
        ):
            return False
        if self.given is not None and not self.given(node, ctx):
            return False
        if not self._spells:
            return True
        text = ctx.code_text(node)
        spells = text.__contains__
        if any(map(spells, self.text)):
            return True
        for spelled in self.bound_to:
            if any(map(spells, resolver.names_bound_under(spelled))):
                return True
        for test in self.tests:
            if test(text, resolver):
                return True
        for fact in self.named_by:
            if any(map(spells, fact(ctx.model))):
                return True
        return self.found_by is not None and bool(self.found_by(node, ctx))

    def words(self, resolver: Resolver) -> tuple[str, ...]:
        """The words of `text`, and the names `resolver` binds to one of `bound_to`."""
        bound = resolver.names_bound_under
        return (*self.text, *(name for spelled in self.bound_to for name in bound(spelled)))


# `Rule.prefilter`: one filter, or several that must all let a node through.
Prefilter = Spelled | tuple[Spelled, ...]


def prefiltered(*filters: Spelled):
    """A decorator for the part of a rule's check that finds something only where a node's
    lines spell all of `filters` (a method taking the node and the context, such as the
    rule's search for `jax.jit(self.step)` in a method): elsewhere it returns nothing
    without running. What `Rule.prefilter` is to the whole check; the tests run each part
    without it (`__wrapped__`) to show it loses no finding."""

    def decorate(part):
        @functools.wraps(part)
        def filtered(self, node: ast.AST, ctx: RuleContext, *args, **kwargs):
            for spelled in filters:
                if not spelled.spelled_in(node, ctx):
                    return ()
            return part(self, node, ctx, *args, **kwargs)

        filtered.prefilters = filters  # type: ignore[attr-defined]
        return filtered

    return decorate


class RuleSettings(Protocol):
    """What a rule may read of the settings that choose it (`jax_lsp.config.Settings`):
    rules sit below the configuration."""

    @property
    def target_jax_version(self) -> str | None: ...


class Rule:
    code: ClassVar[str]
    name: ClassVar[str]
    summary: ClassVar[str]  # one line: what is flagged
    severity: ClassVar[Severity] = Severity.WARNING
    default_enabled: ClassVar[bool] = True
    what_it_does: ClassVar[str]
    why_bad: ClassVar[str]
    fix_safety: ClassVar[str] = "This rule offers no automatic fix."
    # The applicabilities of the fixes the rule offers (none: no fix), and whether only some
    # forms of what it flags get one: what the README table and `jax-lsp rules` show, so that
    # `--fix` (safe fixes only) doing nothing for a rule is no surprise.
    fix_applicabilities: ClassVar[frozenset[Applicability]] = frozenset()
    fix_in_some_cases_only: ClassVar[bool] = False
    valid: ClassVar[tuple[Example, ...]] = ()
    invalid: ClassVar[tuple[Example, ...]] = ()
    node_types: ClassVar[tuple[type[ast.AST], ...]] = ()
    # For a rule on `Call` nodes: the names that the calls it can act on end with, as the
    # scope's imports resolve them (`jnp.stack(...)`, and `st(...)` after `from jax.numpy
    # import stack as st`: "stack"; `x.astype(...)`: "astype"). The walker hands it no other
    # call (nor one of a callee that is no name: `f(a)(b)`). None: every call.
    call_names: ClassVar[frozenset[str] | None] = None
    # For a rule on `Attribute` nodes: the attribute names it can act on (`x.at`: "at"). The
    # walker hands it no other attribute. None: every attribute.
    attribute_names: ClassVar[frozenset[str] | None] = None
    # Where the rule can find anything: None (anywhere), "traced" (inside traced code) or
    # "abstract" (where values are abstract tracers). The walker calls it nowhere else.
    needs_trace: ClassVar[str | None] = None
    # Also where `shard_map` runs its function eagerly (called outside any trace): the body
    # runs on every call and `print` shows the shards' values; conversions to Python or NumPy
    # values fail (`float()`, `np.exp`), but a truth test fails only on values that vary
    # across the mesh (not on a `psum` or a constant), which the model does not track.
    fails_in_eager_shard_map: ClassVar[bool] = False
    # What the lines of a node must spell for the rule to find anything there (`Spelled`;
    # several: each must let the node through).
    prefilter: ClassVar[Prefilter | None] = None

    def check(self, node: ast.AST, ctx: RuleContext) -> Iterable[Finding]:
        raise NotImplementedError

    @classmethod
    def configured(cls, settings: RuleSettings) -> type[Rule]:
        """The rule as `settings` configure it: itself, or for a rule that reads a setting
        (the target JAX release), a subclass bound to the setting's value. Findings are
        cached under the chosen classes, so a changed setting is a new analysis."""
        return cls

    @classmethod
    def fix_label(cls) -> str:
        """ "no", "safe", "unsafe" or "safe or unsafe", after "sometimes, " when only some
        forms of what the rule flags get a fix."""
        kinds = [kind.value for kind in Applicability if kind in cls.fix_applicabilities]
        if not kinds:
            return "no"
        label = " or ".join(kinds)
        return f"sometimes, {label}" if cls.fix_in_some_cases_only else label

    @classmethod
    def url(cls) -> str:
        return DOCS_URL.format(code=cls.code)

    @classmethod
    def docs(cls) -> str:
        """The rule's documentation page, in Markdown."""
        parts = [
            f"# {cls.code} ({cls.name})",
            "",
            f"Default: {'on' if cls.default_enabled else 'off'}; severity: {cls.severity.value}; "
            f"fix: {cls.fix_label()}.",
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

    def __init__(self, model: ModuleModel, lines: Sequence[str]) -> None:
        self.model = model
        # The unit's lines, for converting `ast` byte columns and quoting code. The engine
        # records which are read: findings copy text from them, so an edit of those lines
        # (a comment) must renew the findings even when the code stays the same.
        self.lines = lines
        self.ancestors: list[ast.AST] = []
        self.functions: list[ast.AST] = []  # enclosing FunctionDef/Lambda nodes, innermost last
        self.traces: list[TraceInfo | None] = []
        self.resolvers: list[Resolver] = [model.resolver]
        self.kind_maps: list[KindLookup] = []  # innermost last
        self.loops: list[ast.AST] = []  # enclosing for/while/comprehension nodes
        # The unit's first document line: module facts (model.x64) use absolute lines.
        self.unit_start = 0
        # The unit's text, `lines` joined, when the walker has it: the Module's `code_text`.
        self.unit_text: str | None = None
        self._code_text: tuple[ast.AST | None, str] = (None, "")  # the last node's, kept

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

    def boolean_attribute(self, node: ast.Attribute) -> bool:
        """`obj.field` on an object of a module class whose `field` holds a boolean array
        (how the value model sees `obj` here, and how the module builds the class)."""
        function = self.functions[-1] if self.functions else None
        if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
            return False
        holder = self.model.scope_kinds(function).values.get(node.value)
        if type(holder) is not Instance and type(holder) is not Object:
            return False
        return node.attr in self.model.boolean_fields.get(holder.class_name, frozenset())

    def boolean_entry(self, parameter: str, key: str) -> bool:
        """Every call of the enclosing module function passes, for `parameter`, a dict
        display whose `key` entry is a boolean array (`loss(x, {"mask": x > 0})`)."""
        function = self.functions[-1] if self.functions else None
        record = self.model.records.get(function) if function is not None else None
        if record is None:
            return False
        entries = self.model.boolean_entries.get(record.path, {})
        if key in entries.get(parameter, frozenset()):
            return True
        # A run of the traced function gives it one (`loss(params, batch)` with a batch
        # whose "mask" a NumPy comparison built), in this module or another.
        trace = self.trace
        return trace is not None and entry_spelling(parameter, key) in trace.boolean_params

    def boolean_parameter(self, name: str) -> bool:
        """A run of the enclosing traced function gives its parameter `name` a boolean array
        (`loss(x, mask)` with `mask = np.zeros(n, bool)`, in this module or another)."""
        trace = self.trace
        return trace is not None and name in trace.boolean_params

    def holds_tracer(self, node: ast.expr) -> bool:
        """`node` is a Python tuple, list or dict, or an object built here, that holds a
        tracer among its items or fields, as the value model sees it here (`metrics =
        {"loss": loss, "n": n}`, `Outputs(loss, acc)` in a jitted function)."""
        function = self.functions[-1] if self.functions else None
        if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
            return False
        value = self.model.scope_kinds(function).values.get(node)
        return (type(value) is Container or type(value) is Object) and contains_traced(value)

    def pytree_object(self, node: ast.expr) -> bool:
        """`node` is a traced object of a PyTree class (a registered dataclass, a NamedTuple,
        an `eqx.Module`) as the value model sees it here: its leaves are tracers, itself it
        is a Python object."""
        function = self.functions[-1] if self.functions else None
        if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
            return False
        return type(self.model.scope_kinds(function).values.get(node)) is Instance

    def unseen_result(self, node: ast.expr) -> bool:
        """`node` is what a call the value model cannot see makes of tracers in traced code
        (`model.apply(params, x)` in a jitted function): a tracer, or a pytree or object
        holding them, unless the call reads only static structure."""
        function = self.functions[-1] if self.functions else None
        if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
            return False
        return self.model.scope_kinds(function).values.get(node) is DERIVED

    @property
    def parent(self) -> ast.AST | None:
        return self.ancestors[-1] if self.ancestors else None

    @property
    def code_lines(self) -> Sequence[str]:
        """The unit's lines, unrecorded: for cheap tests of what code may name, as `code_text`
        (nothing reported may be taken from them)."""
        return self.lines.plain if isinstance(self.lines, RecordedLines) else self.lines

    def code_text(self, node: ast.AST) -> str:
        """The lines `node` spans (the unit's, for the unit's Module), comments included, for
        a cheap test of what the code may name: unrecorded (see `lines`), so nothing
        reported may be taken from it, and a comment naming something must change no
        decision, only the work done to reach it."""
        if self._code_text[0] is node:  # the rules of a scope ask one after another
            return self._code_text[1]
        lines = self.code_lines
        if isinstance(node, ast.Module):
            text = self.unit_text if self.unit_text is not None else "\n".join(lines)
        else:
            text = "\n".join(lines[node.lineno - 1 : node.end_lineno])
        self._code_text = (node, text)
        return text

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
        related = self.trace_related() if rule.needs_trace is not None else ()
        return Finding(
            rule.code, message, span, rule.severity, fix, alternatives, deferred, related
        )

    # -- why is this traced? --------------------------------------------------------------
    def _explained(self) -> tuple[TraceStep, ...]:
        """Why the innermost traced function around the walker is traced."""
        trace = self.model.trace
        for function in reversed(self.functions):
            if function in trace:
                return self.model.explain(function)
        return ()

    @property
    def where_traced(self) -> str:
        """Where the walker stands, and what traces it, for messages: "`f` (traced by
        `jax.jit`)", "`helper` (called from `step`; `step` traced by `jax.jit`)"."""
        steps = self._explained()
        if not steps:
            via = self.trace.via if self.trace else "a transformation"
            return f"code traced by `{transform_name(via)}`"
        parts = []
        for index, step in enumerate(steps):
            subject = "" if index == 0 else f"{_display(step.function)} "
            # A site in another module names its file.
            where = f" in {os.path.basename(step.file)}" if step.file is not None else ""
            if step.label is None:
                parts.append(f"{subject}called from `{step.caller}`{where}")
            elif step.caller is not None and index + 1 < len(steps):
                parts.append(f"{subject}traced by `{step.label}` in `{step.caller}`{where}")
            else:
                parts.append(f"{subject}traced by `{step.label}`{where}")
        return f"{_display(steps[0].function)} ({'; '.join(parts)})"

    def trace_related(self) -> tuple[Related, ...]:
        """The places that make this code traced: the transformation, through the calls."""
        related = []
        lines = self.model.document.lines
        for step in self._explained():
            site = step.site
            if step.label is None:
                message = f"{_display(step.function)} is called here from `{step.caller}`"
            else:
                message = f"`{step.label}` traces {_display(step.function)} here"
            if step.file is not None and step.span is not None:  # in another module
                related.append(Related(step.span, message, document_anchored=True, path=step.file))
                continue
            if step.unit_start == self.unit_start:
                related.append(Related(self.span(site), message))
                continue
            span = document_span(lines, step.unit_start, site)
            related.append(Related(span, message, document_anchored=True))
        return tuple(related)

    def deferred(self, codemod: Codemod, node: ast.AST, unsafe: bool = False) -> DeferredFix:
        """A codemod to run on demand, starting from `node` (`unsafe`: its fixes are)."""
        return DeferredFix(codemod, self.span(node).start, unsafe)


def _display(function: str) -> str:
    return "the lambda" if function == "<lambda>" else f"`{function}`"


def iter_examples(rules: Iterable[type[Rule]]) -> Iterator[tuple[type[Rule], str, Example]]:
    for rule in rules:
        for index, example in enumerate(rule.valid):
            yield rule, f"{rule.code}-valid-{index}", example
        for index, example in enumerate(rule.invalid):
            yield rule, f"{rule.code}-invalid-{index}", example

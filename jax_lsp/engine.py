"""The engine: the one entry every face calls (`check_source`: a text, its path, the settings
and the workspace's cross-module facts in; findings, the model and jedi's questions out), and
`fix_source`, which applies the fixes of those findings. `analyze`, which runs rules over a
document, is the rule runner's (`jax_lsp/diagnostics/runner.py`).
"""

from __future__ import annotations

import ast
import logging
import os
import warnings
from collections.abc import Mapping
from dataclasses import replace

from jax_lsp.analysis.crossing import IncomingTrace
from jax_lsp.analysis.document import Document, words_for_later_versions
from jax_lsp.analysis.external import CallSite, ExternalFacts, with_answers
from jax_lsp.analysis.nodes import keep_more_walks
from jax_lsp.analysis.project import library_traces
from jax_lsp.analysis.traced_functions import TracedFunction
from jax_lsp.analysis.traced_functions import traced_functions as _traced_functions
from jax_lsp.analysis.unit_memo import keep_more_entries
from jax_lsp.codeactions import with_deferred_fixes
from jax_lsp.codeactions.apply import apply_edits, fix_text
from jax_lsp.codeactions.import_edits import debug_nans_edit
from jax_lsp.config import Settings
from jax_lsp.diagnostics.runner import Analysis, analyze
from jax_lsp.findings import SYNTAX_ERROR, Finding, Fix, Position, Severity, Span, shift_finding
from jax_lsp.workspace import AnswerKey, Workspace

# The rule runner's `analyze` and its `Analysis`, and `shift_finding`, reach the faces from here.
__all__ = [
    "Analysis",
    "TracedFunction",
    "analysing_once",
    "analyze",
    "analyze_with",
    "check_source",
    "enable_debug_nans",
    "fix_source",
    "parses",
    "shift_finding",
    "syntax_error",
    "traced_functions",
    "traces_given",
    "with_fixes_built",
]

log = logging.getLogger(__name__)


def analyze_with(
    document: Document,
    settings: Settings,
    external: Mapping[str, ExternalFacts] | None = None,
    reuse_findings: bool = True,
    incoming: tuple[IncomingTrace, ...] = (),
    rules: bool = True,
) -> Analysis:
    """`analyze` with the rules (none if not `rules`: the model only), severities and x64 flag
    that `settings` choose for this file."""
    return analyze(
        document,
        settings.rules_for(document.path) if rules else (),
        settings.severities(),
        settings.enable_x64,
        external,
        reuse_findings,
        incoming,
    )


def analysing_once(once: bool) -> None:
    """Whether the texts analysed next are analysed once (`check` without `--fix` or
    `--watch`): then what only a later version of a text replays is not recorded (class
    members' words, interned words), and more recent walks and memo entries are kept. The
    analyses are the same either way."""
    words_for_later_versions(not once)
    keep_more_walks(once)
    keep_more_entries(once)


def check_source(
    text: str,
    path: str | None,
    settings: Settings,
    workspace: Workspace | None = None,
    *,
    answers: Mapping[str, ExternalFacts] | None = None,
    previous: Document | None = None,
    known_lines: list[str] | None = None,
    reuse_findings: bool = True,
    rules: bool = True,
    project_traces: bool = True,
) -> Analysis:
    """The findings every face reports for `text` (the file at `path`): the rules `settings`
    choose for it, with the facts `workspace` gives about imported functions and jedi's
    `answers` when the face has them (they win over the workspace's).

    `previous`: the last parse of this document, whose unchanged units are reused (the server
    re-splits only what an edit touched); `known_lines`: the text's lines, already split;
    `reuse_findings`: see `analyze`; `rules`: False for the model alone (no findings), which
    `traces_given` reads; `project_traces`: False for the analysis without the traces the
    project's other modules give it (the server's first diagnostics of a document, out before
    its importers are read)."""
    kept = previous is None and workspace is not None
    if kept:
        previous = workspace.parsed(path, text)  # parsed when a module imported it
    document = Document(text, path or "<unknown>", previous=previous, known_lines=known_lines)
    if reuse_findings:
        # Analysed again (see `analyze`): the models built for it before its analysis (for
        # the traces its importers give it) keep what the next version reuses too.
        document.lineage.analysed_again = True
    external: dict[str, ExternalFacts] = {}
    questions: dict[AnswerKey, CallSite] = {}
    incoming: tuple[IncomingTrace, ...] = ()
    if workspace is not None:
        if project_traces:
            incoming = workspace.incoming(document, settings.enable_x64)
        if kept and previous is None and (previous := workspace.parsed(path, text)):
            # Its importers, read for the traces they give it, parsed it as they imported
            # it: analysed on that parse, it shares the model they built.
            document = Document(text, document.path, previous=previous, known_lines=known_lines)
        external, questions = workspace.facts(document)
    if settings.traced:  # library mode: what the project's users trace
        config = os.path.join(settings.root, "pyproject.toml") if settings.root else None
        incoming += library_traces(settings.traced, document, config, settings.traced_line)
    if answers:
        external = with_answers(external, answers)
    analysis = analyze_with(
        document,
        settings,
        external if workspace or answers else None,
        reuse_findings,
        incoming,
        rules,
    )
    analysis.questions = questions
    if workspace is not None and analysis.model is not None:
        workspace.analysed(analysis.model)
    return analysis


def syntax_error(analysis: Analysis) -> Finding | None:
    """The text's first syntax error as a finding of its own (ruff's `invalid-syntax`), which
    every face reports beside the findings of the lines that parse (half-typed code is still
    checked): an error one character wide; no rule's, so never selected, ignored or fixed."""
    if not analysis.problems:
        return None
    problem = analysis.problems[0]
    where = Position(problem.line, problem.column)
    return Finding(
        SYNTAX_ERROR,
        f"SyntaxError: {problem.message}",
        Span(where, Position(where.line, where.column + 1)),
        Severity.ERROR,
    )


def traces_given(analysis: Analysis, workspace: Workspace) -> dict[str, tuple[IncomingTrace, ...]]:
    """The traces the analysed module gives functions of other project modules, by their file
    (`check`'s rounds, `TraceRounds`)."""
    return workspace.outgoing(analysis.model) if analysis.model is not None else {}


def traced_functions(analysis: Analysis) -> list[TracedFunction]:
    """The functions JAX traces in the analyzed text, and how each parameter arrives (the
    server's inlay hints and code lenses)."""
    return _traced_functions(analysis.model) if analysis.model is not None else []


def parses(text: str) -> bool:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # SyntaxWarnings are the user's business
        try:
            compile(text, "<fixed>", "exec", ast.PyCF_ONLY_AST)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return False
    return True


def with_fixes_built(analysis: Analysis, text: str) -> list[Finding]:
    """The findings with the fixes `fix_source` would apply: deferred codemods built (so a
    finding shows the fix it gets). In a text with half-typed units, only the fixes that stay
    clear of them (`_clear_of_half_typed`)."""
    if analysis.problems and analysis.document is not None:
        half_typed = _half_typed_ranges(analysis.document)
        return [_clear_of_half_typed(finding, half_typed) for finding in analysis.findings]
    return [with_deferred_fixes(finding, text) for finding in analysis.findings]


def _half_typed_ranges(document: Document) -> list[tuple[int, int]]:
    """The lines [start, end) of each unit that needed repair to parse."""
    return [
        (unit.start_line, unit.start_line + unit.source.line_count)
        for unit in document.units
        if unit.source.problem is not None
    ]


def _outside(span: Span, ranges: list[tuple[int, int]]) -> bool:
    """Whether `span` leaves every line range whole (an insertion at a range's first column
    is before it)."""
    return all(
        span.end <= Position(start, 0) or span.start >= Position(end, 0) for start, end in ranges
    )


def _clear_of_half_typed(finding: Finding, half_typed: list[tuple[int, int]]) -> Finding:
    """`finding` with only the fixes that may be applied while other units are half-typed.
    A finding inside a half-typed unit keeps none: that unit was analysed as repaired (lines
    blanked, `if lr` read as `if lr: pass`), and the line being typed may change what its code
    means (`x = np.asarray(x` above `x[0] = 1`). Outside, a fix keeps its place if none of its
    edits reaches into a half-typed unit, so the text being typed is never touched. Deferred
    codemods are dropped: they rewrite the module with libcst, which parses it whole."""
    kept: tuple[Fix, ...] = ()
    if _outside(finding.span, half_typed):
        offered = (finding.fix, *finding.alternatives)
        kept = tuple(
            fix
            for fix in offered
            if fix is not None and all(_outside(edit.span, half_typed) for edit in fix.edits)
        )
    return replace(finding, fix=kept[0] if kept else None, alternatives=kept[1:], deferred=())


def _half_typed_texts(text: str) -> list[str]:
    return [unit.text for unit in Document(text).units if unit.source.problem is not None]


def fix_source(
    text: str,
    path: str | None,
    settings: Settings,
    workspace: Workspace | None = None,
    unsafe: bool = False,
) -> tuple[str, int]:
    """`text` with its fixes applied (unsafe ones too if `unsafe`), and how many: the CLI's
    `--fix` and the server's fix-all. In a text with half-typed (unparsable) units, the fixes
    of the units that parse are applied and the half-typed ones are left as they are
    (`with_fixes_built`); if a fix would leave any unit other than those unparsable, or change
    one of them, nothing is applied."""

    def findings(source: str) -> list[Finding]:
        analysis = check_source(source, path, settings, workspace)
        return with_fixes_built(analysis, source) if analysis.problems else analysis.findings

    fixed, applied = fix_text(text, findings, unsafe)
    if fixed == text:
        return text, 0
    half_typed = _half_typed_texts(text)
    if not half_typed and not parses(fixed):
        log.warning("fixes to %s not applied: the result would not parse", path)
        return text, 0
    if half_typed and _half_typed_texts(fixed) != half_typed:
        log.warning("fixes to %s not applied: they would reach the lines being typed", path)
        return text, 0
    return fixed, applied


def enable_debug_nans(text: str, parsed: Analysis | None = None) -> str:
    """`text` with `jax.config.update("jax_debug_nans", True)` after its imports (and `import
    jax` if needed): the enable-debug-NaNs source action, for a file or a notebook's joined
    cells alike; `text` itself when it mentions the setting already. `parsed`: an analysis,
    whose parse is used when it is of `text` (the server's code actions, asked after each
    edit, parsed the whole text again)."""
    if "jax_debug_nans" in text:
        return text
    newline = next((ending for ending in ("\r\n", "\n", "\r") if ending in text), "\n")
    document = parsed.document if parsed is not None else None
    edit = debug_nans_edit(
        document if document is not None and document.text == text else Document(text), newline
    )
    return text if edit is None else apply_edits(text, [edit])

"""`jax-lsp check`: files and folders analysed (in worker processes when there are many),
findings reported in the chosen format, safe fixes applied with `--fix`.

Kept out of `jax_lsp.cli` so that `jax-lsp serve` does not import it."""

from __future__ import annotations

import argparse
import os
import sys
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path

from jax_lsp.analysis.document import Document
from jax_lsp.analysis.infer import ModuleFactsCache, local_external_facts
from jax_lsp.cli import EXIT_CLEAN, EXIT_FINDINGS, EXIT_USAGE
from jax_lsp.config import ConfigError, Settings, load_settings
from jax_lsp.engine import Analysis, analyze_with
from jax_lsp.files import UnreadableFile, iter_python_files, read_source
from jax_lsp.findings import Finding, Fix, Span
from jax_lsp.fixes import fix_text
from jax_lsp.notebook import Notebook, NotebookError
from jax_lsp.parallel import (
    available_cores,
    collect_after_item,
    map_with_locality,
    tune_gc_for_batch,
)
from jax_lsp.reporting import FORMATTERS, display_path

_PARALLEL_THRESHOLD = 32  # below this many files, worker start-up costs more than it saves
_IMPORTED_MODULES = ModuleFactsCache()  # models of imported workspace modules, per process


@dataclass
class FileResult:
    path: str
    findings: list[Finding] = field(default_factory=list)
    cells: list[int | None] = field(default_factory=list)  # notebook cell of each finding
    error: str | None = None  # the file could not be read
    syntax_error: str | None = None
    fixed: int = 0
    rule_failures: dict[str, str] = field(default_factory=dict)  # rule code -> first error


def check_file(path: str, settings: Settings, fix: bool, unsafe: bool) -> FileResult:
    try:
        return _check_file(path, settings, fix, unsafe)
    except Exception as error:  # an engine bug: one line for this file, the others still run
        return FileResult(path, error=f"internal error: {type(error).__name__}: {error}")


def _check_file(path: str, settings: Settings, fix: bool, unsafe: bool) -> FileResult:
    result = FileResult(path)
    notebook: Notebook | None = None
    try:
        text = read_source(Path(path))
        if path.endswith(".ipynb"):
            notebook = Notebook.parse(text)
            text = notebook.text
    except (UnreadableFile, NotebookError) as error:
        result.error = str(error)
        return result

    def run(source: str) -> list[Finding]:
        return _analyse(source, path, settings).findings

    if fix:
        fixed_text, result.fixed = fix_text(text, run, unsafe)
        if fixed_text != text:
            try:
                new_content = notebook.with_text(fixed_text) if notebook else fixed_text
            except NotebookError as error:
                result.error = f"fixes not written: {error}"
                return result
            Path(path).write_text(new_content, encoding="utf-8", newline="")
            text = fixed_text
    analysis = _analyse(text, path, settings)
    result.findings = analysis.findings
    for failure in analysis.failures:
        result.rule_failures.setdefault(failure.code, f"{failure.error} (line {failure.line + 1})")
    if notebook is not None:
        located = [notebook.locate(f.span.start) for f in result.findings]
        result.cells = [cell for cell, _ in located]
        result.findings = [_in_cell(f, notebook) for f in result.findings]
    else:
        result.cells = [None] * len(result.findings)
    if analysis.problems:
        problem = analysis.problems[0]
        result.syntax_error = f"{problem.message} at {problem.line + 1}:{problem.column + 1}"
    return result


def _analyse(text: str, path: str, settings: Settings) -> Analysis:
    """The analysis with the engine's cross-module facts (no jedi: `check` stays fast and
    deterministic): what functions imported from sibling workspace modules return."""
    document = Document(text, path)
    root = settings.root or os.getcwd()
    external, _ = local_external_facts(document, root, _IMPORTED_MODULES)
    return analyze_with(document, settings, external)


def _in_cell(finding: Finding, notebook: Notebook) -> Finding:
    """The finding with its positions (and its fix's) relative to its notebook cell."""

    def span_in_cell(span: Span) -> Span:
        return Span(notebook.locate(span.start)[1], notebook.locate(span.end)[1])

    def fix_in_cell(fix: Fix | None) -> Fix | None:
        if fix is None:
            return None
        edits = tuple(replace(e, span=span_in_cell(e.span)) for e in fix.edits)
        return replace(fix, edits=edits)

    return replace(
        finding,
        span=span_in_cell(finding.span),
        fix=fix_in_cell(finding.fix),
        alternatives=(),
        deferred=(),
        related=(),  # the SARIF/JSON locations of a notebook are cell-relative; keep it simple
    )


def _lost(path: str, reason: str) -> FileResult:
    return FileResult(path, error=f"internal error: {reason}")


def _size(path: str) -> int:
    try:
        return os.path.getsize(path)
    except OSError:
        return 0


def check_paths(
    files: list[str], settings: Settings, fix: bool, unsafe: bool, jobs: int
) -> list[FileResult]:
    if jobs <= 1 or len(files) < _PARALLEL_THRESHOLD:
        results = []
        for done, path in enumerate(files, 1):
            results.append(check_file(path, settings, fix, unsafe))
            collect_after_item(done)
        return results
    # Sorted by path: a package's modules (which import each other) go to the same worker.
    ordered = sorted(range(len(files)), key=lambda i: files[i])
    paths = [files[i] for i in ordered]
    check = partial(check_file, settings=settings, fix=fix, unsafe=unsafe)
    results = map_with_locality(check, paths, [_size(p) for p in paths], jobs, _lost)
    by_index = dict(zip(ordered, results, strict=True))
    return [by_index[i] for i in range(len(files))]


def run_check(args: argparse.Namespace) -> int:
    """`jax-lsp check`: the exit status."""
    paths = [Path(p) for p in args.paths] or [Path(".")]
    for path in paths:
        if not path.exists():
            print(f"jax-lsp: error: {path}: no such file or directory", file=sys.stderr)
            return EXIT_USAGE
    try:
        settings = load_settings(paths[0])
        overrides = {
            "select": args.select.split(",") if args.select else None,
            "extend-select": args.extend_select.split(",") if args.extend_select else None,
            "ignore": (list(settings.ignore) + args.ignore.split(",")) if args.ignore else None,
            "extend-exclude": (
                list(settings.extend_exclude) + args.extend_exclude.split(",")
                if args.extend_exclude
                else None
            ),
        }
        settings = settings.merged(overrides)
    except ConfigError as error:
        print(f"jax-lsp: error: {error}", file=sys.stderr)
        return EXIT_USAGE
    files = [str(path) for path in iter_python_files(paths, settings)]
    jobs = args.jobs or available_cores()
    tune_gc_for_batch()  # a one-shot batch: the process (and its workers) ends with the check
    results = check_paths(files, settings, args.fix, args.unsafe_fixes, jobs)
    failed = False
    for result in results:
        shown = display_path(result.path)
        if result.error:
            print(f"jax-lsp: {shown}: {result.error}", file=sys.stderr)
            failed = True
        elif result.syntax_error:
            print(f"jax-lsp: {shown}: syntax error: {result.syntax_error}", file=sys.stderr)
            failed = True
        for code, error in result.rule_failures.items():
            print(f"jax-lsp: {shown}: rule {code} failed: {error}", file=sys.stderr)
            failed = True
    formatter = FORMATTERS[args.output_format]
    findings = [
        (r.path, f, cell) for r in results for f, cell in zip(r.findings, r.cells, strict=True)
    ]
    output = formatter(findings, statistics=args.statistics, fixed=sum(r.fixed for r in results))
    if output:
        sys.stdout.write(output)
    if args.exit_zero:
        return EXIT_CLEAN
    return EXIT_FINDINGS if findings or failed else EXIT_CLEAN

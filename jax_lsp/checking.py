"""`jax-lsp check`: files and folders analyzed (in worker processes when there are many),
findings reported in the chosen format, safe fixes applied with `--fix`.

Kept out of `jax_lsp.cli` so that `jax-lsp serve` does not import it."""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import Literal

from jax_lsp.codeactions.noqa import noqa_line
from jax_lsp.config import ConfigError, Settings, load_settings
from jax_lsp.engine import (
    analysing_once,
    check_source,
    fix_source,
    syntax_error,
    traces_given,
    with_fixes_built,
)
from jax_lsp.exit_codes import EXIT_CLEAN, EXIT_FINDINGS, EXIT_USAGE
from jax_lsp.files import (
    UnreadableFile,
    UnwritableFile,
    iter_python_files,
    notebook_of_virtual_document,
    read_file,
    write_atomically,
)
from jax_lsp.findings import Finding, Fix, Position, Severity, Span
from jax_lsp.ipynb import Notebook, NotebookError
from jax_lsp.parallel import Workers, available_cores, collect_after_item, tune_gc_for_batch
from jax_lsp.reporting import FORMATTERS, Entry, ReportOptions, display_path, use_color
from jax_lsp.text import split_lines
from jax_lsp.workspace import TraceRounds, Workspace, file_system_trusted

_WATCHING = [False]  # `check --watch`: files are checked again, unchanged units reused
_PARALLEL_THRESHOLD = 32  # below this many files, worker start-up costs more than it saves
# The cross-module facts of each workspace root checked, per process (no jedi: `check` stays
# fast and deterministic): models of imported modules are built once per run.
_WORKSPACES: dict[str, Workspace] = {}


@dataclass
class FileResult:
    path: str
    findings: list[Finding] = field(default_factory=list)
    cells: list[int | None] = field(default_factory=list)  # notebook cell of each finding
    error: str | None = None  # the file could not be read
    fix_error: str | None = None  # --fix: fixes were found but could not be written
    syntax_error: str | None = None
    fixed: int = 0
    lines: list[str] = field(default_factory=list)  # the line each finding starts on
    noqa_lines: list[int] = field(default_factory=list)  # where each finding's noqa comment goes
    diff: str = ""  # --diff: what --fix would change, as a unified diff
    rule_failures: dict[str, str] = field(default_factory=dict)  # rule code -> first error
    # The traces the module was analysed with, and those it gives functions of other project
    # modules, by file (`TraceRounds`).
    given: tuple = ()
    gives: dict[str, tuple] = field(default_factory=dict)


FixMode = Literal["write", "diff"] | None  # --fix, --diff, or neither


def check_file(
    path: str,
    settings: Settings,
    fix: FixMode,
    unsafe: bool,
    rounds: TraceRounds | None = None,
    reported: bool = True,
) -> FileResult:
    """The findings of one file, analysed with the traces `rounds` gives it (`check`'s
    project pass), which learn the traces it gives. A file not `reported` is analysed for
    the traces it gives only."""
    try:
        workspace = _workspace(settings)
        given: tuple = ()
        if rounds is not None:
            workspace.give(rounds)
            given = workspace.given_to(path)
        if reported:
            result = _check_file(path, settings, fix, unsafe, workspace)
        else:
            result = FileResult(path, gives=workspace.traces_given_by(path))
        if rounds is not None:
            result.given = given
            rounds.record(path, result.gives, given)
        return result
    except Exception as error:  # an engine bug: one line for this file, the others still run
        return FileResult(path, error=f"internal error: {type(error).__name__}: {error}")


def _check_file(
    path: str, settings: Settings, fix: FixMode, unsafe: bool, workspace: Workspace
) -> FileResult:
    result = FileResult(path)
    notebook: Notebook | None = None
    try:
        source = read_file(Path(path))
        text = source.text
        # A virtual document's `.ipynb` is its notebook's cells joined: Python already.
        if path.endswith(".ipynb") and notebook_of_virtual_document(path) is None:
            notebook = Notebook.parse(text)
            text = notebook.text
    except (UnreadableFile, NotebookError) as error:
        result.error = str(error)
        return result
    if fix:
        fixed_text, fixed = fix_source(text, path, settings, workspace, unsafe)
        if fixed_text != text:
            try:
                new_content = notebook.with_text(fixed_text) if notebook else fixed_text
                data = source.encode(new_content)
                if fix == "diff":
                    # Shown, not written, and analysed as `--fix` analyses what it wrote: the
                    # traces it gives the project's other modules are the same, so their
                    # fixes are too.
                    result.diff = _unified_diff(path, source.text, new_content)
                else:
                    write_atomically(Path(path), data)
            except (NotebookError, UnwritableFile, OSError) as error:
                # The file is whole and was checked: its findings are still reported.
                result.fix_error = f"fixes not written: {error}"
            else:
                text, result.fixed = fixed_text, fixed
                if notebook is not None:
                    # Fixes add and remove lines: the cells now start elsewhere.
                    notebook = Notebook.parse(new_content)
    # Analysed once: unit findings are kept for reuse only when the text may be analysed
    # again (after --fix, whose last analysis was of this text; by --watch).
    reuse = bool(fix) or _WATCHING[0]
    analysing_once(not reuse)
    analysis = check_source(text, path, settings, workspace, reuse_findings=reuse)
    result.findings = with_fixes_built(analysis, text)
    result.gives = traces_given(analysis, workspace)
    for failure in analysis.failures:
        result.rule_failures.setdefault(failure.code, f"{failure.error} (line {failure.line + 1})")
    lines = split_lines(text)
    result.lines = [lines[f.line] if f.line < len(lines) else "" for f in result.findings]
    document = analysis.document
    result.noqa_lines = [
        noqa_line(lines, f.line, document.unit_lines(f.line) if document else None)
        for f in result.findings
    ]
    if notebook is not None:
        located = [notebook.locate(f.span.start) for f in result.findings]
        result.cells = [cell for cell, _ in located]
        result.findings = [_in_cell(f, notebook) for f in result.findings]
        result.noqa_lines = [
            notebook.locate(Position(line, 0))[1].line for line in result.noqa_lines
        ]
    else:
        result.cells = [None] * len(result.findings)
    syntax = syntax_error(analysis)
    if syntax is not None:
        # Reported as a finding of its own, as ruff does: in every output format, counted in
        # the summary, so a report never says "All checks passed!" of a file it could not read.
        result.syntax_error = syntax.message
        where = syntax.span.start
        cell = None
        if notebook is not None:
            cell = notebook.locate(where)[0]
            syntax = _in_cell(syntax, notebook)
        result.findings.append(syntax)
        result.cells.append(cell)
        result.lines.append(lines[where.line] if where.line < len(lines) else "")
        result.noqa_lines.append(syntax.span.start.line)
    return result


def _unified_diff(path: str, before: str, after: str) -> str:
    shown = display_path(path)
    # git's a/ b/ prefixes for a path below the working folder; an absolute one as it is.
    before_name, after_name = (
        (shown, shown) if os.path.isabs(shown) else (f"a/{shown}", f"b/{shown}")
    )
    import difflib  # --diff only

    lines = difflib.unified_diff(
        before.splitlines(keepends=True),
        after.splitlines(keepends=True),
        fromfile=before_name,
        tofile=after_name,
    )
    return "".join(
        line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines
    )


def _workspace(settings: Settings) -> Workspace:
    """The workspace of the files `settings` apply to: what functions imported from sibling
    workspace modules return."""
    root = settings.root or os.getcwd()
    if root not in _WORKSPACES:
        _WORKSPACES[root] = Workspace(root)
        if not _WATCHING[0]:  # the files do not change under one run
            _WORKSPACES[root].trust_files()
    return _WORKSPACES[root]


def _in_cell(finding: Finding, notebook: Notebook) -> Finding:
    """The finding with its positions (and its fix's) relative to its notebook cell."""

    def span_in_cell(span: Span) -> Span:
        return Span(notebook.locate(span.start)[1], notebook.locate(span.end)[1])

    def fix_in_cell(fix: Fix | None) -> Fix | None:
        if fix is None:
            return None
        return replace(fix, edits=tuple(map(notebook.edit_in_cell, fix.edits)))

    return replace(
        finding,
        span=span_in_cell(finding.span),
        fix=fix_in_cell(finding.fix),
        alternatives=tuple(fix for fix in map(fix_in_cell, finding.alternatives) if fix),
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
    files: list[str], settings: Settings, fix: FixMode, unsafe: bool, jobs: int
) -> list[FileResult]:
    """The results of `files`, in their order. The project's modules trace each other's
    functions: every file, and every project file whose traced code may reach one of them, is
    analysed with the traces found so far, and again while the traces it receives change
    (`TraceRounds`). Fixes are applied once those hold. The worker processes (if the first
    round starts them) serve every round and the fixes."""
    # Files are neither made nor moved under one run (`--watch` checks again when they are).
    with contextlib.nullcontext() if _WATCHING[0] else file_system_trusted():
        return _check_paths(files, settings, fix, unsafe, jobs)


def _check_paths(
    files: list[str], settings: Settings, fix: FixMode, unsafe: bool, jobs: int
) -> list[FileResult]:
    workspace = _workspace(settings)
    rounds = TraceRounds()
    reported = set(files)
    results: dict[str, FileResult] = {}
    with Workers(jobs, _PARALLEL_THRESHOLD) as workers:
        # Every module's importers are asked first: the project's files are read for their
        # imports on the workers (which start with that batch), in this process if few.
        workspace.read_ahead(files, partial(_map_reads, workers))
        pending = workspace.importers_first([*files, *workspace.tracing_files(files)])
        # Each worker is given whole groups of modules linked by imports: the modules a module
        # imports, read for its analysis, are then mostly its worker's own, read once.
        groups = workspace.linked_groups(pending) if workers.jobs > 1 else {}
        while pending:
            analysed = _analyse(pending, settings, None, unsafe, workers, rounds, reported, groups)
            for result in analysed:
                rounds.record(result.path, result.gives, result.given)
                if result.path in reported:
                    results[result.path] = result
            # Files given objects of analysed modules' classes by the traces found may trace
            # their methods: analysed for the traces they give (none unseen: `check .`).
            pending = workspace.importers_first([*rounds.to_redo(), *rounds.receivers()])
        if fix:
            fixable = [path for path in files if any(f.fix for f in results[path].findings)]
            fixed = _analyse(fixable, settings, fix, unsafe, workers, rounds, reported, groups)
            for result in fixed:
                results[result.path] = result
    return [results[path] for path in files]


def _analyse(
    files: list[str],
    settings: Settings,
    fix: FixMode,
    unsafe: bool,
    workers: Workers,
    rounds: TraceRounds,
    reported: set[str],
    groups: dict[str, int],
) -> list[FileResult]:
    """`check_file` of each file in their order, on `workers` once there are enough files
    (a module done before goes to the worker that did it; the others by their `groups`).
    Each process records into its own view of `rounds` as it goes; `rounds` itself learns
    from the results."""
    view = rounds.view()
    check = partial(check_file, settings=settings, fix=fix, unsafe=unsafe, rounds=view)
    # Each worker keeps this order within its groups: it sees the traces its modules give
    # before the modules they reach. Once done with a group, it analyses again those of the
    # group's modules that later ones gave other traces (an import cycle) instead of leaving
    # them to the next round, while the other worker is still busy.
    items = [(path, path in reported) for path in files]
    return workers.map(
        partial(_check_item, check),
        items,
        [_size(p) for p in files],
        _lost_item,
        _serially,
        [groups.get(path, -1) for path in files],
        None if fix else partial(_stale_items, view),
    )


def _map_reads(workers: Workers, read: Callable[[str], object], paths: list[str]) -> list:
    # Several files an item: an item costs a claim, a message and a wake-up of this process,
    # more than reading a file's imports does. One file an item below `_READ_ITEMS` files,
    # at least that many items above (more than the threshold: the workers start for as
    # many files as before). Each file alike: a file's size is one more system call here,
    # and the workers share out what is left of their runs at the end.
    size = max(1, len(paths) // _READ_ITEMS)
    batches = [tuple(paths[start : start + size]) for start in range(0, len(paths), size)]
    found = workers.map(partial(_read_each, read), batches, list(map(len, batches)), _unread)
    return [result for batch in found for result in batch]


_READ_ITEMS = 2 * _PARALLEL_THRESHOLD


def _read_each(read: Callable[[str], object], paths: tuple[str, ...]) -> list:
    return [read(path) for path in paths]


def _unread(paths: tuple[str, ...], reason: str) -> list[None]:
    return [None] * len(paths)  # read again where they are asked for


def _serially(
    check: Callable[[tuple[str, bool]], FileResult], items: Sequence[tuple[str, bool]]
) -> list[FileResult]:
    results = []
    for done, item in enumerate(items, 1):
        results.append(check(item))
        collect_after_item(done)
    return results


def _check_item(check: Callable[..., FileResult], item: tuple[str, bool]) -> FileResult:
    path, reported = item
    return check(path, reported=reported)


def _stale_items(rounds: TraceRounds, done: list[tuple[str, bool]]) -> list[int]:
    """The positions of the files of `done` that `rounds` (a worker's view) now gives other
    traces than they were analysed with."""
    return [position for position, (path, _) in enumerate(done) if rounds.stale(path)]


def _lost_item(item: tuple[str, bool], reason: str) -> FileResult:
    return _lost(item[0], reason)


_SEVERITY_RANK = {Severity.INFO: 0, Severity.WARNING: 1, Severity.ERROR: 2}


def _settings(args: argparse.Namespace, paths: list[Path]) -> Settings:
    settings = load_settings(paths[0], Path(args.config) if args.config else None)
    settings = settings.with_command_line(
        _split(args.select), _split(args.extend_select), _split(args.ignore)
    )
    overrides: dict[str, object] = {}
    if args.extend_exclude:
        overrides["extend-exclude"] = [*settings.extend_exclude, *_split(args.extend_exclude)]
    if args.respect_gitignore is not None:
        overrides["respect-gitignore"] = args.respect_gitignore
    if args.unsafe_fixes is not None:
        overrides["unsafe-fixes"] = args.unsafe_fixes
    return settings.merged(overrides)


def _split(codes: str | None) -> list[str]:
    return [code for code in codes.split(",") if code.strip()] if codes else []


def _report_problems(results: list[FileResult]) -> tuple[int, int, bool]:
    """Each file's problems on stderr: (files that could not be checked, files whose fixes
    could not be written, any problem)."""
    unchecked, unwritten, failed = 0, 0, False
    for result in results:
        shown = display_path(result.path)
        if result.error:
            print(f"jax-lsp: {shown}: {result.error}", file=sys.stderr)
            unchecked += 1
        if result.fix_error:
            print(f"jax-lsp: {shown}: {result.fix_error}", file=sys.stderr)
            unwritten += 1
        elif result.syntax_error:  # reported with the findings (`SYNTAX_ERROR`)
            failed = True
        for code, error in result.rule_failures.items():
            print(f"jax-lsp: {shown}: rule {code} failed: {error}", file=sys.stderr)
            failed = True
    return unchecked, unwritten, failed or bool(unchecked or unwritten)


def check_once(args: argparse.Namespace) -> int:
    """One `jax-lsp check` run: the exit status."""
    paths = [Path(p) for p in args.paths] or [Path(".")]
    for path in paths:
        if not path.exists():
            print(f"jax-lsp: error: {path}: no such file or directory", file=sys.stderr)
            return EXIT_USAGE
    try:
        settings = _settings(args, paths)
    except ConfigError as error:
        for problem in str(error).splitlines():  # one line each (an unknown key each)
            print(f"jax-lsp: error: {problem}", file=sys.stderr)
        return EXIT_USAGE
    files = [str(path) for path in iter_python_files(paths, settings)]
    if not files and not args.quiet:
        # As ruff says it: an empty folder, or one whose files are all excluded, is not clean.
        print("warning: No Python files found under the given path(s)", file=sys.stderr)
    jobs = args.jobs or available_cores()
    mode = "diff" if args.diff else "write" if args.fix else None
    results = check_paths(files, settings, mode, settings.unsafe_fixes, jobs)
    unchecked, unwritten, failed = _report_problems(results)
    if args.diff:
        return _report_diffs(results, unchecked, unwritten)
    output_format = args.output_format or ("full" if sys.stdout.isatty() else "concise")
    entries = [
        Entry(r.path, f, cell, line, noqa)
        for r in results
        for f, cell, line, noqa in zip(r.findings, r.cells, r.lines, r.noqa_lines, strict=True)
    ]
    options = ReportOptions(
        statistics=args.statistics,
        fixed=sum(r.fixed for r in results),
        unchecked=unchecked,
        unwritten=unwritten,
        unsafe=settings.unsafe_fixes,
        color=use_color(sys.stdout),
        show_source=output_format == "full",
        quiet=args.quiet,
        fixing=bool(args.fix),
    )
    output = FORMATTERS[output_format](entries, options)
    if output:
        sys.stdout.write(output)
    if args.exit_zero:
        return EXIT_CLEAN
    threshold = _SEVERITY_RANK[Severity(args.exit_non_zero_on)]
    failing = any(_SEVERITY_RANK[e.finding.severity] >= threshold for e in entries)
    return EXIT_FINDINGS if failing or failed else EXIT_CLEAN


def _report_diffs(results: list[FileResult], unchecked: int, unwritten: int) -> int:
    """`--diff`: what `--fix` would change, nothing written; 1 if it would change anything."""
    diffs = [r.diff for r in results if r.diff]
    sys.stdout.write("".join(diffs))
    would_fix = sum(r.fixed for r in results)
    if would_fix:
        print(f"Would fix {would_fix} finding{'s' if would_fix != 1 else ''}.", file=sys.stderr)
    if unwritten:
        files = f"{unwritten} file{'s' if unwritten != 1 else ''}"
        print(f"Fixes could not be applied to {files}.", file=sys.stderr)
    if unchecked:
        files = f"{unchecked} file{'s' if unchecked != 1 else ''}"
        print(f"{files} could not be checked.", file=sys.stderr)
    return EXIT_FINDINGS if diffs or unchecked or unwritten else EXIT_CLEAN


def run_check(args: argparse.Namespace) -> int:
    """`jax-lsp check`: the exit status (with `--watch`, of the last run before an interrupt)."""
    tune_gc_for_batch()  # a one-shot batch: the process (and its workers) ends with the check
    if not args.watch:
        return check_once(args)
    _WATCHING[0] = True
    try:
        import watchfiles
    except ImportError:
        print(
            "jax-lsp: error: --watch needs the `watchfiles` package: "
            "pip install watchfiles (or the `watch` extra)",
            file=sys.stderr,
        )
        return EXIT_USAGE
    status = check_once(args)
    # Absolute: watchfiles' thread adds watches for new folders while `check` may briefly be in
    # another working directory (`parallel`, starting spawned workers).
    paths = [os.path.abspath(p) for p in args.paths or ["."]]
    print("Watching for file changes.", flush=True)
    for changes in watchfiles.watch(*paths, watch_filter=_watched, raise_interrupt=False):
        print("File change detected: checking again.", flush=True)
        changed = [path for _, path in changes]
        for workspace in _WORKSPACES.values():  # what it read from them is read again
            workspace.files_changed(changed)
            workspace.drop_stale()
        status = check_once(args)
        sys.stdout.flush()
    return status


def _watched(change: object, path: str) -> bool:
    return path.endswith((".py", ".pyi", ".ipynb", "pyproject.toml", ".gitignore", ".ignore"))

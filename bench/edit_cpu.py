"""CPU per edit, in-process: what `bench/latency.py`'s edits cost the server's analysis path,
timed with `time.process_time` in one process instead of across two (steadier on a shared
machine than the round trip, and comparable between versions of the code).

Run `python bench/edit_cpu.py [--edits 30] [--kind code] [--only NAME] [--tree PATH]
[--profile cumulative|tottime] [--instructions]`. For each of `latency.py`'s files the script
does what the server does on `didChange`: the open document (`lsp.documents`) takes the same
incremental edit `latency.py` sends, and the engine thread's `check` analyses it with the
server's own `Workspace` (open documents' text, the project's traces; rooted at the file's
folder, as `latency.py` starts the server there), then the findings become diagnostics. The garbage
collector is held during each edit, as the server holds it until the diagnostics are out.
Reported: the cold first analysis, and the median, fastest and 90th percentile CPU
milliseconds of the measured edits (after `latency.WARMUP`); `--profile` adds cProfile's view of
the measured edits.

`--tree PATH` analyses with the `jax_lsp` of another checkout (another commit's worktree):
the same edits, for a side-by-side figure (run it once per tree, taking turns).

`--instructions` counts instead of timing: each file's run is repeated under `valgrind
--tool=callgrind`, which counts only inside the measured edits' analyses (called through
`sys.call_tracing`, the function callgrind is told to toggle on), so the figure (millions of
instructions per edit) does not depend on the machine's load and compares commits exactly. The
clock the analysis reads (`time.monotonic`: it trusts a file read within the last second) moves
30 ms per edit there, as between an editor's keystrokes, whatever valgrind's slowness.
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import io
import pstats
import statistics
import sys
import time
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make `bench` importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import callgrind
from bench.corpus import ensure_corpus
from bench.latency import FILES, SUFFIXES, WARMUP, _utf16_length, edit_lines

_PAUSE_SECONDS = 0.03  # between two keystrokes, on the clock `--instructions` runs give
_CALLGRIND_FLAG = "--counted-by-callgrind"  # the run under valgrind (internal)


def measure(
    path: Path,
    edits: int,
    kind: str,
    profile: cProfile.Profile | None,
    counted: bool = False,
) -> dict:
    from lsprotocol import types
    from pygls.uris import from_fs_path

    from jax_lsp.lsp.conversion import to_diagnostic
    from jax_lsp.lsp.crossmodule import CrossModuleFacts
    from jax_lsp.lsp.documents import DocumentStore
    from jax_lsp.lsp.engine_thread import EngineThread
    from jax_lsp.lsp.settings import SettingsStore

    text = path.read_text(encoding="utf-8")
    documents = DocumentStore()
    cross = CrossModuleFacts(documents)
    root = str(path.parent)
    cross.workspace.root = root  # as `initialize` sets it
    engine = EngineThread(cross.workspace)
    uri = from_fs_path(str(path))
    document = documents.open(types.TextDocumentItem(uri, "python", 0, text))
    settings = SettingsStore(root).for_path(document.path)

    def analyse() -> list:
        if counted:
            _PAUSED[0] += _PAUSE_SECONDS
        lines = document.split_already()
        analysis = engine.check(uri, document.text, document.path, settings, None, lines)
        parsed = analysis.document.lines
        return [
            to_diagnostic(f, parsed, "utf-16", document.version, uri) for f in analysis.findings
        ]

    started = time.process_time()
    analyse()
    cold = time.process_time() - started
    seconds = []
    for index, line in enumerate(edit_lines(text, edits + WARMUP, kind)):
        suffix = SUFFIXES[kind].format(index=index)
        at = types.Position(line, _utf16_length(document.lines[line]))
        change = types.TextDocumentContentChangePartial(types.Range(at, at), suffix)
        measured = index >= WARMUP
        gc.disable()
        if profile is not None and measured:
            profile.enable()
        started = time.process_time()
        document.apply([change], (document.version or 0) + 1, "utf-16")
        if counted and measured:
            sys.call_tracing(analyse, ())  # what callgrind counts
        else:
            analyse()
        spent = time.process_time() - started
        if profile is not None and measured:
            profile.disable()
        gc.enable()
        if measured:
            seconds.append(spent)
    ms = sorted(1000 * s for s in seconds)
    return {
        "cold_ms": 1000 * cold,
        "median_ms": statistics.median(ms),
        "min_ms": ms[0],
        "p90_ms": ms[round(0.9 * (len(ms) - 1))],
    }


_PAUSED = [1000.0]  # the clock of a counted run


def instructions(name: str, edits: int, kind: str, tree: str | None) -> float:
    """Millions of instructions per measured edit of `name`, counted by callgrind."""
    arguments = [__file__, _CALLGRIND_FLAG, f"--only={name}", f"--edits={edits}", f"--kind={kind}"]
    arguments += [f"--tree={tree}"] if tree else []
    return callgrind.count_instructions(arguments, "sys_call_tracing") / edits / 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--edits", type=int, default=30, help="measured edits per file")
    parser.add_argument("--kind", choices=sorted(SUFFIXES), default="code")
    parser.add_argument("--only", default="", help="the files whose path holds this")
    parser.add_argument("--tree", help="a checkout whose jax_lsp to measure")
    parser.add_argument("--profile", help="cProfile sort key (cumulative, tottime, ...)")
    parser.add_argument("--top", type=int, default=40, help="profile lines shown")
    parser.add_argument(
        "--instructions", action="store_true", help="count instructions (valgrind) instead"
    )
    parser.add_argument(_CALLGRIND_FLAG, action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    corpus = ensure_corpus()
    if args.tree:
        sys.path.insert(0, str(Path(args.tree).resolve()))
    counted = getattr(args, _CALLGRIND_FLAG.strip("-").replace("-", "_"))
    if counted:
        time.monotonic = lambda: _PAUSED[0]
    import jax_lsp

    if not counted:
        print(f"jax_lsp: {Path(jax_lsp.__file__).parent}")
    for name in FILES:
        if args.only not in name:
            continue
        if counted:
            measure(corpus.root / name, args.edits, args.kind, None, counted=True)
            continue
        if args.instructions:
            count = instructions(name, args.edits, args.kind, args.tree)
            print(f"{name:<48} {count:8.2f} M instructions per edit")
            continue
        profile = cProfile.Profile() if args.profile else None
        figures = measure(corpus.root / name, args.edits, args.kind, profile)
        print(
            f"{name:<48} cold {figures['cold_ms']:7.1f} ms   edit CPU median "
            f"{figures['median_ms']:6.2f} ms  min {figures['min_ms']:6.2f}  "
            f"p90 {figures['p90_ms']:6.2f}"
        )
        if profile is not None:
            out = io.StringIO()
            pstats.Stats(profile, stream=out).sort_stats(args.profile).print_stats(args.top)
            print(out.getvalue())


if __name__ == "__main__":
    main()

"""Analysis time of one real ~2,000-line module: parse, analysis, and re-analysis after an edit.

Run `python bench/analysis_time.py [--file PKG/PATH] [--runs 21] [--profile]`.
- parse: `Document(text)` with every cache cleared (splitting into units and parsing them);
- analysis: `analyze(document)` right after, cold (model + all rules); the target is at most
  30 ms median;
- edit: a one-line edit inside one function of an already analysed text, analysed as the
  server does (`Document(edited, previous=...)`): unchanged units and module facts come from
  caches;
- statement: a new module-level statement near the end, the same way: what typing in a script
  or a notebook does (a new module-level name);
- code: `; pass` appended to a statement in a function body, the same way: what typing code in
  a function (or a method of a long class) does.
With `--script 90`, the same for a script of 90 copies of a notebook cell (1,802 lines of
module-level code and small jitted functions) instead of a corpus file.
With `--profile`, cProfile's hot spots of the cold analysis. With `--instructions`, the
machine instructions one cold analysis executes, counted by valgrind's callgrind: a figure that
does not move with the machine's load (its speed on a shared machine varies 1.5x minute to
minute), for comparing two versions of the code; `--edit-instructions` counts one edit of
each kind the same way.
"""

from __future__ import annotations

import argparse
import cProfile
import functools
import gc
import json
import os
import pstats
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make `bench` and `jax_lsp` importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import callgrind
from bench.corpus import REPO_ROOT, ensure_corpus
from bench.latency import edit_lines
from jax_lsp.analysis.document import Document, clear_caches
from jax_lsp.diagnostics import ALL_RULES
from jax_lsp.engine import analyze

RESULTS = REPO_ROOT / "bench" / "results"
DEFAULT_FILE = "numpyro/numpyro/distributions/discrete.py"  # 2,139 lines of jnp-heavy code


def _ms(samples: list[tuple[float, float]]) -> dict[str, float]:
    """Wall-clock median, p95 and min, and the median of the process's CPU time.

    On a shared machine the CPU time is the steadier figure: waiting for a core is not in it.
    """
    wall = sorted(w for w, _ in samples)
    return {
        "median_ms": 1000 * statistics.median(wall),
        "p95_ms": 1000 * wall[min(len(wall) - 1, round(0.95 * (len(wall) - 1)))],
        "min_ms": 1000 * wall[0],
        "cpu_median_ms": 1000 * statistics.median(c for _, c in samples),
    }


def _timed(action: Callable[[], object]) -> tuple[tuple[float, float], object]:
    """((wall seconds, CPU seconds), result) of one call."""
    cpu, wall = time.process_time(), time.perf_counter()
    result = action()
    return (time.perf_counter() - wall, time.process_time() - cpu), result


def edit_line(text: str, nth: int) -> str:
    """The text with a comment appended to a statement line deep inside a function body."""
    lines = text.split("\n")
    body = [i for i, line in enumerate(lines) if line.startswith("        ") and line.strip()]
    target = body[len(body) // 2]
    lines[target] += f"  # edit {nth}"
    return "\n".join(lines)


def add_statement(text: str, nth: int) -> str:
    """The text with a new module-level statement before its last top-level line: what
    typing in a script or a notebook does (it adds a module-level name)."""
    lines = text.split("\n")
    top = [i for i, line in enumerate(lines) if line and not line[0].isspace()]
    lines.insert(top[-1] if top else len(lines), f"added_{nth} = {nth}")
    return "\n".join(lines)


@functools.lru_cache(maxsize=4)
def _code_line(text: str) -> int:
    """The middle of the lines `latency.py --kind code` edits (tokenized once per text: the
    edit itself is measured)."""
    candidates = edit_lines(text, 9, "code")
    return candidates[len(candidates) // 2]


def edit_code(text: str, nth: int) -> str:
    """The text with `; _ = nth` appended to a simple statement in a function body: each edit
    changes the code of one function (a method, in a class), as typing code does, and every
    version's text is new (a text seen before would take its cached parse and findings)."""
    lines = text.split("\n")
    lines[_code_line(text)] += f"; _ = {nth}"
    return "\n".join(lines)


EDITS = {"edit": edit_line, "statement": add_statement, "code": edit_code}

# One notebook cell: jitted functions, then module-level code using them (`--script`).
SCRIPT_CELL = """\
import jax
import jax.numpy as jnp


@jax.jit
def huber(x, delta=1.0):
    return jnp.where(jnp.abs(x) < delta, 0.5 * x ** 2, delta * (jnp.abs(x) - 0.5 * delta))


@jax.jit
def histogram(idx):
    counts = jnp.zeros(4, dtype=jnp.int32)
    for i in range(idx.shape[0]):
        counts = counts.at[idx[i]].add(1)
    return counts


key = jax.random.PRNGKey(0)
key, k1, k2 = jax.random.split(key, 3)
a = jax.random.normal(k1, (3,))
b = jax.random.normal(k2, (3,))
print(huber(0.3), histogram(jnp.array([0, 1])), a, b)
"""


def script_text(cells: int) -> str:
    """A script (a notebook exported) of `cells` copies of one cell, each defining its own
    functions and rebinding the same module-level names: what typing a new statement costs
    where every unit is module-level code."""
    parts = []
    for i in range(cells):
        cell = SCRIPT_CELL.replace("huber", f"huber{i}").replace("histogram", f"histogram{i}")
        parts.append(cell if i == 0 else "\n".join(cell.splitlines()[2:]) + "\n")
    return "".join(parts)


def measure(text: str, runs: int) -> dict[str, dict[str, float]]:
    parse, analysis = [], []
    for _ in range(runs):
        clear_caches()
        gc.collect()
        seconds, document = _timed(lambda: Document(text))
        parse.append(seconds)
        analysis.append(_timed(lambda document=document: analyze(document, ALL_RULES))[0])
    figures = {"parse": _ms(parse), "analysis": _ms(analysis)}
    for step, make in EDITS.items():
        # As the server does: each version is built from the previous one's facts.
        previous = Document(text)
        analyze(previous, ALL_RULES)
        samples = []
        for nth in range(runs):
            seconds, previous = _timed(
                lambda nth=nth, previous=previous, make=make: Document(
                    make(text, nth), previous=previous
                )
            )
            analysed = _timed(lambda document=previous: analyze(document, ALL_RULES))[0]
            samples.append((seconds[0] + analysed[0], seconds[1] + analysed[1]))
        figures[step] = _ms(samples)
    return figures


def profile(text: str, runs: int, top: int) -> None:
    profiler = cProfile.Profile()
    for _ in range(runs):
        clear_caches()
        document = Document(text)
        profiler.enable()
        analyze(document, ALL_RULES)
        profiler.disable()
    stats = pstats.Stats(profiler).strip_dirs().sort_stats("tottime")
    stats.print_stats(top)


def count_instructions(path: Path, step: str | None = None, edits: int = 4) -> float:
    """Instructions of one cold analysis of `path` (after two warm-up analyses: imports and
    first-use caches are not counted), or with `step`, of one edit of that kind on the
    server's path (the mean of `edits`, after two warm-up edits), under callgrind."""
    child = ["--one-cold-analysis"] if step is None else [f"--edits={step}:{edits}"]
    # Counted inside functools.reduce, which the measured child calls once.
    total = callgrind.count_instructions([__file__, *child, str(path)], "functools_reduce")
    return total / (1 if step is None else edits)


def one_cold_analysis(path: Path) -> None:
    """The child of `count_instructions`: warm up, then one cold analysis inside reduce."""
    text = path.read_text(encoding="utf-8")
    for _ in range(2):
        clear_caches()
        analyze(Document(text), ALL_RULES)
    clear_caches()
    document = Document(text)
    functools.reduce(lambda _, __: analyze(document, ALL_RULES), [0, 0])


def measured_edits(path: Path, step: str, count: int) -> None:
    """The child of `count_instructions` for edits: a cold analysis and two warm-up edits,
    then `count` edits inside reduce, each version built from the previous one."""
    text = path.read_text(encoding="utf-8")
    versions = [Document(text)]
    analyze(versions[0], ALL_RULES)

    def edit(nth: int) -> None:
        versions.append(Document(EDITS[step](text, nth), previous=versions[-1]))
        analyze(versions[-1], ALL_RULES)

    edit(1000)
    edit(1001)
    functools.reduce(lambda _, nth: edit(nth), range(count + 1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--file", default=DEFAULT_FILE, help="path under bench/.cache/corpus")
    parser.add_argument("--runs", type=int, default=21)
    parser.add_argument(
        "--script",
        type=int,
        metavar="CELLS",
        help="measure a script of CELLS copies of a notebook cell instead (90: 1,802 lines)",
    )
    parser.add_argument("--profile", action="store_true", help="print cProfile hot spots")
    parser.add_argument(
        "--instructions", action="store_true", help="count one cold analysis's instructions"
    )
    parser.add_argument(
        "--edit-instructions",
        action="store_true",
        help="count the instructions of one edit of each kind (comment, new statement, code)",
    )
    parser.add_argument("--one-cold-analysis", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--edits", help=argparse.SUPPRESS)
    parser.add_argument("child_path", nargs="?", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one_cold_analysis:
        one_cold_analysis(args.one_cold_analysis)
        return
    if args.edits:
        step, count = args.edits.split(":")
        measured_edits(args.child_path, step, int(count))
        return
    if args.script:
        path = Path(tempfile.mkdtemp()) / "script.py"
        path.write_text(script_text(args.script), encoding="utf-8")
        args.file = f"a script of {args.script} cells"
    else:
        path = ensure_corpus().root / args.file
    if args.instructions:
        print(f"{args.file}: {count_instructions(path) / 1e6:.1f} M instructions (callgrind)")
        return
    if args.edit_instructions:
        for step in EDITS:
            count = count_instructions(path, step) / 1e6
            print(f"{args.file}: {step}: {count:.1f} M instructions per edit (callgrind)")
        return
    text = path.read_text(encoding="utf-8")
    line_count = text.count("\n")
    if args.profile:
        profile(text, args.runs, top=25)
        return
    figures = measure(text, args.runs)
    print(f"{args.file}: {line_count} lines, {len(ALL_RULES)} rules, {args.runs} runs")
    print(f"{'step':<10}{'median ms':>10}{'p95 ms':>8}{'min ms':>8}{'CPU median ms':>15}")
    for step, row in figures.items():
        print(
            f"{step:<10}{row['median_ms']:>10.1f}{row['p95_ms']:>8.1f}{row['min_ms']:>8.1f}"
            f"{row['cpu_median_ms']:>15.1f}"
        )
    RESULTS.mkdir(parents=True, exist_ok=True)
    record = {
        "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "load_average_1min": os.getloadavg()[0],
        **{"file": args.file, "lines": line_count, "rules": len(ALL_RULES)},
        **figures,
    }
    (RESULTS / "analysis-time.json").write_text(json.dumps(record, indent=1) + "\n", "utf-8")


if __name__ == "__main__":
    main()

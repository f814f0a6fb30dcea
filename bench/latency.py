"""Editor latency: didChange-to-publishDiagnostics and the code-action round trip, jax-lsp
against `ruff server`, on the same edits of real corpus files, in one run.

Run `python bench/latency.py [--edits 20] [--plot]`. For each file both servers are started
side by side; each edit (a comment appended to a statement line inside a function, a different
line each time, sent as an incremental didChange; with `--kind code` a `; pass` instead, which
changes the code but no diagnostic) goes to jax-lsp, then to ruff, and the time
until each publishes diagnostics for that version is recorded, then the time of a
`textDocument/codeAction` request on the edited line. The first edits are warm-up. Also
recorded: seconds from spawning each server to its first diagnostics on each file, and the
CPU seconds the server used by then (medians of `--startup-runs` fresh starts). jax_lsp is
byte-compiled first, as `pip install` does, so the server starts as installed even where
PYTHONDONTWRITEBYTECODE is set.
Results: `results/latency.json`, and with `--plot` `results/latency.png` (needs matplotlib).
`--startup-only` measures the starts alone (`results/startup.json`).
"""

from __future__ import annotations

import argparse
import compileall
import io
import json
import os
import shutil
import statistics
import sys
import tokenize
from collections.abc import Sequence
from datetime import datetime, timezone
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make `bench` and `jax_lsp` importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.corpus import REPO_ROOT, ensure_corpus
from bench.lsp_client import LspClient

RESULTS = REPO_ROOT / "bench" / "results"
# About 200, 1,000 and 4,000 lines of real code: an edit's fixed costs show on the small file,
# its costs per unit and per line on the large one.
FILES = (
    "diffrax/diffrax/_solution.py",
    "numpyro/numpyro/distributions/constraints.py",
    "flax/flax/nnx/graphlib.py",
)
WARMUP = 3


def servers() -> dict[str, list[str]]:
    ruff = shutil.which("ruff", path=str(Path(sys.executable).parent)) or "ruff"
    return {
        "jax-lsp": [sys.executable, "-m", "jax_lsp", "serve"],
        "ruff": [ruff, "server"],
    }


# What each kind of edit appends to a line: a comment changes no code; `; pass` changes the
# code (the statement's tree), not what it does.
SUFFIXES = {"comment": "  # edit {index}", "code": "; pass"}


def edit_lines(text: str, count: int, kind: str = "comment") -> list[int]:
    """`count` 0-based lines, spread over the file, that end a logical line inside a
    function body (indented 8+): appending a comment there never changes the code. For
    `code` edits, only lines that end a simple statement and hold no comment (`; pass` after
    a header, a decorator or inside a comment would not be a code edit)."""
    ends = []
    lines = text.split("\n")
    for token in tokenize.generate_tokens(io.StringIO(text).readline):
        if token.type == tokenize.NEWLINE:
            row = token.start[0] - 1
            line = lines[row]
            if not line.startswith("        ") or token.start[1] != len(line.rstrip()):
                continue
            if kind == "code" and (
                "#" in line or line.rstrip().endswith(":") or line.lstrip().startswith("@")
            ):
                continue
            ends.append(row)
    if not ends:
        raise ValueError("no editable line")
    return [ends[(i * len(ends)) // count] for i in range(count)]  # repeats in small files


def _utf16_length(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


class Session:
    """One server with one open document, edited in place."""

    def __init__(self, name: str, command: list[str], path: Path, text: str) -> None:
        env = {"PYTHONPATH": str(REPO_ROOT)}
        self.name = name
        self.client = LspClient(command, cwd=path.parent, env=env)
        self.client.initialize(path.parent)
        self.lines = text.split("\n")
        self.uri = self.client.open(path, text)
        arrived, message = self.client.wait_for("textDocument/publishDiagnostics", self.uri)
        self.startup = arrived - self.client.started
        self.startup_cpu = self.client.cpu_seconds()
        self.version = 0
        self.diagnostics = message["params"]["diagnostics"]

    def edit(self, line: int, suffix: str) -> float:
        """Append `suffix` to `line`; seconds until diagnostics of the new version arrive."""
        self.version += 1
        column = _utf16_length(self.lines[line])
        self.lines[line] += suffix
        position = {"line": line, "character": column}
        self.client.drain()
        sent = self.client.notify(
            "textDocument/didChange",
            {
                "textDocument": {"uri": self.uri, "version": self.version},
                "contentChanges": [{"range": {"start": position, "end": position}, "text": suffix}],
            },
        )
        while True:
            arrived, message = self.client.wait_for("textDocument/publishDiagnostics", self.uri)
            version = message["params"].get("version")
            if version is None or version == self.version:
                self.diagnostics = message["params"]["diagnostics"]
                return arrived - sent

    def code_action(self, line: int) -> float:
        end = {"line": line, "character": _utf16_length(self.lines[line])}
        on_line = [d for d in self.diagnostics if d["range"]["start"]["line"] == line]
        seconds, _ = self.client.request(
            "textDocument/codeAction",
            {
                "textDocument": {"uri": self.uri},
                "range": {"start": {"line": line, "character": 0}, "end": end},
                "context": {"diagnostics": on_line},
            },
        )
        return seconds


def _summary(seconds: list[float]) -> dict[str, float]:
    ms = sorted(1000 * s for s in seconds)
    return {
        "median_ms": statistics.median(ms),
        "p95_ms": ms[min(len(ms) - 1, round(0.95 * (len(ms) - 1)))],
        "min_ms": ms[0],
        "n": len(ms),
    }


def startup_medians(path: Path, text: str, count: int, first: Sequence[Session] = ()) -> dict:
    """Median seconds from spawn to the first diagnostics, and CPU seconds by then, per
    server over `count` starts (the `first` sessions, one per server, count as one)."""
    starts: dict[str, list[tuple[float, float]]] = {name: [] for name in servers()}
    for session in first:
        starts[session.name].append((session.startup, session.startup_cpu))
    for _ in range(count - (1 if first else 0)):
        for name, command in servers().items():
            session = Session(name, command, path, text)
            session.client.close()
            starts[name].append((session.startup, session.startup_cpu))

    def medians(index: int) -> dict[str, float]:
        return {name: statistics.median(r[index] for r in runs) for name, runs in starts.items()}

    return {"startup_s": medians(0), "startup_cpu_s": medians(1)}


def measure_file(path: Path, edits: int, startup_runs: int, kind: str = "comment") -> dict:
    text = path.read_text(encoding="utf-8")
    sessions = [Session(name, command, path, text) for name, command in servers().items()]
    samples: dict[str, dict[str, list[float]]] = {
        s.name: {"diagnostics": [], "code_action": []} for s in sessions
    }
    try:
        for index, line in enumerate(edit_lines(text, edits + WARMUP, kind)):
            for session in sessions:  # the same edit, one server after the other
                diagnostics = session.edit(line, SUFFIXES[kind].format(index=index))
                action = session.code_action(line)
                if index >= WARMUP:
                    samples[session.name]["diagnostics"].append(diagnostics)
                    samples[session.name]["code_action"].append(action)
    finally:
        for session in sessions:
            session.client.close()
    return {
        "lines": text.count("\n") + 1,
        **startup_medians(path, text, startup_runs, sessions),
        **{
            name: {kind: _summary(values) for kind, values in per.items()}
            for name, per in samples.items()
        },
    }


def plot(record: dict, output: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(figsize=(6.5, 4))
    files = sorted(record["files"].values(), key=lambda f: f["lines"])
    for name, style in (("jax-lsp", "o-"), ("ruff", "s--")):
        sizes = [f["lines"] for f in files]
        medians = [f[name]["diagnostics"]["median_ms"] for f in files]
        p95 = [f[name]["diagnostics"]["p95_ms"] for f in files]
        axes.plot(sizes, medians, style, label=f"{name} median")
        axes.fill_between(sizes, medians, p95, alpha=0.15)
    target = [2 * f["ruff"]["diagnostics"]["median_ms"] for f in files]
    axes.plot([f["lines"] for f in files], target, ":", color="grey", label="target: 2x ruff")
    axes.set_xlabel("file size (lines)")
    axes.set_ylabel("didChange to publishDiagnostics (ms)")
    axes.set_xscale("log")
    axes.set_yscale("log")
    axes.set_xticks([f["lines"] for f in files], [str(f["lines"]) for f in files])
    axes.minorticks_off()
    axes.set_title(f"Edit latency (median, shaded to p95), load {record['load_average_1min']:.1f}")
    axes.legend()
    figure.tight_layout()
    figure.savefig(output, dpi=110)


def measure_startup(root: Path, runs: int, record: dict) -> None:
    print(f"{'file':<48}{'lines':>6}  {'server':<8}{'startup s':>11}{'(CPU s)':>9}")
    for name in FILES:
        text = (root / name).read_text(encoding="utf-8")
        figures = {"lines": text.count("\n") + 1, **startup_medians(root / name, text, runs)}
        record["files"][name] = figures
        for server in servers():
            print(
                f"{name:<48}{figures['lines']:>6}  {server:<8}"
                f"{figures['startup_s'][server]:>11.2f}{figures['startup_cpu_s'][server]:>9.2f}"
            )
    record["load_average_1min_after"] = os.getloadavg()[0]
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "startup.json").write_text(json.dumps(record, indent=1) + "\n", "utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--edits", type=int, default=20, help="measured edits per file")
    parser.add_argument("--plot", action="store_true", help="write results/latency.png")
    parser.add_argument(
        "--startup-runs", type=int, default=5, help="fresh starts per server and file (median)"
    )
    parser.add_argument("--startup-only", action="store_true", help="no edits: starts only")
    parser.add_argument(
        "--kind", choices=sorted(SUFFIXES), default="comment", help="what each edit appends"
    )
    args = parser.parse_args()
    corpus = ensure_corpus()
    compileall.compile_dir(REPO_ROOT / "jax_lsp", quiet=1)
    record = {
        "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "load_average_1min": os.getloadavg()[0],
        "edits": 0 if args.startup_only else args.edits,
        "kind": args.kind,
        "startup_runs": args.startup_runs,
        "files": {},
    }
    if args.startup_only:
        measure_startup(corpus.root, args.startup_runs, record)
        return
    print(f"{'file':<48}{'lines':>6}  {'server':<8}{'diag median':>12}{'p95':>8}"
          f"{'action median':>15}{'p95':>8}{'startup s':>11}{'(CPU s)':>9}")  # fmt: skip
    for name in FILES:
        figures = measure_file(corpus.root / name, args.edits, args.startup_runs, args.kind)
        record["files"][name] = figures
        for server in servers():
            diagnostics, action = figures[server]["diagnostics"], figures[server]["code_action"]
            print(
                f"{name:<48}{figures['lines']:>6}  {server:<8}"
                f"{diagnostics['median_ms']:>12.1f}{diagnostics['p95_ms']:>8.1f}"
                f"{action['median_ms']:>15.1f}{action['p95_ms']:>8.1f}"
                f"{figures['startup_s'][server]:>11.2f}{figures['startup_cpu_s'][server]:>9.2f}"
            )
    record["load_average_1min_after"] = os.getloadavg()[0]
    RESULTS.mkdir(parents=True, exist_ok=True)
    name = "latency.json" if args.kind == "comment" else f"latency-{args.kind}.json"
    (RESULTS / name).write_text(json.dumps(record, indent=1) + "\n", "utf-8")
    if args.plot:
        plot(record, RESULTS / "latency.png")


if __name__ == "__main__":
    main()

"""Throughput: whole-process wall and CPU seconds of linters over the pinned corpus.

Run `python bench/throughput.py [--repeat 3]`. Each tool gets the same list of corpus .py
files on its command line and its default rules; the table shows the median of the runs.
CPU seconds are user + system time of the process and all its workers
(`resource.getrusage(RUSAGE_CHILDREN)` around each run). The `ast.parse` floor is one process
parsing every file: the least any Python-based checker has to do.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import time
from dataclasses import asdict, dataclass
from datetime import datetime, timezone
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make `bench` and `jax_lsp` importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.corpus import REPO_ROOT, ensure_corpus

RESULTS = REPO_ROOT / "bench" / "results"
_PARSE_FLOOR = (
    "import ast, sys\n"
    "for path in sys.argv[1:]:\n"
    "    with open(path, 'rb') as handle:\n"
    "        ast.parse(handle.read())\n"
)


@dataclass
class Timing:
    tool: str
    command: str
    wall: list[float]
    cpu: list[float]

    @property
    def wall_median(self) -> float:
        return statistics.median(self.wall)

    @property
    def cpu_median(self) -> float:
        return statistics.median(self.cpu)


def _ruff() -> list[str]:
    try:
        from ruff.__main__ import find_ruff_bin

        return [find_ruff_bin()]
    except ImportError:
        found = shutil.which("ruff")
        if found is None:
            raise SystemExit("ruff is not installed: pip install -e '.[bench]'") from None
        return [found]


def commands() -> dict[str, list[str]]:
    """Tool name -> command (the file list is appended)."""
    python = sys.executable
    return {
        "jax-lsp check": [python, "-m", "jax_lsp", "check", "--exit-zero"],
        "jax-lsp check --jobs 1": [python, "-m", "jax_lsp", "check", "--exit-zero", "--jobs", "1"],
        "flake8": [python, "-m", "flake8", "--isolated", "--exit-zero"],
        "ruff check --no-cache": [*_ruff(), "check", "--isolated", "--no-cache", "--exit-zero"],
        "ast.parse floor": [python, "-c", _PARSE_FLOOR],
    }


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def time_once(command: list[str], cwd: Path = REPO_ROOT) -> tuple[float, float]:
    """Wall and CPU seconds of one run (output discarded)."""
    cpu_before = _children_cpu()
    start = time.perf_counter()
    subprocess.run(command, cwd=cwd, stdout=subprocess.DEVNULL, check=True)
    wall = time.perf_counter() - start
    return wall, _children_cpu() - cpu_before


def _version(command: list[str]) -> str:
    program = command[:3] if command[1] == "-m" else command[:1]
    result = subprocess.run(
        [*program, "--version"], cwd=REPO_ROOT, capture_output=True, text=True, check=False
    )
    return result.stdout.strip().splitlines()[0] if result.stdout.strip() else "?"


def format_table(timings: list[Timing], lines: int) -> str:
    floor = next((t for t in timings if t.tool == "ast.parse floor"), None)
    out = [
        f"{'tool':<26}{'wall s':>9}{'CPU s':>9}{'klines/s':>10}{'x floor':>9}",
    ]
    for timing in timings:
        ratio = timing.wall_median / floor.wall_median if floor else float("nan")
        rate = lines / timing.wall_median / 1000
        out.append(
            f"{timing.tool:<26}{timing.wall_median:>9.2f}{timing.cpu_median:>9.2f}"
            f"{rate:>10.1f}{ratio:>9.2f}"
        )
    return "\n".join(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="runs per tool (median shown)")
    parser.add_argument("--only", action="append", help="only tools whose name contains this")
    args = parser.parse_args()
    corpus = ensure_corpus()
    files = [str(path) for path in corpus.files]
    tools = {
        name: command
        for name, command in commands().items()
        if not args.only or any(part in name for part in args.only)
    }
    time_once(tools.get("ast.parse floor", [sys.executable, "-c", _PARSE_FLOOR]) + files)  # warm
    timings = {name: Timing(name, " ".join(command[1:]), [], []) for name, command in tools.items()}
    load_before = os.getloadavg()
    for _ in range(args.repeat):  # round-robin, so a busy spell on a shared machine hits all
        for name, command in tools.items():
            wall, cpu = time_once(command + files)
            timings[name].wall.append(wall)
            timings[name].cpu.append(cpu)
            print(f"{name}: wall {wall:.2f} s, CPU {cpu:.2f} s", file=sys.stderr)
    load_after = os.getloadavg()
    print(f"{len(files)} files, {corpus.total_lines:,} lines, {os.cpu_count()} cores")
    print(format_table(list(timings.values()), corpus.total_lines))
    print(f"load average (1 min) before {load_before[0]:.2f}, after {load_after[0]:.2f}")
    RESULTS.mkdir(parents=True, exist_ok=True)
    record = {
        "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "machine": {"cores": os.cpu_count(), "platform": platform.platform(),
                    "python": platform.python_version(),
                    "load_average_1min": [load_before[0], load_after[0]]},
        "corpus": {"files": len(files), "lines": corpus.total_lines},
        "versions": {name: _version(command) for name, command in tools.items()
                     if "floor" not in name},
        "timings": [
            {**asdict(t), "wall_median": t.wall_median, "cpu_median": t.cpu_median}
            for t in timings.values()
        ],
    }  # fmt: skip
    (RESULTS / "throughput.json").write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()

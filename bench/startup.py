"""Start-up: seconds from spawning `jax-lsp serve` to its first diagnostics on a small file,
beside `ruff server` on the same file (the median of `--runs` fresh starts each, the servers
taking turns). What a JupyterLab user waits for on every page load, which starts a new server.

Run `python bench/startup.py [--runs 5] [--file examples/control_flow.py]`. Needs no corpus.
jax_lsp is byte-compiled first, as `pip install` does. Results: `results/startup-small.json`.
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import shutil
import statistics
import sys
import tempfile
from datetime import datetime, timezone
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make `bench` and `jax_lsp` importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.corpus import REPO_ROOT
from bench.latency import Session, servers

RESULTS = REPO_ROOT / "bench" / "results"


def first_diagnostics(path: Path, runs: int) -> dict[str, dict[str, float]]:
    """Per server: the median, lowest and highest seconds to the first diagnostics, and the
    median CPU seconds the server had used by then."""
    text = path.read_text(encoding="utf-8")
    # Opened from a folder of its own: the repository's settings exclude `examples/` from ruff.
    folder = Path(tempfile.mkdtemp(prefix="jax-lsp-startup-"))
    path = folder / path.name
    path.write_text(text, encoding="utf-8")
    starts: dict[str, list[tuple[float, float]]] = {name: [] for name in servers()}
    for _ in range(runs):
        for name, command in servers().items():
            session = Session(name, command, path, text)
            starts[name].append((session.startup, session.startup_cpu))
            session.client.close()
    shutil.rmtree(folder, ignore_errors=True)
    return {
        name: {
            "median_s": statistics.median(wall for wall, _ in figures),
            "min_s": min(wall for wall, _ in figures),
            "max_s": max(wall for wall, _ in figures),
            "cpu_median_s": statistics.median(cpu for _, cpu in figures),
        }
        for name, figures in starts.items()
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="fresh starts per server (median)")
    parser.add_argument(
        "--file", type=Path, default=REPO_ROOT / "examples" / "control_flow.py", help="opened"
    )
    parser.add_argument("--no-save", action="store_true", help="print only")
    args = parser.parse_args()
    compileall.compile_dir(REPO_ROOT / "jax_lsp", quiet=1)
    load = os.getloadavg()[0]
    figures = first_diagnostics(args.file.resolve(), args.runs)
    print(f"{'server':<10}{'median s':>10}{'min s':>8}{'max s':>8}{'CPU s':>8}")
    for name, row in figures.items():
        print(
            f"{name:<10}{row['median_s']:>10.3f}{row['min_s']:>8.3f}{row['max_s']:>8.3f}"
            f"{row['cpu_median_s']:>8.2f}"
        )
    if args.no_save:
        return
    record = {
        "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "file": str(args.file),
        "runs": args.runs,
        "load_average_1min": load,
        "load_average_1min_after": os.getloadavg()[0],
        "servers": figures,
    }
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "startup-small.json").write_text(json.dumps(record, indent=1) + "\n", "utf-8")


if __name__ == "__main__":
    main()

"""Memory: resident set size of the server after opening 500 corpus files through LSP.

Run `python bench/memory.py [--files 500]`. Each server (jax-lsp, and `ruff server` for
scale) is started, sent `didOpen` for the first N `.py` files of the corpus (sorted by path,
so the same files every run), and once diagnostics for every one of them have arrived, its
VmRSS is read from /proc (Linux). Also the RSS right after initialisation and the seconds
until the last file's diagnostics. Target: at most 200 MB for 500 files.
Results: `results/memory.json`.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make `bench` and `jax_lsp` importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.corpus import REPO_ROOT, ensure_corpus
from bench.latency import servers
from bench.lsp_client import LspClient

RESULTS = REPO_ROOT / "bench" / "results"


def measure(command: list[str], root: Path, files: list[Path], quiet: float) -> dict[str, float]:
    """RSS before and after opening `files`; waits for every file's diagnostics, or until the
    server has been silent for `quiet` seconds."""
    client = LspClient(command, cwd=root, env={"PYTHONPATH": str(REPO_ROOT)})
    try:
        client.initialize(root)
        time.sleep(0.5)  # let it settle after `initialized`
        idle = client.rss_mb()
        start = time.perf_counter()
        waiting = set()
        for path in files:
            waiting.add(client.open(path, path.read_text(encoding="utf-8")))
        try:
            while waiting:
                _, message = client.wait_for("textDocument/publishDiagnostics", timeout=quiet)
                waiting.discard(message["params"]["uri"])
        except TimeoutError:
            pass  # a server may never publish for some files (ruff: excluded by their config)
        return {
            "idle_rss_mb": idle,
            "rss_mb": client.rss_mb(),
            "seconds": time.perf_counter() - start,
            "files_published": len(files) - len(waiting),
        }
    finally:
        client.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=500)
    parser.add_argument("--only", choices=list(servers()), help="measure this server only")
    parser.add_argument("--quiet", type=float, default=60, help="give up after this silence (s)")
    args = parser.parse_args()
    corpus = ensure_corpus()
    files = corpus.files[: args.files]
    lines = sum(path.read_text(encoding="utf-8").count("\n") for path in files)
    record = {
        "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "load_average_1min": os.getloadavg()[0],
        "files": len(files),
        "lines": lines,
        "servers": {},
    }
    print(f"{len(files)} files, {lines:,} lines")
    print(f"{'server':<10}{'idle RSS MB':>12}{'RSS MB':>9}{'seconds':>9}{'published':>10}")
    for name, command in servers().items():
        if args.only and name != args.only:
            continue
        figures = measure(command, corpus.root, files, args.quiet)
        record["servers"][name] = figures
        print(
            f"{name:<10}{figures['idle_rss_mb']:>12.1f}{figures['rss_mb']:>9.1f}"
            f"{figures['seconds']:>9.1f}{figures['files_published']:>10}"
        )
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "memory.json").write_text(json.dumps(record, indent=1) + "\n", "utf-8")


if __name__ == "__main__":
    main()

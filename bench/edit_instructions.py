"""Instructions per edit: what `bench/latency.py`'s edits cost the real server, counted by
callgrind instead of timed, so that the figure does not depend on the machine's load.

Run `python bench/edit_instructions.py [--edits 10] [--kind code] [FILE ...]` (FILES: those of
`latency.py`). For each file and kind, the server (`jax-lsp serve`) runs twice under
`valgrind --tool=callgrind --instr-atstart=no`: it opens the file and takes `latency.WARMUP`
edits uninstrumented, then `callgrind_control -i on` starts counting, and the run makes either
N edits (the same lines and texts as `latency.py`, each waited for until its diagnostics
arrive) or none, then `-i off` ends the count before the server is shut down. Instructions per
edit = (count with N edits - count with none) / N: the difference leaves out what both runs
share (switching the count on and off, the idle event loop). PYTHONHASHSEED is fixed so that
both runs hash alike, and what valgrind's slowness would change in the server's work is set as
at full speed (`as_at_full_speed`), so that the count does not move with the machine's load.
`--actions`: each edit is followed by the `textDocument/codeAction` request `latency.py` sends
on the edited line (the server's whole work per edit there), reported as `with-actions` kinds.
Results: `results/edit-instructions.json`.

`--within MODULE:QUALNAME` (repeatable) counts, instead, the instructions spent inside one
function of the server per edit (its callees included), to see where an edit's instructions
go: the server is started through this script (`--serve-within`), which calls the function
through `sys.call_tracing`, and callgrind collects only inside that C function
(`--toggle-collect`). Functions are measured one at a time (a nested one would toggle the
collection off). Results: `results/edit-instructions-within.json`.
"""

from __future__ import annotations

import argparse
import importlib
import json
import math
import os
import re
import subprocess
import sys
import tempfile
import time
import types
from datetime import datetime, timezone
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make `bench` and `jax_lsp` importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.corpus import REPO_ROOT, ensure_corpus
from bench.latency import FILES, SUFFIXES, WARMUP, Session, edit_lines
from bench.lsp_client import LspClient

RESULTS = REPO_ROOT / "bench" / "results"
_PAUSE_SECONDS = 0.03  # between two keystrokes, on the clock the analysis reads
# "totals", not "summary": the summary reads 0 once the count was switched off before the end.
_TOTALS = re.compile(r"^totals:\s+(\d+)", re.MULTILINE)


def _server(out_file: Path, within: str | None = None) -> list[str]:
    valgrind = ["valgrind", "--tool=callgrind", "--instr-atstart=no"]
    if within is not None:
        valgrind += ["--collect-atstart=no", "--toggle-collect=sys_call_tracing"]
    server = [str(Path(__file__).resolve()), "--serve-within", within or ""]
    return [*valgrind, f"--callgrind-out-file={out_file}", sys.executable, *server]


def as_at_full_speed() -> None:
    """What valgrind's slowness (some 50x) would change in the server's work per edit, set as
    it is at full speed, so that the count does not move with the time each edit takes:

    - the clock the analysis reads (its answers about the file system and the importers are
      trusted for a second) moves `_PAUSE_SECONDS` per analysis, as in `edit_cpu.py`'s counted
      runs, instead of the seconds valgrind spends;
    - an analysis runs on the event loop, as one of these files' does at full speed (the last
      one's CPU time decides, and under valgrind it always looked long);
    - the refresh of the importers of the edited module, due after a pause in the typing,
      never comes (under valgrind every edit was such a pause);
    - garbage is collected once before the count starts, so that the first analyses' objects
      are not promoted during the counted edits (one collection of some 60 ms)."""
    import gc

    from jax_lsp.lsp import dependents, engine_thread, handlers

    clock = [1000.0]
    steady = types.SimpleNamespace(**vars(time))
    steady.monotonic = lambda: clock[0]
    for name, module in list(sys.modules.items()):
        if name.startswith("jax_lsp.analysis") and getattr(module, "time", None) is time:
            module.time = steady
    check = engine_thread.EngineThread.check

    def timed_check(*args: object, **kwargs: object) -> object:
        clock[0] += _PAUSE_SECONDS
        return check(*args, **kwargs)

    engine_thread.EngineThread.check = timed_check
    engine_thread.INLINE_SECONDS = math.inf
    dependents.Dependents.changed.__defaults__ = (math.inf,)
    did_change = handlers.did_change

    def collected_before_count(ls: object, params: object) -> None:
        if params.text_document.version == WARMUP:
            gc.collect()
        did_change(ls, params)

    handlers.did_change = collected_before_count


def serve_within(spec: str) -> int:
    """Run `jax-lsp serve` `as_at_full_speed`, with the function `spec` (MODULE:QUALNAME)
    called through `sys.call_tracing`, wherever the server's modules hold it (`from m import f`
    copies); the whole server when `spec` is empty."""
    from jax_lsp.cli import main as cli_main

    importlib.import_module("jax_lsp.server")  # every module the server uses, loaded
    as_at_full_speed()
    if not spec:
        return cli_main(["serve"])
    module_name, _, qualname = spec.partition(":")
    owner: object = importlib.import_module(module_name)
    *path, name = qualname.split(".")
    for part in path:
        owner = getattr(owner, part)
    original = getattr(owner, name)

    depth = 0  # a call inside a counted one is not toggled again (that would stop the count)

    def counted(*args: object, **kwargs: object) -> object:
        nonlocal depth
        if depth:
            return original(*args, **kwargs)
        depth += 1
        try:
            return sys.call_tracing(lambda: original(*args, **kwargs), ())
        finally:
            depth -= 1

    setattr(owner, name, counted)
    if not path:  # a module-level function: the copies other modules imported too
        for module in list(sys.modules.values()):
            for attribute, value in list(vars(module).items()) if module else ():
                if value is original:
                    setattr(module, attribute, counted)
    return cli_main(["serve"])


def _instructions(out_file: Path) -> int:
    found = _TOTALS.search(out_file.read_text(encoding="utf-8", errors="replace"))
    if found is None:
        raise RuntimeError(f"no instruction total in {out_file}")
    return int(found.group(1))


def _stop(session: Session) -> None:
    """Shut the server down and wait for callgrind to write its counts (slow under valgrind)."""
    client = session.client
    client.request("shutdown", None, timeout=600)
    client.notify("exit", None)
    client.process.wait(timeout=600)


def _callgrind_control(*arguments: str, session: Session) -> None:
    subprocess.run(
        ["callgrind_control", *arguments, str(session.client.pid)],
        check=True,
        capture_output=True,
    )
    time.sleep(1)  # the switch takes effect asynchronously; the idle loop is cheap


def count_run(
    path: Path,
    text: str,
    lines: list[int],
    kind: str,
    measured: int,
    within: str | None = None,
    actions: bool = False,
) -> int:
    """Instructions counted from after the warm-up edits to the server's exit, with
    `measured` edits in between (only those inside the function `within`, if given), each
    followed by a code-action request on its line if `actions`."""
    os.environ["PYTHONHASHSEED"] = "0"
    with tempfile.TemporaryDirectory() as folder:
        out_file = Path(folder) / "callgrind.out"
        session = Session("jax-lsp", _server(out_file, within), path, text)
        try:
            for index in range(WARMUP):
                session.edit(lines[index], SUFFIXES[kind].format(index=index))
                if actions:
                    session.code_action(lines[index])
            _callgrind_control("-i", "on", session=session)
            for index in range(WARMUP, WARMUP + measured):
                session.edit(lines[index], SUFFIXES[kind].format(index=index))
                if actions:
                    session.code_action(lines[index])
            # Not the exit: its collection over the whole heap varies with the heap's size.
            _callgrind_control("-i", "off", session=session)
            _stop(session)
        finally:
            if session.client.process.poll() is None:
                session.client.process.kill()
                session.client.process.wait()
        return _instructions(out_file)


def measure(
    path: Path, edits: int, kind: str, within: str | None = None, actions: bool = False
) -> dict:
    text = path.read_text(encoding="utf-8")
    lines = edit_lines(text, edits + WARMUP, kind)
    base = count_run(path, text, lines, kind, 0, within, actions)
    edited = count_run(path, text, lines, kind, edits, within, actions)
    return {
        "lines": text.count("\n") + 1,
        "instructions_without_edits": base,
        "instructions_with_edits": edited,
        "instructions_per_edit": (edited - base) / edits,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="*", default=list(FILES[:2]), help="corpus paths")
    parser.add_argument("--edits", type=int, default=10, help="measured edits per run")
    parser.add_argument(
        "--kind", choices=sorted(SUFFIXES), action="append", help="default: both kinds"
    )
    parser.add_argument(
        "--within",
        action="append",
        metavar="MODULE:QUALNAME",
        help="count only inside this function (repeatable: one run each)",
    )
    parser.add_argument(
        "--actions", action="store_true", help="a code-action request after each edit"
    )
    parser.add_argument("--serve-within", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve_within is not None:
        sys.exit(serve_within(args.serve_within))
    corpus = ensure_corpus()
    LspClient.timeout = 900  # valgrind starts the server slowly, more so on a loaded machine
    record: dict = {
        "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "edits": args.edits,
        "files": {},
    }
    print(f"{'file':<48}{'lines':>6}  {'kind':<8}{'instructions/edit':>18}  within")
    for name in args.files:
        for kind in args.kind or sorted(SUFFIXES):
            for within in args.within or [None]:
                figures = measure(corpus.root / name, args.edits, kind, within, args.actions)
                per_kind = record["files"].setdefault(name, {})
                label = f"{kind}+action" if args.actions else kind
                if within is None:
                    per_kind[label] = figures
                else:
                    per_kind.setdefault(label, {})[within] = figures
                print(
                    f"{name:<48}{figures['lines']:>6}  {label:<8}"
                    f"{figures['instructions_per_edit'] / 1e6:>16.2f} M  {within or ''}"
                )
    RESULTS.mkdir(parents=True, exist_ok=True)
    output = RESULTS / (
        "edit-instructions-within.json" if args.within else "edit-instructions.json"
    )
    output.write_text(json.dumps(record, indent=1) + "\n", "utf-8")


if __name__ == "__main__":
    main()

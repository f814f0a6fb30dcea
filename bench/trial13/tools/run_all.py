"""Runs every program under JAX (a notebook: its cells in order, in one namespace) and prints
what happened: `ok` (and the last line printed) or `RAISES` and the error."""

import json
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
PY = sys.executable


def source_of(path: Path) -> str:
    if path.suffix == ".ipynb":
        cells = json.loads(path.read_text())["cells"]
        return "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "code")
    return path.read_text()


def outcome(path: Path) -> str:
    proc = subprocess.run(
        [PY, "-c", source_of(path)], capture_output=True, text=True, timeout=300, cwd=path.parent
    )
    if proc.returncode == 0:
        warn = [line for line in proc.stderr.splitlines() if "Warning" in line]
        last = proc.stdout.strip().splitlines()[-1:] or [""]
        return "ok" + (" WARN " + warn[0][-120:] if warn else "") + " | " + last[0][:100]
    errs = [
        line
        for line in proc.stderr.splitlines()
        if line[:1] not in ("", " ") and ("Error" in line or "Exception" in line)
    ]
    return "RAISES " + (errs[-1][:160] if errs else proc.stderr[-160:])


if __name__ == "__main__":
    names = sys.argv[1:] or sorted(p.name for p in (HERE / "programs").iterdir())
    for name in names:
        print(f"{name}\t{outcome(HERE / 'programs' / name)}", flush=True)

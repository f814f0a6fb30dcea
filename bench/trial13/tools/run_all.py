"""Runs every program under JAX (notebooks: cells in order, one namespace) and records the outcome."""

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
        warn = [l for l in proc.stderr.splitlines() if "Warning" in l]
        last = proc.stdout.strip().splitlines()[-1:] or [""]
        return "ok" + (" WARN " + warn[0][-120:] if warn else "") + " | " + last[0][:100]
    errs = [l for l in proc.stderr.splitlines() if l and not l.startswith(" ") and ("Error" in l or "Exception" in l)]
    return "RAISES " + (errs[-1][:160] if errs else proc.stderr[-160:])


if __name__ == "__main__":
    names = sys.argv[1:] or sorted(p.name for p in (HERE / "programs").iterdir())
    for name in names:
        print(f"{name}\t{outcome(HERE / 'programs' / name)}", flush=True)

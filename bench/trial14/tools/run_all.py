"""Runs every program under JAX and writes truth.tsv: `ok | last line printed` or
`RAISES <error>: <first line>` (for a notebook, with the cell that raised).

A notebook's code cells run in one namespace in the order of their execution counts (the
order the user ran them), cells never run are skipped. Usage: python tools/run_all.py [files]
"""

import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
RUNNER = r"""
import json, sys, traceback
nb = json.load(open(sys.argv[1]))
cells = [(c["execution_count"], i, "".join(c["source"])) for i, c in enumerate(nb["cells"], 1)
         if c["cell_type"] == "code" and c.get("execution_count") is not None]
namespace = {"__name__": "__main__"}
for _, index, source in sorted(cells):
    try:
        exec(compile(source, f"cell{index}", "exec"), namespace)
    except Exception as e:
        first = str(e).splitlines()[0] if str(e) else ""
        print(f"RAISES in cell {index} {type(e).__name__}: {first}")
        sys.exit(0)
"""


def _names_exception(line: str) -> bool:
    name = line.split(":", 1)[0]
    return (
        not line.startswith(" ")
        and name.replace(".", "").isidentifier()
        and (name.endswith("Error") or name.endswith("Exception"))
    )


def outcome(path: Path) -> str:
    if path.suffix == ".ipynb":
        command = [sys.executable, "-c", RUNNER, str(path)]
    else:
        command = [sys.executable, str(path)]
    proc = subprocess.run(command, capture_output=True, text=True, timeout=600, cwd=path.parent)
    lines = [line for line in proc.stdout.splitlines() if line.strip()]
    if lines and lines[-1].startswith("RAISES"):
        return lines[-1][:200]
    if proc.returncode != 0:
        # the last line naming an exception (JAX appends a note on filtered frames after it)
        errors = [line for line in proc.stderr.splitlines() if _names_exception(line)]
        return "RAISES " + (errors[-1] if errors else f"exit {proc.returncode}")[:200]
    return "ok | " + (lines[-1][:160] if lines else "")


def main() -> None:
    paths = [Path(p) for p in sys.argv[1:]] or sorted(
        p for p in (HERE / "programs").iterdir() if p.suffix in (".py", ".ipynb")
    )
    rows = [f"{p.name}\t{outcome(p.resolve())}" for p in paths]
    print("\n".join(rows))
    if not sys.argv[1:]:
        (HERE / "truth.tsv").write_text("\n".join(rows) + "\n")


if __name__ == "__main__":
    main()

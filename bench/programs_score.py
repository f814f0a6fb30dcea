"""Scores jax-lsp on a folder of marked programs (a trial's `programs/`).

Usage, from a trial's folder (its `programs/` by default, or --programs DIR):
PYTHONPATH=<tree> python ../programs_score.py [--programs DIR] <command>..., e.g. from
bench/trial14: `PYTHONPATH=../.. python ../programs_score.py python -P -m jax_lsp`.

A `# expect: JAXnnn` comment marks a line where the rule must fire (several codes: comma
separated). Recall counts each expected (file, cell, line, code) found at that exact line.
A file with no marker is clean: any finding on it is a false alarm. Findings on positive files
at unmarked places are listed as extras, to triage by hand (the trial's README).
"""

import json
import re
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

EXPECT = re.compile(r"#\s*expect:\s*([A-Z0-9, ]+)")

Place = tuple[str, int | None, int, str]  # file, cell (1-based) or None, row, code


def cells_of(path: Path) -> list[tuple[int | None, str]]:
    if path.suffix == ".ipynb":
        cells = json.loads(path.read_text())["cells"]
        return [
            (i, "".join(c["source"])) for i, c in enumerate(cells, 1) if c["cell_type"] == "code"
        ]
    return [(None, path.read_text())]


def expected_places(path: Path) -> set[Place]:
    places: set[Place] = set()
    for cell, text in cells_of(path):
        for row, line in enumerate(text.splitlines(), 1):
            if m := EXPECT.search(line):
                for code in filter(None, (c.strip() for c in m.group(1).split(","))):
                    places.add((path.name, cell, row, code))
    return places


def found_places(programs: Path, command: list[str]) -> set[Place]:
    # The user's setting is a folder of scripts of its own: checked in place, the programs sit
    # under `bench/` (a package), whose other files would count as the same project (x64).
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "programs"
        shutil.copytree(programs, folder)
        files = sorted(str(p) for p in folder.iterdir() if p.suffix in (".py", ".ipynb"))
        proc = subprocess.run(
            [*command, "check", "--output-format", "json", "--exit-zero", *files],
            capture_output=True,
            text=True,
        )
    if proc.returncode != 0:
        sys.exit(f"jax-lsp failed ({proc.returncode}):\n{proc.stderr}")
    return {
        (Path(f["filename"]).name, f.get("cell"), f["location"]["row"], f["code"])
        for f in json.loads(proc.stdout)
    }


def main(programs: Path) -> None:
    """Scores the programs in `programs` (or the folder after `--programs`)."""
    args = sys.argv[1:]
    if args[:1] == ["--programs"]:
        programs, args = Path(args[1]).resolve(), args[2:]
    command = args or [sys.executable, "-m", "jax_lsp"]
    paths = sorted(p for p in programs.iterdir() if p.suffix in (".py", ".ipynb"))
    expected = {p.name: expected_places(p) for p in paths}
    found = found_places(programs, command)
    all_expected = set().union(*expected.values())
    hits = all_expected & found
    print("missed:")
    for place in sorted(all_expected - found, key=str):
        print("  ", place)
    clean = [name for name, places in expected.items() if not places]
    flagged = sorted({f for f in found if f[0] in clean}, key=str)
    print("findings on clean files:")
    for place in flagged:
        print("  ", place)
    extras = sorted((f for f in found - all_expected if f[0] not in clean), key=str)
    print("extra findings on positive files:")
    for place in extras:
        print("  ", place)
    per_code = Counter(p[3] for p in all_expected)
    hit_code = Counter(p[3] for p in hits)
    print("per code:", ", ".join(f"{c} {hit_code[c]}/{n}" for c, n in sorted(per_code.items())))
    clean_ok = len(clean) - len({f[0] for f in flagged})
    print(
        f"recall {len(hits)}/{len(all_expected)}, clean ok {clean_ok}/{len(clean)},"
        f" extras {len(extras)}"
    )


if __name__ == "__main__":
    main(Path.cwd() / "programs")

"""Scores jax-lsp on a folder of marked programs (a trial's `programs/`).

Usage, from a trial's folder (its `programs/` by default, or --programs DIR):
PYTHONPATH=<tree> python ../programs_score.py [--programs DIR] <command>..., e.g. from
bench/trial14: `PYTHONPATH=../.. python ../programs_score.py python -P -m jax_lsp`.

A `# expect: JAXnnn` comment marks a line where the rule must fire (several codes: comma
separated). Recall counts each expected (file, cell, line, code) found at that exact line.
A file with no marker is clean: any finding on it is a false alarm. Findings on positive files
at unmarked places are listed as extras, to triage by hand (the trial's README).

A sub-folder of the programs is a project of several modules: it is checked on its own, as its
user would check it, and its files are named by their path in it (`b08_loop/clf/train.py`).
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


def expected_places(path: Path, name: str) -> set[Place]:
    places: set[Place] = set()
    for cell, text in cells_of(path):
        for row, line in enumerate(text.splitlines(), 1):
            if m := EXPECT.search(line):
                for code in filter(None, (c.strip() for c in m.group(1).split(","))):
                    places.add((name, cell, row, code))
    return places


def program_files(programs: Path) -> list[Path]:
    """The scripts and notebooks of `programs`, and every module of its project folders."""
    return sorted(
        p
        for p in programs.rglob("*")
        if p.suffix in (".py", ".ipynb") and "__pycache__" not in p.parts
    )


def found_places(programs: Path, command: list[str]) -> set[Place]:
    # The user's setting is a folder of scripts of its own: checked in place, the programs sit
    # under `bench/` (a package), whose other files would count as the same project (x64).
    found: set[Place] = set()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "programs"
        shutil.copytree(programs, folder, ignore=shutil.ignore_patterns("__pycache__"))
        scripts = [str(p) for p in folder.iterdir() if p.suffix in (".py", ".ipynb")]
        projects = [str(p) for p in folder.iterdir() if p.is_dir()]
        for targets in ([sorted(scripts)] if scripts else []) + [[p] for p in sorted(projects)]:
            proc = subprocess.run(
                [*command, "check", "--output-format", "json", "--exit-zero", *targets],
                capture_output=True,
                text=True,
            )
            if proc.returncode != 0:
                sys.exit(f"jax-lsp failed ({proc.returncode}):\n{proc.stderr}")
            found |= {
                (
                    Path(f["filename"]).resolve().relative_to(folder.resolve()).as_posix(),
                    f.get("cell"),
                    f["location"]["row"],
                    f["code"],
                )
                for f in json.loads(proc.stdout)
            }
    return found


def main(programs: Path) -> None:
    """Scores the programs in `programs` (or the folder after `--programs`)."""
    args = sys.argv[1:]
    if args[:1] == ["--programs"]:
        programs, args = Path(args[1]).resolve(), args[2:]
    command = args or [sys.executable, "-m", "jax_lsp"]
    names = {p.relative_to(programs).as_posix(): p for p in program_files(programs)}
    expected = {name: expected_places(path, name) for name, path in names.items()}
    found = found_places(programs, command)
    all_expected = set().union(*expected.values())
    hits = all_expected & found
    print("missed:")
    for place in sorted(all_expected - found, key=str):
        print("  ", place)
    # A project is clean when none of its modules is marked: its files count as one.
    unit = {name: name.split("/")[0] for name in expected}
    marked = {unit[name] for name, places in expected.items() if places}
    clean_units = sorted({unit[name] for name in expected} - marked)
    clean = [name for name in expected if unit[name] in clean_units]
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
    clean_ok = len(clean_units) - len({unit[f[0]] for f in flagged})
    print(
        f"recall {len(hits)}/{len(all_expected)}, clean ok {clean_ok}/{len(clean_units)},"
        f" extras {len(extras)}"
    )


if __name__ == "__main__":
    main(Path.cwd() / "programs")

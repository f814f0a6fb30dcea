#!/usr/bin/env python3
"""Score a JAX linter on JAX's own documentation read as whole notebooks (stdlib only).

Usage:
    python3 score.py [--set DIR] [COMMAND ...]        (default COMMAND: jax-lsp)

``--set DIR`` scores another set laid out like this one (DIR/labels.tsv in the repository; its
notebooks beside the repository in shared/corpus/<DIR's name>/notebooks, or in the folder the
environment variable JAX_LSP_HELDOUT_DOCS names). Without it: this folder's set.

The scorer runs ``COMMAND check --select ALL --output-format json`` on notebooks/*.ipynb and
reads each finding's ``filename``, ``code``, ``cell`` (1-based, markdown cells counted) and
``location.row`` (the line within the cell). labels.tsv (one row a label):

  * code JAXnnn: the labelled cell must be flagged with that code. Reported two ways: at the
    labelled line (within one line), and anywhere in the labelled cell.
  * code ``none``: that line of a labelled cell must not be flagged (the document calls it OK).
  * code ``skip``: the cell counts for neither recall nor precision (the reason is in the row).
  * every other code cell must stay clean, except a cell named in a label's ``shown_in`` (where
    the document runs the labelled code). A finding there is a false finding.
  Findings in a labelled cell with a code that cell is not labelled with are listed as extra,
  for judgement; they are not counted.

Then (cell by cell) each label is checked again on a notebook made of only the cells it
``needs`` (imports, definitions, the cell that calls it) and itself, as a reader who ran the
cells one at a time would see them.
"""

import collections
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def use_set(set_dir):
    """Point the scorer at the set whose labels.tsv is in `set_dir`. Its notebooks are JAX's
    documentation: kept beside the repository, not in it (see README)."""
    global LABELS_DIR, NOTEBOOKS
    LABELS_DIR = os.path.abspath(set_dir)
    set_name = os.path.basename(LABELS_DIR)
    docs = os.environ.get(
        "JAX_LSP_HELDOUT_DOCS",
        os.path.join(LABELS_DIR, "..", "..", "..", "shared", "corpus", set_name),
    )
    NOTEBOOKS = os.path.join(docs, "notebooks")


def pop_set_option(argv):
    """Remove a leading ``--set DIR`` from argv (a list) and use that set."""
    if len(argv) > 2 and argv[1] == "--set":
        use_set(argv[2])
        del argv[1:3]
    return argv


use_set(HERE)


def load_labels():
    with open(os.path.join(LABELS_DIR, "labels.tsv"), encoding="utf-8") as fh:
        header = fh.readline().rstrip("\n").split("\t")
        return [
            dict(zip(header, line.rstrip("\n").split("\t"), strict=False))
            for line in fh
            if line.strip()
        ]


def run_linter(cmd, paths):
    full = [*list(cmd), "check", "--select", "ALL", "--output-format", "json", *list(paths)]
    proc = subprocess.run(full, capture_output=True, text=True)
    try:
        findings = json.loads(proc.stdout) if proc.stdout.strip() else []
    except json.JSONDecodeError:
        sys.stderr.write(
            f"could not parse linter output as JSON\n{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}\n"
        )
        sys.exit(2)
    by_cell = collections.defaultdict(list)  # (notebook, cell) -> [(code, row, message)]
    for f in findings:
        name = os.path.splitext(os.path.basename(f.get("filename", "")))[0]
        row = (f.get("location") or {}).get("row")
        by_cell[(name, f.get("cell"))].append((f.get("code"), row, f.get("message", "")))
    return by_cell


def code_cells(name):
    with open(os.path.join(NOTEBOOKS, name + ".ipynb"), encoding="utf-8") as fh:
        cells = json.load(fh)["cells"]
    return {n: c for n, c in enumerate(cells, start=1) if c["cell_type"] == "code"}


def hit_at_line(got, code, line):
    return any(c == code and r is not None and abs(r - line) <= 1 for c, r, _ in got)


def recall(
    labels, by_cell, cell_of=lambda rec: int(rec["cell"]), name_of=lambda rec: rec["notebook"]
):
    at_line = in_cell = 0
    misses = []
    for rec in labels:
        got = by_cell.get((name_of(rec), cell_of(rec)), [])
        line_ok = hit_at_line(got, rec["code"], int(rec["line"]))
        cell_ok = any(c == rec["code"] for c, _, _ in got)
        at_line += line_ok
        in_cell += cell_ok
        if not line_ok:
            near = ", ".join(f"{c}@{r}" for c, r, _ in got) or "no findings"
            misses.append((rec, "in the cell, other line" if cell_ok else "missed", near))
    return at_line, in_cell, misses


def cell_by_cell(cmd, positives):
    """Each label on a notebook of its needed cells and itself; cell numbers renumbered."""
    with tempfile.TemporaryDirectory(prefix="docs-cells-") as tmp:
        paths, keys = [], {}
        for i, rec in enumerate(positives):
            cells = code_cells(rec["notebook"])
            wanted = {int(rec["cell"])} | {int(n) for n in rec["needs"].split(",") if n}
            if rec["shown_in"]:
                wanted.add(int(rec["shown_in"]))
            order = sorted(wanted)
            nb = {
                "cells": [cells[n] for n in order],
                "metadata": {},
                "nbformat": 4,
                "nbformat_minor": 5,
            }
            path = os.path.join(tmp, f"label{i:02d}.ipynb")
            with open(path, "w", encoding="utf-8") as fh:
                json.dump(nb, fh)
            paths.append(path)
            keys[i] = (f"label{i:02d}", order.index(int(rec["cell"])) + 1)
        by_cell = run_linter(cmd, paths)
    index = {id(rec): i for i, rec in enumerate(positives)}
    return recall(
        positives,
        by_cell,
        cell_of=lambda rec: keys[index[id(rec)]][1],
        name_of=lambda rec: keys[index[id(rec)]][0],
    )


def main(argv):
    cmd = pop_set_option(list(argv))[1:] or ["jax-lsp"]
    labels = load_labels()
    names = sorted(os.path.splitext(n)[0] for n in os.listdir(NOTEBOOKS) if n.endswith(".ipynb"))
    by_cell = run_linter(cmd, [os.path.join(NOTEBOOKS, n + ".ipynb") for n in names])

    positives = [r for r in labels if r["code"].startswith("JAX")]
    labelled = collections.defaultdict(set)  # (notebook, cell) -> codes labelled there
    quiet_lines = collections.defaultdict(set)  # (notebook, cell) -> lines that must stay clean
    not_counted = set()
    for rec in labels:
        key = (rec["notebook"], int(rec["cell"]))
        if rec["code"] == "skip":
            not_counted.add(key)
        elif rec["code"] == "none":
            quiet_lines[key].add(int(rec["line"]))
        else:
            labelled[key].add(rec["code"])
        if rec["shown_in"]:
            not_counted.add((rec["notebook"], int(rec["shown_in"])))

    at_line, in_cell, misses = recall(positives, by_cell)
    false, extra, skipped = [], [], []
    clean_cells = 0
    for name in names:
        for number in code_cells(name):
            key = (name, number)
            got = by_cell.get(key, [])
            if key in labelled:
                for c, r, m in got:
                    if r in quiet_lines.get(key, ()):
                        false.append((name, number, c, r, m))
                    elif c not in labelled[key]:
                        extra.append((name, number, c, r, m))
            elif key in not_counted:
                skipped.extend((name, number, c, r, m) for c, r, m in got)
            else:
                clean_cells += 1
                false.extend((name, number, c, r, m) for c, r, m in got)
    lines_quiet = sum(len(v) for v in quiet_lines.values())

    n = len(positives)
    print("Linter: {}".format(" ".join(cmd)))
    print(
        f"Notebooks: {len(names)}; labels: {n}; "
        f"must-stay-clean: {clean_cells} cells + {lines_quiet} lines"
    )
    print()
    print("Whole notebooks")
    print(f"  recall at the labelled line: {at_line}/{n} = {at_line / n:.2f}")
    print(f"  recall anywhere in the cell: {in_cell}/{n} = {in_cell / n:.2f}")
    print(f"  false findings (must-stay-clean cells and lines): {len(false)}")
    print()
    per_code = collections.defaultdict(lambda: [0, 0])
    missed_keys = {id(rec) for rec, _, _ in misses}
    for rec in positives:
        per_code[rec["code"]][1] += 1
        per_code[rec["code"]][0] += id(rec) not in missed_keys
    print(f"  {'code':8} at line")
    for code in sorted(per_code, key=lambda c: int(c[3:])):
        caught, total = per_code[code]
        print(f"  {code:8} {caught}/{total}")
    print()
    print(f"Misses ({len(misses)}):")
    for rec, how, near in misses:
        print(
            "  {}[{}] line {} {} ({}); got: {}".format(
                rec["notebook"], rec["cell"], rec["line"], rec["code"], how, near
            )
        )
    print()
    print(f"False findings ({len(false)}):")
    for name, number, c, r, m in false:
        print(f"  {name}[{number}] line {r} {c} {m[:110]}")
    print()
    print(f"Extra findings in labelled cells, other codes ({len(extra)}, for judgement):")
    for name, number, c, r, m in extra:
        print(f"  {name}[{number}] line {r} {c} {m[:110]}")
    print()
    print(f"Findings in cells not counted (skip / shown_in) ({len(skipped)}):")
    for name, number, c, r, m in skipped:
        print(f"  {name}[{number}] line {r} {c} {m[:110]}")
    print()
    c_line, c_cell, c_misses = cell_by_cell(cmd, positives)
    print("Cell by cell (each label with only the cells it needs)")
    print(f"  recall at the labelled line: {c_line}/{n} = {c_line / n:.2f}")
    print(f"  recall anywhere in the cell: {c_cell}/{n} = {c_cell / n:.2f}")
    for rec, how, near in c_misses:
        print(
            "  miss: {}[{}] line {} {} ({}); got: {}".format(
                rec["notebook"], rec["cell"], rec["line"], rec["code"], how, near
            )
        )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

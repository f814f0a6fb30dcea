#!/usr/bin/env python3
"""Check that a set's labels point at the cells they describe (stdlib only).

Usage:
    python3 check_labels.py [--set DIR]

Prints each row of labels.tsv with the labelled line of the notebook beside the start of the
row's quote, for reading side by side, and reports rows whose notebook, cell or line is missing
(a notebook rebuilt from its page must give every row its cell). Exit status 1 if any is.
Notebooks are found as `score.py` finds them (`JAX_LSP_HELDOUT_DOCS`, see the README).
"""

import json
import os
import sys

import score


def main(argv):
    score.pop_set_option(argv)
    missing = 0
    for rec in score.load_labels():
        path = os.path.join(score.NOTEBOOKS, rec["notebook"] + ".ipynb")
        where = f"{rec['notebook']}[{rec['cell']}]:{rec['line']} {rec['code']}"
        if not os.path.exists(path):
            print(f"MISSING NOTEBOOK {where}")
            missing += 1
            continue
        with open(path, encoding="utf-8") as fh:
            cells = json.load(fh)["cells"]
        number, line = int(rec["cell"]), int(rec["line"])
        if number > len(cells) or cells[number - 1]["cell_type"] != "code":
            print(f"MISSING CELL {where}")
            missing += 1
            continue
        source = "".join(cells[number - 1]["source"]).split("\n")
        if line > len(source):
            print(f"MISSING LINE {where}")
            missing += 1
            continue
        print(f"{where:45} | {source[line - 1].strip()[:60]:60} | {rec['quote'][:50]}")
    print(f"{missing} missing")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main(list(sys.argv)))

"""Builds programs/*.ipynb from notebooks/*.py.

A source holds cells separated by `# %% [N]` lines (N: the cell's execution count, the order
the user ran it in; `# %%` alone: never run) or `# %% md` (a markdown cell). Run from anywhere.
"""

import json
import re
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
MARK = re.compile(r"^# %%(?: \[(\d+)\]| (md))?\s*$")


def cells_of(text: str) -> list[dict]:
    cells: list[dict] = []
    for line in text.splitlines(keepends=True):
        if m := MARK.match(line):
            run, md = m.groups()
            kind = "markdown" if md else "code"
            cells.append({"cell_type": kind, "metadata": {}, "source": []})
            if kind == "code":
                cells[-1].update(execution_count=int(run) if run else None, outputs=[])
            continue
        cells[-1]["source"].append(line)
    for cell in cells:  # the blank lines between cells belong to no cell
        while cell["source"] and not cell["source"][-1].strip():
            cell["source"].pop()
        if cell["source"]:
            cell["source"][-1] = cell["source"][-1].rstrip("\n")
    return cells


def main() -> None:
    for source in sorted((HERE / "notebooks").glob("*.py")):
        notebook = {
            "cells": cells_of(source.read_text()),
            "metadata": {
                "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
                "language_info": {"name": "python"},
            },
            "nbformat": 4,
            "nbformat_minor": 5,
        }
        for i, cell in enumerate(notebook["cells"]):
            cell["id"] = f"{source.stem[:3]}-{i}"
        target = HERE / "programs" / (source.stem + ".ipynb")
        target.write_text(json.dumps(notebook, indent=1) + "\n")


if __name__ == "__main__":
    main()

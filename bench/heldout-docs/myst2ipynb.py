"""Convert a jupytext MyST markdown notebook to .ipynb (stdlib only).

Code cells are ```{code-cell} fences; markdown between them is split on '+++' lines.
Cell options (':key: value' lines or a '---' YAML block) become metadata; tags kept.
"""

import json
import re
import sys

FENCE = re.compile(r"^```\{code-cell\}")


def parse(text):
    lines = text.splitlines()
    cells, md = [], []

    def flush_md():
        body = "\n".join(md).strip("\n")
        if body.strip():
            cells.append({"cell_type": "markdown", "metadata": {}, "source": body})
        md.clear()

    i = 0
    while i < len(lines):
        line = lines[i]
        if FENCE.match(line):
            flush_md()
            i += 1
            meta = {}
            if i < len(lines) and lines[i] == "---":
                i += 1
                while lines[i] != "---":
                    key, _, value = lines[i].partition(":")
                    meta[key.strip()] = value.strip()
                    i += 1
                i += 1
            else:
                while i < len(lines) and lines[i].startswith(":"):
                    key, _, value = lines[i][1:].partition(":")
                    meta[key.strip()] = value.strip()
                    i += 1
            if i < len(lines) and lines[i] == "" and meta:
                i += 1
            code = []
            while lines[i] != "```":
                code.append(lines[i])
                i += 1
            i += 1
            metadata = {}
            if "tags" in meta:
                metadata["tags"] = [
                    t.strip() for t in meta["tags"].strip("[]").split(",") if t.strip()
                ]
            if "id" in meta:
                metadata["id"] = meta["id"]
            cells.append(
                {
                    "cell_type": "code",
                    "execution_count": None,
                    "metadata": metadata,
                    "outputs": [],
                    "source": "\n".join(code),
                }
            )
        elif line.startswith("+++"):
            flush_md()
            i += 1
        else:
            md.append(line)
            i += 1
    flush_md()
    for cell in cells:
        src = cell["source"].split("\n")
        cell["source"] = [s + "\n" for s in src[:-1]] + [src[-1]]
    return {
        "cells": cells,
        "metadata": {
            "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
            "language_info": {"name": "python"},
        },
        "nbformat": 4,
        "nbformat_minor": 5,
    }


if __name__ == "__main__":
    src, dst = sys.argv[1], sys.argv[2]
    with open(src, encoding="utf-8") as fh:
        nb = parse(fh.read())
    with open(dst, "w", encoding="utf-8") as fh:
        json.dump(nb, fh, indent=1, ensure_ascii=False)
        fh.write("\n")

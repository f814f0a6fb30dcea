"""Uses the real server over stdio the way the trial's user does, and writes what it saw.

Notebooks: the user opens an empty notebook and types it cell by cell, each line in two
edits (half a line, then the rest), and the editor pulls every code cell's diagnostics after
each edit. Then, on the finished notebook: a hover on each diagnostic, its quick fixes, the
fix-all source action applied, and the fixed notebook run under JAX (cells in the order the
user ran them). Scripts: opened whole, then the same hovers, quick fixes, fix-all and run.

Reported per program: findings that showed up while typing but are not in the final set
(blinks), the final findings, hover sizes, quick-fix titles, what fix-all changed, and the
fixed program's outcome next to the original's (truth.tsv).

Usage: PYTHONPATH=<tree> python tools/lsp_session.py [names...] > lsp-session.txt
"""

import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from run_all import outcome

from bench.lsp_client import LspClient

HERE = Path(__file__).resolve().parent.parent
WHOLE = {"start": {"line": 0, "character": 0}, "end": {"line": 10**6, "character": 0}}
CAPABILITIES = {
    "textDocument": {
        "synchronization": {"didSave": True},
        "diagnostic": {"dynamicRegistration": False},
        "hover": {"contentFormat": ["markdown", "plaintext"]},
        "codeAction": {
            "codeActionLiteralSupport": {
                "codeActionKind": {"valueSet": ["", "quickfix", "source", "source.fixAll"]}
            },
            "resolveSupport": {"properties": ["edit"]},
        },
    },
    "notebookDocument": {"synchronization": {}},
    "workspace": {"workspaceEdit": {"documentChanges": True}},
    "general": {"positionEncodings": ["utf-16"]},
}


def apply_edits(text: str, edits: list[dict]) -> str:
    lines = text.splitlines(keepends=True) or [""]
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line))

    def offset(position: dict) -> int:  # the programs are ASCII: UTF-16 units are characters
        row = min(position["line"], len(lines))
        return min(offsets[row] + position["character"], len(text))

    for edit in sorted(edits, key=lambda e: offset(e["range"]["start"]), reverse=True):
        start, end = offset(edit["range"]["start"]), offset(edit["range"]["end"])
        text = text[:start] + edit["newText"] + text[end:]
    return text


def edits_by_uri(action: dict) -> dict[str, list[dict]]:
    edit = action.get("edit") or {}
    found: dict[str, list[dict]] = {uri: list(e) for uri, e in (edit.get("changes") or {}).items()}
    for change in edit.get("documentChanges") or []:
        found.setdefault(change["textDocument"]["uri"], []).extend(change["edits"])
    return found


class Session:
    def __init__(self, root: Path) -> None:
        self.client = LspClient([sys.executable, "-P", "-m", "jax_lsp", "serve"], cwd=root)
        self.client.timeout = 300
        self.client.request(
            "initialize",
            {
                "processId": os.getpid(),
                "rootUri": root.as_uri(),
                "capabilities": CAPABILITIES,
                "workspaceFolders": [{"uri": root.as_uri(), "name": root.name}],
            },
        )
        self.client.notify("initialized", {})

    def pull(self, uri: str) -> list[dict]:
        _, answer = self.client.request("textDocument/diagnostic", {"textDocument": {"uri": uri}})
        return (answer.get("result") or {}).get("items", [])

    def hover(self, uri: str, diagnostic: dict) -> str:
        params = {"textDocument": {"uri": uri}, "position": diagnostic["range"]["start"]}
        _, answer = self.client.request("textDocument/hover", params)
        contents = (answer.get("result") or {}).get("contents", {})
        return contents.get("value", "") if isinstance(contents, dict) else str(contents)

    def actions(self, uri: str, range_: dict, diagnostics: list[dict], only: list[str]) -> list:
        context = {"diagnostics": diagnostics, "only": only}
        params = {"textDocument": {"uri": uri}, "range": range_, "context": context}
        _, answer = self.client.request("textDocument/codeAction", params)
        resolved = []
        for action in answer.get("result") or []:
            if action.get("edit") is None and "data" in action:
                _, reply = self.client.request("codeAction/resolve", action)
                action = reply["result"]
            resolved.append(action)
        return resolved


def describe(diagnostic: dict, cell: int | None = None) -> tuple:
    return (cell, diagnostic["range"]["start"]["line"] + 1, diagnostic.get("code"))


def report_final(session: Session, docs: dict[str, tuple[int | None, str]]) -> dict[str, str]:
    """Hovers and quick fixes of every final diagnostic; fix-all applied: the new texts."""
    texts = {uri: text for uri, (_, text) in docs.items()}
    for uri, (cell, _) in docs.items():
        for diagnostic in session.pull(uri):
            hover = session.hover(uri, diagnostic)
            titles = [
                (a.get("title"), "preferred" if a.get("isPreferred") else "")
                for a in session.actions(uri, diagnostic["range"], [diagnostic], ["quickfix"])
            ]
            print(f"  final {describe(diagnostic, cell)}: {diagnostic['message']}")
            print(f"    hover {len(hover)} chars: {hover.splitlines()[0] if hover else ''}")
            print(f"    quick fixes: {titles}")
    first = next(iter(docs))
    for action in session.actions(first, WHOLE, [], ["source.fixAll.jax-lsp"]):
        for uri, edits in edits_by_uri(action).items():
            texts[uri] = apply_edits(texts[uri], edits)
            for edit in edits:
                row = edit["range"]["start"]["line"] + 1
                print(f"  fix-all {docs[uri][0]}:{row}: {edit['newText']!r}"[:300])
    return texts


def run_notebook(session: Session, path: Path, truth: dict[str, str]) -> None:
    notebook = json.loads(path.read_text())
    uri = path.as_uri()
    cells = [c for c in notebook["cells"]]
    cell_uris = [f"{uri}#cell{i}" for i in range(len(cells))]
    kinds = [2 if c["cell_type"] == "code" else 1 for c in cells]
    final_texts = ["".join(c["source"]) for c in cells]
    typed = [""] * len(cells)
    versions = [1] * len(cells)
    seen: set[tuple] = set()
    version = 1

    def cell_item(i: int, text: str) -> dict:
        language = "python" if kinds[i] == 2 else "markdown"
        return {"uri": cell_uris[i], "languageId": language, "version": 1, "text": text}

    def notebook_change(cells_change: dict) -> None:
        nonlocal version
        version += 1
        session.client.notify(
            "notebookDocument/didChange",
            {
                "notebookDocument": {"uri": uri, "version": version},
                "change": {"cells": cells_change},
            },
        )

    def pull_all(upto: int) -> set[tuple]:
        return {
            describe(d, i + 1)
            for i in range(upto + 1)
            if kinds[i] == 2
            for d in session.pull(cell_uris[i])
        }

    session.client.notify(
        "notebookDocument/didOpen",
        {
            "notebookDocument": {
                "uri": uri,
                "notebookType": "jupyter-notebook",
                "version": version,
                "cells": [{"kind": kinds[0], "document": cell_uris[0]}],
            },
            "cellTextDocuments": [cell_item(0, "")],
        },
    )
    edits = 0
    for i, text in enumerate(final_texts):
        if i > 0:
            notebook_change(
                {
                    "structure": {
                        "array": {
                            "start": i,
                            "deleteCount": 0,
                            "cells": [{"kind": kinds[i], "document": cell_uris[i]}],
                        },
                        "didOpen": [cell_item(i, "" if kinds[i] == 2 else text)],
                    }
                }
            )
        if kinds[i] != 2:
            typed[i] = text
            continue
        pieces = []
        for line in text.splitlines(keepends=True):
            half = len(line) // 2
            pieces += [line[:half], line[half:]] if half > 3 else [line]
        for piece in pieces:
            lines = typed[i].split("\n")
            at = {"line": len(lines) - 1, "character": len(lines[-1])}
            versions[i] += 1
            notebook_change(
                {
                    "textContent": [
                        {
                            "document": {"uri": cell_uris[i], "version": versions[i]},
                            "changes": [{"range": {"start": at, "end": at}, "text": piece}],
                        }
                    ]
                }
            )
            typed[i] += piece
            edits += 1
            seen |= pull_all(i)
    final = pull_all(len(cells) - 1)
    print(f"## {path.name}: {edits} edits, {len(final)} final findings")
    blinks = sorted(seen - final, key=str)
    if blinks:
        print(f"  seen while typing, gone at the end: {blinks}")
    docs = {cell_uris[i]: (i + 1, typed[i]) for i in range(len(cells)) if kinds[i] == 2}
    texts = report_final(session, docs)
    fixed = json.loads(path.read_text())
    for i, cell in enumerate(fixed["cells"]):
        if cell_uris[i] in texts:
            cell["source"] = texts[cell_uris[i]].splitlines(keepends=True)
    if texts != {u: t for u, (_, t) in docs.items()}:
        target = Path(tempfile.mkdtemp()) / path.name
        target.write_text(json.dumps(fixed))
        print(f"  before: {truth.get(path.name, '?')[:150]}")
        print(f"  fixed:  {outcome(target)[:150]}")
    session.client.notify(
        "notebookDocument/didClose",
        {"notebookDocument": {"uri": uri}, "cellTextDocuments": [{"uri": u} for u in cell_uris]},
    )


def run_script(session: Session, path: Path, truth: dict[str, str]) -> None:
    text = path.read_text()
    uri = session.client.open(path, text)
    final = session.pull(uri)
    print(f"## {path.name}: {len(final)} findings")
    texts = report_final(session, {uri: (None, text)})
    if texts[uri] != text:
        target = Path(tempfile.mkdtemp()) / path.name
        target.write_text(texts[uri])
        print(f"  before: {truth.get(path.name, '?')[:150]}")
        print(f"  fixed:  {outcome(target)[:150]}")
    session.client.notify("textDocument/didClose", {"textDocument": {"uri": uri}})


def main() -> None:
    work = Path(tempfile.mkdtemp()) / "programs"
    shutil.copytree(HERE / "programs", work)
    truth = dict(
        line.split("\t", 1) for line in (HERE / "truth.tsv").read_text().splitlines() if line
    )
    names = set(sys.argv[1:])
    session = Session(work)
    try:
        for path in sorted(work.iterdir()):
            if names and path.name not in names:
                continue
            if path.suffix == ".ipynb":
                run_notebook(session, path, truth)
            elif path.suffix == ".py":
                run_script(session, path, truth)
            sys.stdout.flush()
    finally:
        session.client.close()


if __name__ == "__main__":
    main()

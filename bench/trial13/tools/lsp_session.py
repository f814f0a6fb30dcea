"""Uses the server as an editor would on the trial's .py programs: open each, wait for its
diagnostics, hover each diagnostic, ask for its code actions, then ask for the fix-all source
action and compare its result with what `jax-lsp check --fix` writes.

Usage: PYTHONPATH=<tree> python tools/lsp_session.py <folder of copies> > lsp.txt
"""

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))
from bench.lsp_client import LspClient

PROGRAMS = Path(__file__).resolve().parent.parent / "programs"


def apply_edits(text: str, edits: list[dict]) -> str:
    lines = text.splitlines(keepends=True)
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line))

    def offset(position: dict) -> int:  # the programs are ASCII: UTF-16 units are characters
        return offsets[position["line"]] + position["character"]

    for edit in sorted(edits, key=lambda e: offset(e["range"]["start"]), reverse=True):
        start, end = offset(edit["range"]["start"]), offset(edit["range"]["end"])
        text = text[:start] + edit["newText"] + text[end:]
    return text


def edits_for(action: dict, uri: str) -> list[dict]:
    edit = action.get("edit") or {}
    if "changes" in edit:
        return edit["changes"].get(uri, [])
    return [e for change in edit.get("documentChanges", []) for e in change["edits"]]


def main() -> None:
    work = Path(tempfile.mkdtemp()) / "programs"
    shutil.copytree(PROGRAMS, work)
    client = LspClient([sys.executable, "-P", "-m", "jax_lsp", "serve"], cwd=work)
    client.initialize(work)
    try:
        for path in sorted(work.glob("*.py")):
            text = path.read_text()
            uri = client.open(path, text)
            _, message = client.wait_for("textDocument/publishDiagnostics", uri, timeout=120)
            diagnostics = message["params"]["diagnostics"]
            print(f"## {path.name}: {len(diagnostics)} diagnostics")
            for diagnostic in diagnostics:
                start = diagnostic["range"]["start"]
                _, hover = client.request(
                    "textDocument/hover",
                    {"textDocument": {"uri": uri}, "position": start},
                )
                contents = (hover.get("result") or {}).get("contents", {})
                value = contents.get("value", "") if isinstance(contents, dict) else str(contents)
                _, actions = client.request(
                    "textDocument/codeAction",
                    {
                        "textDocument": {"uri": uri},
                        "range": diagnostic["range"],
                        "context": {"diagnostics": [diagnostic], "only": ["quickfix"]},
                    },
                )
                titles = [a.get("title") for a in actions.get("result") or []]
                print(f"  {diagnostic['code']} line {start['line'] + 1}: hover {len(value)} chars")
                print(f"    actions: {titles}")
            whole = {"start": {"line": 0, "character": 0}, "end": {"line": 10**6, "character": 0}}
            _, fix_all = client.request(
                "textDocument/codeAction",
                {
                    "textDocument": {"uri": uri},
                    "range": whole,
                    "context": {"diagnostics": [], "only": ["source.fixAll.jax-lsp"]},
                },
            )
            for action in fix_all.get("result") or []:
                if action.get("edit") is None and "data" in action:
                    _, resolved = client.request("codeAction/resolve", action)
                    action = resolved["result"]
                fixed = apply_edits(text, edits_for(action, uri))
                cli = Path(tempfile.mkdtemp()) / path.name
                cli.write_text(text)
                subprocess.run(
                    [sys.executable, "-P", "-m", "jax_lsp", "check", "--fix", "-q", str(cli)],
                    capture_output=True,
                )
                same = fixed == cli.read_text()
                print(f"  fix-all '{action.get('title')}': same as check --fix: {same}")
            client.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
    finally:
        client.close()


if __name__ == "__main__":
    main()

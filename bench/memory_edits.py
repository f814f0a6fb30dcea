"""Memory over a long editing session: the server's resident set size while one file is edited.

Run `python bench/memory_edits.py [--edits 1000]`. The server is opened on a copy of
numpyro's constraints.py (1,019 lines) and sent `--edits` full-text `didChange`s, each adding a
new module-level statement in the middle of the file (every third one half-typed, an unclosed
parenthesis), waiting for each version's diagnostics. Prints the VmRSS every 100 edits. A server
that keeps what earlier versions needed grows without bound; one whose caches are bounded
levels off once they are full.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make `bench` and `jax_lsp` importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.corpus import REPO_ROOT, ensure_corpus
from bench.latency import servers
from bench.lsp_client import LspClient

FILE = "numpyro/numpyro/distributions/constraints.py"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--edits", type=int, default=1000)
    args = parser.parse_args()
    source = ensure_corpus().root / FILE
    with tempfile.TemporaryDirectory() as folder:
        path = Path(shutil.copy(source, folder))
        text = path.read_text()
        client = LspClient(
            servers()["jax-lsp"], cwd=Path(folder), env={"PYTHONPATH": str(REPO_ROOT)}
        )
        try:
            client.initialize(Path(folder))
            uri = client.open(path, text)
            client.wait_for("textDocument/publishDiagnostics", uri)
            print(f"opened: {client.rss_mb():.0f} MB", flush=True)
            lines = text.splitlines(keepends=True)
            for version in range(1, args.edits + 1):
                edited = list(lines)
                statement = (
                    f"z{version} = (1,\n" if version % 3 == 0 else f"z{version} = {version}\n"
                )
                edited.insert(len(lines) // 2 + version % 40, statement)
                change = {"textDocument": {"uri": uri, "version": version}}
                client.notify(
                    "textDocument/didChange",
                    {**change, "contentChanges": [{"text": "".join(edited)}]},
                )
                client.wait_for("textDocument/publishDiagnostics", uri)
                if version % 100 == 0:
                    print(f"{version} edits: {client.rss_mb():.0f} MB", flush=True)
        finally:
            client.close()


if __name__ == "__main__":
    main()

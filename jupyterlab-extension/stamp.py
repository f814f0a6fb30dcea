"""The fingerprint of the extension's sources that its committed build (`labextension/`) was
made from: `npm run build` writes it to `built-from.sha256`, and tests/test_jupyterlab_extension.py
fails when the sources changed since (rebuild and commit `labextension/` with them).

Usage: python stamp.py [--check]
"""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
STAMP = HERE / "built-from.sha256"


def sources() -> list[Path]:
    """What the build reads from this folder (node_modules aside)."""
    return [HERE / "package.json", HERE / "tsconfig.json", *sorted(HERE.glob("src/*.ts"))]


def fingerprint() -> str:
    digest = hashlib.sha256()
    for path in sources():
        digest.update(path.relative_to(HERE).as_posix().encode() + b"\0")
        # Line endings normalised: a checkout with CRLF builds the same extension.
        digest.update(path.read_bytes().replace(b"\r\n", b"\n") + b"\0")
    return digest.hexdigest()


def main(argv: list[str]) -> int:
    if "--check" in argv:
        recorded = STAMP.read_text().strip() if STAMP.is_file() else None
        if recorded != fingerprint():
            print("labextension/ is not built from the current sources: npm run build")
            return 1
        return 0
    STAMP.write_text(fingerprint() + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

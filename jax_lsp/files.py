"""Finding and reading the files `check` looks at."""

from __future__ import annotations

import io
import os
import tokenize
from collections.abc import Iterator
from pathlib import Path

from jax_lsp.config import Settings


class UnreadableFile(Exception):
    """A file that cannot be read or decoded as Python source."""


def decode_source(data: bytes) -> str:
    """Bytes to text as Python would read them (BOM and coding cookie honoured)."""
    if b"\x00" in data:
        raise UnreadableFile("contains NUL bytes")
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        text = data.decode(encoding)
    except (SyntaxError, LookupError, UnicodeDecodeError) as error:
        raise UnreadableFile(f"cannot decode: {error}") from None
    return text.removeprefix("\ufeff")


def read_source(path: Path) -> str:
    try:
        data = path.read_bytes()
    except OSError as error:
        raise UnreadableFile(error.strerror or str(error)) from None
    return decode_source(data)


def iter_python_files(paths: list[Path], settings: Settings) -> Iterator[Path]:
    """Python files under `paths`, skipping excluded folders. Explicit files are kept."""
    seen: set[Path] = set()
    for path in paths:
        if path.is_file():
            if path not in seen:
                seen.add(path)
                yield path
            continue
        for folder, dirs, files in os.walk(path):
            dirs[:] = sorted(d for d in dirs if not settings.is_excluded(os.path.join(folder, d)))
            for name in sorted(files):
                if not name.endswith((".py", ".pyi", ".ipynb")):
                    continue
                file = Path(folder, name)
                if file not in seen and not settings.is_excluded(str(file)):
                    seen.add(file)
                    yield file

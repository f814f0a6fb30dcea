"""Finding, reading and writing the files `check` looks at.

A file is written back as it was read: its declared encoding (PEP 263 cookie), its UTF-8 byte
order mark, its line endings and its permissions; the write is atomic (a temporary file in the
same folder, then a rename), so a crash or a full disk never leaves half a file.
"""

from __future__ import annotations

import contextlib
import io
import os
import stat
import tokenize
from collections.abc import Iterator
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pathspec

from jax_lsp.config import Settings


class UnreadableFile(Exception):
    """A file that cannot be read or decoded as Python source."""


class UnwritableFile(Exception):
    """A fixed text that cannot be written back as its file was (encoding, disk)."""


@dataclass(frozen=True)
class SourceFile:
    """A file's text and what it takes to write a new text back the same way."""

    text: str  # decoded, byte order mark removed, line endings as in the file
    encoding: str  # the codec the file was decoded with ("utf-8-sig" when it had a BOM)
    newline: str | None  # the file's one line ending ("\n", "\r\n", "\r"); None if mixed or none

    def encode(self, text: str) -> bytes:
        """`text` as this file's bytes: its encoding, its BOM, its line endings."""
        if self.newline is not None:
            text = newlines_as(text, self.newline)
        try:
            return text.encode(self.encoding)
        except UnicodeEncodeError as error:
            raise UnwritableFile(
                f"the fixed text cannot be written in the file's encoding: {error}"
            ) from None


def newlines_as(text: str, newline: str) -> str:
    """Every line ending of `text` made `newline`."""
    unified = text.replace("\r\n", "\n").replace("\r", "\n")
    return unified if newline == "\n" else unified.replace("\n", newline)


def line_ending(text: str) -> str | None:
    """The one line ending `text` uses (None when it mixes several or has none)."""
    crlf = text.count("\r\n")
    cr = text.count("\r") - crlf
    lf = text.count("\n") - crlf
    used = [ending for ending, count in (("\r\n", crlf), ("\r", cr), ("\n", lf)) if count]
    return used[0] if len(used) == 1 else None


def decode_source(data: bytes) -> SourceFile:
    """Bytes to text as Python would read them (BOM and coding cookie honoured)."""
    if b"\x00" in data:
        raise UnreadableFile("contains NUL bytes")
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        text = data.decode(encoding)
    except (SyntaxError, LookupError, UnicodeDecodeError) as error:
        raise UnreadableFile(f"cannot decode: {error}") from None
    return SourceFile(text, encoding, line_ending(text))


def read_file(path: Path) -> SourceFile:
    try:
        data = path.read_bytes()
    except OSError as error:
        raise UnreadableFile(error.strerror or str(error)) from None
    return decode_source(data)


def read_source(path: Path) -> str:
    return read_file(path).text


def write_atomically(path: Path, data: bytes) -> None:
    """Replace `path`'s content with `data` in one rename, keeping its permissions."""
    mode = stat.S_IMODE(path.stat().st_mode)
    import tempfile  # only --fix writes: `check` starts without it

    descriptor, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(descriptor, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        os.chmod(temporary, mode)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


_IGNORE_FILES = (".gitignore", ".ignore")  # as ruff and ripgrep read them


class _IgnoreRules:
    """The .gitignore and .ignore files of the folders walked (and of their parents up to the
    repository's root), read once each, through `pathspec` (git's own matching rules)."""

    def __init__(self) -> None:
        self._specs: dict[Path, pathspec.GitIgnoreSpec | None] = {}

    def _spec(self, folder: Path) -> pathspec.GitIgnoreSpec | None:
        if folder not in self._specs:
            lines: list[str] = []
            for name in _IGNORE_FILES:
                with contextlib.suppress(OSError, UnicodeDecodeError):
                    lines += (folder / name).read_text(encoding="utf-8").splitlines()
            self._specs[folder] = _git_ignore_spec(lines) if lines else None
        return self._specs[folder]

    @staticmethod
    def parents(start: Path) -> list[Path]:
        """`start`'s parent folders up to the repository root (none outside a repository)."""
        parents = []
        for folder in start.resolve().parents:
            parents.append(folder)
            if (folder / ".git").exists():
                return parents[::-1]
        return []

    def ignored(self, path: Path, is_dir: bool, folders: list[Path]) -> bool:
        """Whether the ignore files of `folders` (outermost first) leave `path` out: the
        innermost file that says anything about it decides, as in git."""
        for folder in reversed(folders):
            spec = self._spec(folder)
            if spec is None:
                continue
            relative = path.relative_to(folder).as_posix() + ("/" if is_dir else "")
            include = spec.check_file(relative).include
            if include is not None:
                return include
        return False


def _git_ignore_spec(lines: list[str]) -> pathspec.GitIgnoreSpec:
    # Imported when an ignore file is found (20 ms of start-up, with typing_extensions): a
    # check of files named on the command line, as pre-commit runs it, never needs it.
    import pathspec

    return pathspec.GitIgnoreSpec.from_lines(lines)


VIRTUAL_DOCUMENTS = ".virtual_documents"
# What notebook tools write beside a notebook: Jupyter's autosaved copies (every finding of
# the notebook again) and jupyterlab-lsp's joined cells, plain Python under an `.ipynb` name.
NOTEBOOK_TOOL_FOLDERS = frozenset({".ipynb_checkpoints", VIRTUAL_DOCUMENTS})


def notebook_of_virtual_document(path: str) -> str | None:
    """The notebook (or file) that a document under jupyterlab-lsp's `.virtual_documents/`
    stands for: the same path without that folder (`proj/.virtual_documents/nb.ipynb` ->
    `proj/nb.ipynb`), whose text it is, its code cells joined as Python. None for any other
    path."""
    parts = Path(path).parts
    if VIRTUAL_DOCUMENTS not in parts[:-1]:
        return None
    index = len(parts) - 1 - parts[::-1].index(VIRTUAL_DOCUMENTS)
    return str(Path(*parts[:index], *parts[index + 1 :]))


def _skipped(
    folder: str,
    here: Path,
    chain: list[Path],
    settings: Settings,
    rules: _IgnoreRules | None,
    name: str,
    is_dir: bool,
) -> bool:
    """Whether `name` in `folder` (resolved: `here`) is excluded or ignored by the ignore
    files of `chain`."""
    if is_dir and name in NOTEBOOK_TOOL_FOLDERS:
        return True
    if settings.is_excluded(os.path.join(folder, name)):
        return True
    return bool(rules and rules.ignored(here / name, is_dir, chain))


def iter_python_files(paths: list[Path], settings: Settings) -> Iterator[Path]:
    """Python files under `paths`, skipping excluded folders, the folders notebook tools
    write (`NOTEBOOK_TOOL_FOLDERS`) and, unless turned off, what .gitignore and .ignore files
    name. Explicit files and folders are kept."""
    seen: set[Path] = set()
    rules = _IgnoreRules() if settings.respect_gitignore else None
    for path in paths:
        if path.is_file():
            if path not in seen:
                seen.add(path)
                yield path
            continue
        above = rules.parents(path) if rules else []
        if rules and above and rules.ignored(path.resolve(), True, above):
            above = []  # a folder named on the command line is checked even if ignored
        # A folder named on the command line is checked even where the excludes name it:
        # what it holds is then judged by the part of its path below it.
        walking = replace(settings, root=str(path)) if settings.is_excluded(str(path)) else settings
        chains: dict[str, list[Path]] = {}  # folder -> the folders whose ignore files apply
        for folder, dirs, files in os.walk(path):
            here = Path(folder).resolve()
            chain = chains.pop(folder, None) or [*above, here]
            skipped = partial(_skipped, folder, here, chain, walking, rules)
            dirs[:] = sorted(d for d in dirs if not skipped(d, True))
            for name in dirs:
                chains[os.path.join(folder, name)] = [*chain, here / name]
            for name in sorted(files):
                if not name.endswith((".py", ".pyi", ".ipynb")):
                    continue
                file = Path(folder, name)
                if file not in seen and not skipped(name, False):
                    seen.add(file)
                    yield file

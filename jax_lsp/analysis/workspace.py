"""Where workspace modules live, found from paths alone: nothing is imported."""

from __future__ import annotations

import contextlib
import math
import os
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import wraps
from pathlib import Path
from typing import TypeVar

_Result = TypeVar("_Result")
# Answers about the file system are reused for this long: the server asks the same questions
# on every keystroke, and a new module or folder is then noticed within a second.
_FRESH_SECONDS = 1.0
_MAX_REMEMBERED = 4096


def _recently_asked(function: Callable[..., _Result]) -> Callable[..., _Result]:
    """Memoise a file-system lookup by its (hashable) arguments for _FRESH_SECONDS."""
    answers: dict[tuple, tuple[float, _Result]] = {}

    @wraps(function)
    def lookup(*args):
        now = time.monotonic()
        known = answers.get(args)
        if known is not None and now - known[0] < _FRESH_SECONDS:
            return known[1]
        if len(answers) > _MAX_REMEMBERED:
            answers.clear()
        result = function(*args)
        answers[args] = (now, result)
        return result

    return lookup


@dataclass(frozen=True)
class Target:
    """An imported callable: `attribute` of the module `module` (absolute dotted name)."""

    module: str
    attribute: str


# What a module's imports bind: each imported name's target (`from m import f`: f), and each
# imported module's dotted name by the name it is bound to (`import m as n`: n).
Bindings = tuple[dict[str, Target], dict[str, str]]


@contextlib.contextmanager
def file_system_trusted() -> Iterator[None]:
    """Within it the file system is taken as unchanging (one `check` run): the answers above
    are kept for good, however many (worker processes forked meanwhile inherit that)."""
    global _FRESH_SECONDS, _MAX_REMEMBERED
    saved = _FRESH_SECONDS, _MAX_REMEMBERED
    _FRESH_SECONDS, _MAX_REMEMBERED = math.inf, 1 << 20
    try:
        yield
    finally:
        _FRESH_SECONDS, _MAX_REMEMBERED = saved


def real_file(path: str) -> str:
    """`os.path.realpath(path)`, the file's folder resolved once per folder (for a while, as
    the lookups below): `realpath` is a system call per path component, and a `check` asks
    for every file of the same few folders. A file that is itself a link is resolved whole."""
    # A relative path is relative to the working directory of the moment.
    return _real_file(path if os.path.isabs(path) else os.path.join(os.getcwd(), path))


@_recently_asked
def _real_file(path: str) -> str:
    """`real_file` of an absolute path: asked for the same files over and over."""
    # Not `abspath`: it removes `..` before the links are resolved, which `realpath` does not.
    folder, name = os.path.split(path)
    if name in ("", ".", "..") or _is_link(path):
        return os.path.realpath(path)
    return os.path.join(_real_folder(folder), name)


_is_link = _recently_asked(os.path.islink)


@_recently_asked
def _real_folder(folder: str) -> str:
    return os.path.realpath(folder)


@_recently_asked
def package_of(path: str | None) -> tuple[str, ...] | None:
    """The dotted parts of a module file's package: its folders that hold an `__init__.py`
    (`pkg/__init__.py` and `pkg/impl.py` both belong to `pkg`, which `.` names)."""
    if not path:
        return None
    return _folder_package(os.path.dirname(real_file(path)))


@_recently_asked
def _folder_package(folder: str) -> tuple[str, ...]:
    # os.path rather than pathlib: asked for every checked file, and several times cheaper.
    parts: list[str] = []
    while os.path.isfile(os.path.join(folder, "__init__.py")):
        parent = os.path.dirname(folder)
        if parent == folder:
            break
        parts.insert(0, os.path.basename(folder))
        folder = parent
    return tuple(parts)


def _top_folder(folder: str) -> str:
    """The folder holding the top package of which `folder` is a part (itself if none)."""
    for _ in _folder_package(folder):
        folder = os.path.dirname(folder)
    return folder


_MAX_NAMESPACE_FOLDERS = 4


def _enclosing_top_folder(folder: str) -> str:
    """`_top_folder`, past folders without an `__init__.py` inside a package: namespace
    subpackages (`pkg/_src/models/ops.py` with `pkg/__init__.py` only), which
    `import pkg._src.models.ops` finds from the folder holding `pkg`. `folder`'s own top
    when no package holds it."""
    top = above = _top_folder(folder)
    for _ in range(_MAX_NAMESPACE_FOLDERS):
        parent = os.path.dirname(above)
        if parent == above:
            break
        if os.path.isfile(os.path.join(parent, "__init__.py")):
            return _top_folder(parent)
        above = parent
    return top


def absolute_module(module: str | None, level: int, package: tuple[str, ...] | None) -> str | None:
    """The module `from <level dots><module> import` names, relative to `package`."""
    if not level:
        return module
    if package is None or level - 1 > len(package):
        return None
    base = package[: len(package) - (level - 1)]
    parts = [*base, *(module.split(".") if module else [])]
    return ".".join(parts) or None


def project_folder(root: str | None, path: str) -> str:
    """The folder of the project holding the module at `path` (links resolved): the root
    when it holds the folder of the module's top package, else that folder (a module
    outside the workspace, a workspace opened inside a package)."""
    top = _top_folder(os.path.dirname(real_file(path)))
    if root is not None:
        real_root = _real_folder(root)
        if top == real_root or top.startswith(real_root + os.sep):
            return real_root
    return top


@_recently_asked
def search_roots(root: str | None, path: str | None) -> tuple[Path, ...]:
    """Where workspace modules live: the root, its `src/`, the document's folder and the
    folder holding the document's top package; a document outside any package is a script,
    whose own folder comes first (`python scripts/run.py` imports its siblings first). Asked
    on every keystroke (each `realpath` a system call per path component): reused for a
    second, as the lookups below are."""
    return _folder_roots(root, os.path.dirname(real_file(path)) if path else None)


@_recently_asked
def _folder_roots(root: str | None, folder: str | None) -> tuple[Path, ...]:
    """`search_roots` for a document in `folder` (links resolved): the same for its files."""
    candidates = []
    if folder and not _folder_package(folder):
        candidates.append(folder)  # a script's folder: the first entry of its `sys.path`
    if root:
        candidates += [root, os.path.join(root, "src")]
    if folder:
        candidates += [folder, _top_folder(folder), _enclosing_top_folder(folder)]
    roots: list[str] = []
    for candidate in candidates:
        resolved = _real_folder(candidate)  # the same few folders for every file
        if os.path.isdir(resolved) and resolved not in roots:
            roots.append(resolved)
    return tuple(Path(root) for root in roots)


@_recently_asked
def module_file(module: str, roots: tuple[Path, ...]) -> Path | None:
    """The source file of a workspace module, found by path alone."""
    parts = module.split(".")
    for root in roots:
        base = os.path.join(root, *parts)
        for candidate in (base + ".py", os.path.join(base, "__init__.py")):
            if _may_be_file(candidate) and os.path.isfile(candidate):
                return Path(candidate)
    return None


def _may_be_file(path: str) -> bool:
    """While the file system is trusted (`file_system_trusted`: one `check` run), False when
    the listing of the path's folder lacks its name (or there is no such folder): most
    candidates of `module_file` are not there (each module is looked for under every search
    root, as a file and as a package), and one listing of a folder answers for all its
    candidates, where each `os.path.isfile` cost a system call. True otherwise, or when the
    folder cannot be listed: `os.path.isfile` then tells. (In the editor a file made since
    the folder was listed must be found: each candidate is asked.)"""
    if not math.isinf(_FRESH_SECONDS):
        return True
    folder, name = os.path.split(path)
    names = _folder_names(folder)
    return names is None or name in names


@_recently_asked
def _folder_names(folder: str) -> frozenset[str] | None:
    """The names in `folder`: empty if there is no such folder; None if it cannot be
    listed otherwise (a folder that may be searched but not read)."""
    try:
        return frozenset(os.listdir(folder))
    except (FileNotFoundError, NotADirectoryError):
        return frozenset()
    except OSError:
        return None


def read_disk(path: str) -> str | None:
    try:
        with open(path, encoding="utf-8") as handle:
            return handle.read()
    except (OSError, UnicodeDecodeError):
        return None

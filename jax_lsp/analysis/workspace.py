"""Where workspace modules live, found from paths alone: nothing is imported."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Target:
    """An imported callable: `attribute` of the module `module` (absolute dotted name)."""

    module: str
    attribute: str


def package_of(path: str | None) -> list[str] | None:
    """The dotted parts of a module file's package: its folders that hold an `__init__.py`
    (`pkg/__init__.py` and `pkg/impl.py` both belong to `pkg`, which `.` names)."""
    if not path:
        return None
    parts: list[str] = []
    folder = Path(path).resolve().parent
    while (folder / "__init__.py").is_file() and folder.parent != folder:
        parts.insert(0, folder.name)
        folder = folder.parent
    return parts


def absolute_module(module: str | None, level: int, package: list[str] | None) -> str | None:
    """The module `from <level dots><module> import` names, relative to `package`."""
    if not level:
        return module
    if package is None or level - 1 > len(package):
        return None
    base = package[: len(package) - (level - 1)]
    parts = [*base, *(module.split(".") if module else [])]
    return ".".join(parts) or None


def search_roots(root: str | None, path: str | None) -> list[Path]:
    """Where workspace modules live: the root, its `src/`, the document's folder and the
    folder holding the document's top package."""
    candidates = []
    if root:
        candidates += [Path(root), Path(root) / "src"]
    if path:
        folder = Path(path).resolve().parent
        candidates.append(folder)
        for _ in package_of(path) or ():
            folder = folder.parent
        candidates.append(folder)
    roots: list[Path] = []
    for candidate in candidates:
        resolved = candidate.resolve()
        if resolved.is_dir() and resolved not in roots:
            roots.append(resolved)
    return roots


def module_file(module: str, roots: list[Path]) -> Path | None:
    """The source file of a workspace module, found by path alone."""
    parts = module.split(".")
    for root in roots:
        base = root.joinpath(*parts)
        for candidate in (base.with_suffix(".py"), base / "__init__.py"):
            if candidate.is_file():
                return candidate
    return None


def read_disk(path: str) -> str | None:
    try:
        with open(path, encoding="utf-8") as handle:
            return handle.read()
    except (OSError, UnicodeDecodeError):
        return None

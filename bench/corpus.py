"""The pinned real-JAX corpus: download the wheels with pip, unpack them, count lines.

Run `python bench/corpus.py [REQUIREMENTS...]` (default: both pinned lists in bench/); other
bench scripts call `ensure_corpus()` (the first list).
Idempotent: wheels already in the cache are not downloaded again, and a package already
unpacked (marked by `.unpacked` naming its wheel) is not unpacked again.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import zipfile
from dataclasses import dataclass
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
# The pinned lists, carried by the repository: the first (7 packages, ~222k lines) and a
# second of expert JAX code outside it (8 packages, ~162k lines).
LISTS = (
    REPO_ROOT / "bench" / "real-jax-packages.txt",
    REPO_ROOT / "bench" / "more-jax-packages.txt",
)
CACHE = REPO_ROOT / "bench" / ".cache"
WHEELS = CACHE / "wheels"
CORPUS = CACHE / "corpus"
_MARKER = ".unpacked"
_PIN = re.compile(r"^\s*([A-Za-z0-9_.\-]+)==([^\s;]+)")
# A config file at the corpus root, so tools looking upward for settings stop there and use
# their defaults instead of this repository's (which excludes bench/.cache).
_ISOLATING_CONFIG = (
    "# Keeps jax-lsp from reading the repository's pyproject.toml.\n[tool.jax-lsp]\n"
)


@dataclass(frozen=True)
class Corpus:
    root: Path  # bench/.cache/corpus: one folder per package
    files: list[Path]  # every .py file, sorted
    lines: dict[str, int]  # package -> lines of .py

    @property
    def total_lines(self) -> int:
        return sum(self.lines.values())

    def package_of(self, path: Path) -> tuple[str, str]:
        """(package, path relative to the package root) of a corpus file."""
        relative = path.resolve().relative_to(self.root.resolve())
        return relative.parts[0], Path(*relative.parts[1:]).as_posix()


def shared_folder() -> Path:
    """The team's `shared/` folder beside the repository (or beside its main checkout, when this
    is a git worktree elsewhere); it holds the material measured on but not carried here, such
    as the real-bugs corpus."""
    roots = [REPO_ROOT]
    try:
        common = subprocess.run(
            ["git", "rev-parse", "--path-format=absolute", "--git-common-dir"],
            cwd=REPO_ROOT, capture_output=True, text=True, check=True,
        ).stdout.strip()  # fmt: skip
        roots.append(Path(common).parent)
    except (OSError, subprocess.CalledProcessError):
        pass
    for root in roots:
        if (root.parent / "shared").is_dir():
            return root.parent / "shared"
    return REPO_ROOT.parent / "shared"


def default_requirements() -> Path:
    """The first pinned list (the corpus the other bench scripts measure on)."""
    return LISTS[0]


def pinned(requirements: Path) -> list[tuple[str, str]]:
    """(name, version) of each `name==version` line."""
    pins = []
    for line in requirements.read_text(encoding="utf-8").splitlines():
        match = _PIN.match(line)
        if match:
            pins.append((match.group(1), match.group(2)))
    return pins


def _normalise(name: str) -> str:
    return re.sub(r"[-_.]+", "_", name).lower()


def _wheel_for(name: str, version: str) -> Path | None:
    prefix = f"{_normalise(name)}-{version}-"
    for wheel in WHEELS.glob("*.whl"):
        if wheel.name.lower().startswith(prefix):
            return wheel
    return None


def download(requirements: Path) -> None:
    """Fetch the pinned wheels (hashes checked by pip) unless all are cached already."""
    if all(_wheel_for(name, version) for name, version in pinned(requirements)):
        return
    WHEELS.mkdir(parents=True, exist_ok=True)
    command = [
        sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
        "--python-version", "3.11", "--implementation", "py", "--require-hashes",
        "-d", str(WHEELS), "-r", str(requirements),
    ]  # fmt: skip
    subprocess.run(command, check=True)


def unpack(requirements: Path) -> None:
    CORPUS.mkdir(parents=True, exist_ok=True)
    (CORPUS / "pyproject.toml").write_text(_ISOLATING_CONFIG, encoding="utf-8")
    for name, version in pinned(requirements):
        wheel = _wheel_for(name, version)
        if wheel is None:
            raise FileNotFoundError(f"no wheel for {name}=={version} in {WHEELS}")
        target = CORPUS / _normalise(name)
        marker = target / _MARKER
        if marker.is_file() and marker.read_text(encoding="utf-8") == wheel.name:
            continue
        with zipfile.ZipFile(wheel) as archive:
            archive.extractall(target)
        marker.write_text(wheel.name, encoding="utf-8")


def _count_lines(path: Path) -> int:
    with path.open("rb") as handle:
        return sum(1 for _ in handle)


def ensure_corpus(requirements: Path | None = None) -> Corpus:
    """Download and unpack if needed; the corpus folder and its .py files."""
    requirements = requirements or default_requirements()
    download(requirements)
    unpack(requirements)
    files: list[Path] = []
    lines: dict[str, int] = {}
    for name, _ in pinned(requirements):
        package = _normalise(name)
        found = sorted(p for p in (CORPUS / package).rglob("*.py") if ".dist-info" not in str(p))
        files.extend(found)
        lines[package] = sum(_count_lines(p) for p in found)
    return Corpus(CORPUS, files, lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("requirements", nargs="*", type=Path, default=list(LISTS))
    args = parser.parse_args()
    total = 0
    for requirements in args.requirements:
        corpus = ensure_corpus(requirements)
        print(f"{requirements.name}:")
        for package, count in corpus.lines.items():
            print(f"  {package:<10} {count:>8,} lines")
        print(f"  {'total':<10} {corpus.total_lines:>8,} lines in {len(corpus.files)} files")
        total += corpus.total_lines
    print(f"{total:,} lines in all, in {CORPUS}")


if __name__ == "__main__":
    main()

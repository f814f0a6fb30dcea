"""Fill bundled/libs with jax_lsp and its pure-Python dependencies, for `importStrategy: useBundled`.

Run by `npm run package` with any Python >= 3.11 that has pip (`PYTHON=... npm run package` picks
another). libcst is left out: it has a native part built per Python version and platform, and only
the on-demand codemods (JAX401's PyTree rewrites, JAX801's where-mask rewrite) need it. They are
skipped when it is missing; the interpreter's own libcst is used when it has one, because bundled
libs come first on sys.path but do not contain it.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

EXTENSION = Path(__file__).resolve().parent.parent
REPO = EXTENSION.parent
LIBS = EXTENSION / "bundled" / "libs"
NATIVE = {"libcst"}
# Back-ports that the dependencies want on Python 3.10 only; the pip running here may be newer,
# so its environment markers would drop them.
BACKPORTS = ["tomli>=2", "exceptiongroup>=1.1.1"]
NATIVE_SUFFIXES = {".so", ".pyd", ".dylib"}


def requirement_name(requirement: str) -> str:
    return re.split(r"[<>=!~;\[ ]", requirement, maxsplit=1)[0].strip().lower()


def pure_requirements() -> list[str]:
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    wanted = [
        requirement.split(";")[0].strip()
        for requirement in project["dependencies"]
        if requirement_name(requirement) not in NATIVE
    ]
    names = {requirement_name(requirement) for requirement in wanted}
    return wanted + [b for b in BACKPORTS if requirement_name(b) not in names]


def main() -> None:
    shutil.rmtree(LIBS, ignore_errors=True)
    LIBS.mkdir(parents=True)
    pip = [sys.executable, "-m", "pip", "install", "--quiet", "--no-compile", "--target", str(LIBS)]
    # Pure wheels only, chosen for the oldest supported Python: they run on every newer one.
    pure = ["--only-binary=:all:", "--platform", "any", "--implementation", "py", "--abi", "none"]
    subprocess.run([*pip, *pure, "--python-version", "3.10", *pure_requirements()], check=True)
    shutil.copytree(
        REPO / "jax_lsp", LIBS / "jax_lsp", ignore=shutil.ignore_patterns("__pycache__", "*.pyc")
    )
    shutil.rmtree(LIBS / "bin", ignore_errors=True)  # console scripts point at this interpreter
    native = [p for p in LIBS.rglob("*") if p.suffix in NATIVE_SUFFIXES]
    if native:
        sys.exit(f"bundled/libs must be pure Python, found: {[str(p) for p in native]}")
    packages = sorted(p.name for p in LIBS.iterdir() if not p.name.endswith(".dist-info"))
    print(f"bundled/libs: {', '.join(packages)}")


if __name__ == "__main__":
    main()

"""`pip install -e .[test]` installs every package the tests and the rules' examples import.

CI installs exactly that, while a developer's environment holds more: a test importing a package
that only the developer has (flax, before it joined the extras) passes here and fails in CI. The
packages that install brings are read from pyproject.toml and, through their installed metadata,
their own requirements; the imports, from every Python file under tests/ and every code text of
the rules' examples (which tests/rules/test_truth.py runs under JAX).
"""

from __future__ import annotations

import ast
import importlib.metadata as metadata
import sys
import textwrap
from collections.abc import Iterable, Iterator
from pathlib import Path

from packaging.requirements import Requirement

from jax_lsp.diagnostics import ALL_RULES

if sys.version_info >= (3, 11):
    import tomllib
else:
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]
# The repository's own packages (jax_lsp, tests, bench): importable from the root pytest runs in.
FIRST_PARTY = {path.name for path in ROOT.iterdir() if (path / "__init__.py").is_file()}
IMPORT_ERRORS = {"ImportError", "ModuleNotFoundError"}


def _normalized(name: str) -> str:
    return name.lower().replace("_", "-").replace(".", "-")


def _installed_by_test_extra() -> set[str]:
    """The distributions `pip install -e .[test]` installs (normalized names): the project's
    requirements and its `test` extra's, and their requirements, recursively."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    pending = [
        (Requirement(text), frozenset())
        for text in project["dependencies"] + project["optional-dependencies"]["test"]
    ]
    found: set[str] = set()
    while pending:
        requirement, extras = pending.pop()  # extras: those its requirer was installed with
        marker = requirement.marker
        if marker is not None and not any(marker.evaluate({"extra": e}) for e in extras or {""}):
            continue
        name = _normalized(requirement.name)
        if name in found:
            continue
        found.add(name)
        # A declared requirement that is not installed fails here: the environment is not
        # what `pip install -e .[test]` makes.
        distribution = metadata.distribution(requirement.name)
        for text in distribution.requires or ():
            pending.append((Requirement(text), frozenset(requirement.extras)))
    return found


def _importable_names(distributions: set[str]) -> set[str]:
    """The top-level modules those distributions provide."""
    return {
        module
        for module, owners in metadata.packages_distributions().items()
        if any(_normalized(owner) in distributions for owner in owners)
    }


def _optional(handlers: Iterable[ast.ExceptHandler]) -> bool:
    """An import under `try` whose failure is caught: the code runs without the package."""
    for handler in handlers:
        caught = handler.type
        names = caught.elts if isinstance(caught, ast.Tuple) else [caught]
        if caught is None or any(isinstance(n, ast.Name) and n.id in IMPORT_ERRORS for n in names):
            return True
    return False


def _on_python_version(test: ast.expr) -> bool:
    """`if sys.version_info ...`: which branch runs depends on the Python, and so do the
    requirements (`tomli; python_version < '3.11'`)."""
    return "sys.version_info" in ast.unparse(test)


def _imported_top_levels(tree: ast.AST) -> Iterator[tuple[str, int]]:
    """(top-level module, line) of each absolute import that is neither optional nor for
    another Python version."""
    optional: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Try) and _optional(node.handlers):
            guarded = node.body
        elif isinstance(node, ast.If) and _on_python_version(node.test):
            guarded = node.body + node.orelse
        else:
            continue
        optional.update(id(child) for statement in guarded for child in ast.walk(statement))
    for node in ast.walk(tree):
        if id(node) in optional:
            continue
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name.partition(".")[0], node.lineno
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            yield node.module.partition(".")[0], node.lineno


def _sources() -> Iterator[tuple[str, str]]:
    """(where, code) of every test file and every code text of a rule example."""
    for path in sorted((ROOT / "tests").rglob("*.py")):
        yield str(path.relative_to(ROOT)), path.read_text(encoding="utf-8")
    for rule in ALL_RULES:
        for kind, examples in (("invalid", rule.invalid), ("valid", rule.valid)):
            for number, example in enumerate(examples):
                texts = (example.source, example.check, example.fixed, example.fixed_check)
                for text in filter(None, texts):
                    yield f"{rule.code} {kind} example {number}", textwrap.dedent(text)


def _local_modules(where: str) -> set[str]:
    """Modules beside a test file, importable as top-level names when pytest runs it."""
    path = ROOT / where
    if not path.is_file():
        return set()
    return {p.stem for p in path.parent.glob("*.py")} | {
        p.name for p in path.parent.iterdir() if (p / "__init__.py").is_file()
    }


def test_installing_the_test_extra_covers_every_import() -> None:
    available = (
        _importable_names(_installed_by_test_extra()) | set(sys.stdlib_module_names) | FIRST_PARTY
    )
    missing = []
    for where, code in _sources():
        try:
            tree = ast.parse(code)
        except SyntaxError:
            continue  # an example of broken code, or IPython syntax: never imported
        local = _local_modules(where)
        missing += [
            f"{where}:{line}: {module}"
            for module, line in _imported_top_levels(tree)
            if module not in available and module not in local
        ]
    assert missing == [], "add their distributions to the `test` extra in pyproject.toml"


def test_the_check_sees_a_package_outside_the_extra() -> None:
    """The check itself: a package the extra does not bring is not counted as available, one it
    does (a requirement of a requirement) is."""
    available = _importable_names(_installed_by_test_extra())
    assert "jaxlib" in available  # jax's requirement
    assert "flax" in available
    assert "matplotlib" not in available  # the `bench` extra's only
    code = """
        import matplotlib.pyplot
        try:
            import psutil
        except ImportError:
            pass
        if sys.version_info < (3, 11):
            import tomli
        """
    tree = ast.parse(textwrap.dedent(code))
    assert list(_imported_top_levels(tree)) == [("matplotlib", 2)]

"""Module facts about 64-bit mode: where `jax_enable_x64` is switched on, whether the module
reads the flag, where the imports end and where the first JAX array is created at module level.

Lines are document-absolute (0-based). Statements inside functions, lambdas and classes'
methods do not run at import time, so only module-level code counts as "before" something.
"""

from __future__ import annotations

import ast
import os
import re
import time
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from jax_lsp.analysis.imports import Resolver
from jax_lsp.analysis.kinds import ARRAY_MODULES, STATIC_RESULTS
from jax_lsp.analysis.nodes import child_nodes, walk_nodes

FLAG = "jax_enable_x64"
_FLAG_SPELLINGS = frozenset({FLAG, "JAX_ENABLE_X64"})
_UPDATE = "jax.config.update"
_CONTEXT = "jax.enable_x64"
# jax.random functions that make or reshape keys: their result is uint32 either way.
KEY_MAKERS = frozenset(
    f"jax.random.{name}"
    for name in ["key", "PRNGKey", "split", "fold_in", "key_data", "wrap_key_data", "clone"]
)
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)


@dataclass(frozen=True)
class X64Facts:
    # The project config or the environment sets JAX_ENABLE_X64, or this is a test file.
    settings_enabled: bool = False
    module_enable_line: int | None = None  # first module-level update("jax_enable_x64", True)
    # Function code may run with x64 on: the module enables it somewhere (in a function, or
    # to a value that is not a literal), reads the flag (library code that adapts to it) or
    # sets the environment variable.
    maybe_enabled_at_call_time: bool = False
    reads_flag: bool = False
    jax_name: str | None = None  # the local name a leading `import jax` binds
    first_array_line: int | None = None  # first module-level statement creating a JAX array
    # Functions called by name inside `with jax.enable_x64(...)` bodies: they run with x64.
    x64_callees: frozenset[str] = frozenset()


def is_x64_update(call: ast.Call, resolver: Resolver) -> bool:
    """`jax.config.update("jax_enable_x64", ...)` (any value)."""
    return (
        resolver.qualname(call.func) == _UPDATE
        and bool(call.args)
        and isinstance(call.args[0], ast.Constant)
        and call.args[0].value == FLAG
    )


def enables_x64(call: ast.Call, resolver: Resolver) -> bool | None:
    """True/False for a literal value of an x64 update, None when the value is not literal."""
    if len(call.args) < 2 or not isinstance(call.args[1], ast.Constant):
        return None
    value = call.args[1].value
    if isinstance(value, str):
        return value.lower() in ("1", "true", "yes")
    return bool(value)


def is_x64_context(expr: ast.expr, resolver: Resolver) -> bool:
    """`jax.enable_x64()` / `jax.enable_x64(True)` as a `with` item."""
    if not (isinstance(expr, ast.Call) and resolver.qualname(expr.func) == _CONTEXT):
        return False
    if not expr.args:
        return True
    first = expr.args[0]
    return not (isinstance(first, ast.Constant) and not first.value)


def module_level_nodes(statement: ast.stmt) -> Iterator[ast.AST]:
    """Nodes of a top-level statement that run at import time (not inside def/lambda)."""
    stack: list[ast.AST] = [statement]
    while stack:
        node = stack.pop()
        if isinstance(node, _SCOPES):
            continue
        yield node
        stack.extend(child_nodes(node))


def creates_array(node: ast.AST, resolver: Resolver) -> bool:
    if not isinstance(node, ast.Call):
        return False
    qualname = resolver.qualname(node.func) or ""
    if qualname in STATIC_RESULTS or qualname in KEY_MAKERS:
        return False
    return qualname.startswith(ARRAY_MODULES) or qualname == "jax.device_put"


def _mentions_flag(node: ast.AST) -> bool:
    if isinstance(node, ast.Constant) and node.value in _FLAG_SPELLINGS:
        return True
    return isinstance(node, ast.Attribute) and node.attr in (FLAG, "x64_enabled")


@dataclass(frozen=True)
class _StatementFacts:
    """What one top-level statement contributes; lines relative to its first line."""

    is_import: bool
    is_docstring: bool
    binds_jax: str | None
    enable_line: int | None
    at_call_time: bool
    reads: bool
    array_line: int | None
    x64_callees: frozenset[str]


def may_mention_x64(text: str, resolver: Resolver) -> bool:
    """Can code with this text update, read or enable 64-bit mode? Every spelling of the flag
    and of `jax.enable_x64` contains "x64", or a name bound to something that does."""
    if "x64" in text.lower():
        return True
    aliases = [name for name, value in resolver.bindings_items() if "x64" in value.lower()]
    return any(re.search(rf"\b{re.escape(name)}\b", text) for name in aliases)


def _first_array_line(statement: ast.stmt, resolver: Resolver) -> int | None:
    """Line (relative) of the first node creating an array at import time, in `ast.walk`
    order (breadth first), not looking inside functions."""
    queue = deque([statement])
    while queue:
        node = queue.popleft()
        if isinstance(node, _SCOPES):
            continue
        if creates_array(node, resolver):
            return node.lineno - statement.lineno
        queue.extend(child_nodes(node))
    return None


def statement_facts(
    statement: ast.stmt, resolver: Resolver, mentions_x64: bool = True
) -> _StatementFacts:
    """`mentions_x64`: False when the statement's unit cannot touch the flag (may_mention_x64),
    so only the import facts and the first array creation are looked for."""
    enable_line, at_call_time, reads, callees = (
        _flag_facts(statement, resolver) if mentions_x64 else (None, False, False, frozenset())
    )
    return _StatementFacts(
        isinstance(statement, ast.Import | ast.ImportFrom),
        isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant),
        _binds_jax(statement),
        enable_line,
        at_call_time,
        reads,
        _first_array_line(statement, resolver),
        callees,
    )


def _flag_facts(
    statement: ast.stmt, resolver: Resolver
) -> tuple[int | None, bool, bool, frozenset[str]]:
    """(line of the first import-time enable, enabled maybe at call time, reads the flag,
    functions called inside `with jax.enable_x64()`)."""
    enable_line: int | None = None
    at_call_time = reads = False
    callees: set[str] = set()
    top_level = set(module_level_nodes(statement))
    for node in walk_nodes(statement):
        if isinstance(node, ast.Call) and is_x64_update(node, resolver):
            enabled = enables_x64(node, resolver)
            if node in top_level and enabled and enable_line is None:
                enable_line = node.lineno - statement.lineno
            # Enabled in a function (it may run first) or to a value we cannot read.
            at_call_time = at_call_time or enabled is None or (enabled and node not in top_level)
            continue
        if isinstance(node, ast.With | ast.AsyncWith) and any(
            is_x64_context(item.context_expr, resolver) for item in node.items
        ):
            callees.update(
                call.func.id
                for call in walk_nodes(node)
                if isinstance(call, ast.Call) and isinstance(call.func, ast.Name)
            )
        elif _mentions_flag(node) and not _is_update_argument(node, statement, resolver):
            reads = True
    return enable_line, at_call_time, reads, frozenset(callees)


def _binds_jax(statement: ast.stmt) -> str | None:
    binds_jax = None
    if isinstance(statement, ast.Import):
        for alias in statement.names:
            if alias.name == "jax":
                binds_jax = alias.asname or "jax"
    return binds_jax


def combine_x64_facts(
    statements: list[tuple[int, _StatementFacts]], settings_enabled: bool
) -> X64Facts:
    """Module facts from each top-level statement's facts and absolute first line."""
    module_enable: int | None = None
    first_array: int | None = None
    jax_name: str | None = None
    at_call_time = reads = False
    callees: set[str] = set()
    leading = True
    for start, facts in statements:
        if leading and facts.is_import:
            jax_name = facts.binds_jax or jax_name
        elif not facts.is_docstring:
            leading = False
        if module_enable is None and facts.enable_line is not None:
            module_enable = start + facts.enable_line
        if first_array is None and facts.array_line is not None:
            first_array = start + facts.array_line
        at_call_time = at_call_time or facts.at_call_time
        reads = reads or facts.reads
        callees |= facts.x64_callees
    return X64Facts(
        settings_enabled,
        module_enable,
        at_call_time or reads,
        reads,
        jax_name,
        first_array,
        frozenset(callees),
    )


def _is_update_argument(node: ast.AST, statement: ast.stmt, resolver: Resolver) -> bool:
    """The flag-name string of an update call (not a read of the flag)."""
    return any(
        isinstance(call, ast.Call) and is_x64_update(call, resolver) and call.args[0] is node
        for call in walk_nodes(statement)
    )


# -- the project's x64 mode ---------------------------------------------------------------------
# A program runs with x64 on when any module of its package switches it on (a script or entry
# point that `jax.config.update("jax_enable_x64", True)`), or its test and tool configuration
# sets JAX_ENABLE_X64 (tox.ini, pytest.ini, setup.cfg, a conftest.py). Found from files alone:
# nothing is imported. The answer for a folder is reused for a few seconds (the server asks on
# every keystroke); a file is read again only when its size or time stamp changes.
_PROJECT_FRESH_SECONDS = 5.0
_MAX_FILES = 3000  # a package larger than this is scanned only this far
_CONFIG_FILES = ("tox.ini", "pytest.ini", "setup.cfg", ".env")
_ENV_SETTING = re.compile(r"JAX_ENABLE_X64\s*[=:]\s*[\"']?(1|true|yes)\b", re.IGNORECASE)
_SKIPPED_FOLDERS = frozenset({"node_modules", "site-packages", "build", "dist", "__pycache__"})
_project_answers: dict[str, tuple[float, frozenset[Path]]] = {}
# path -> (when, the resolved file, its package folder, its project folder)
_located: dict[str, tuple[float, Path, Path, Path]] = {}
_file_answers: dict[str, tuple[tuple[int, int], bool]] = {}


def project_enables_x64(path: str | None) -> bool:
    """Does another file of the package holding `path` (or its project's test configuration)
    switch x64 on? The file's own switch is a module fact, placed by line (JAX902)."""
    if not path:
        return False
    now = time.monotonic()
    located = _located.get(path)
    if located is None or now - located[0] >= _PROJECT_FRESH_SECONDS:
        # Resolving the path and finding its package stats the folders above it: once per
        # file while fresh, not on every keystroke.
        try:
            file = Path(path).resolve()
            located = _located[path] = (now, file, *_package_and_project(file))
        except OSError:
            return False
        if len(_located) > 1024:
            _located.clear()
    _, file, package, project = located
    key = str(package)
    known = _project_answers.get(key)
    if known is None or now - known[0] >= _PROJECT_FRESH_SECONDS:
        if len(_project_answers) > 1024:
            _project_answers.clear()
        enabling = frozenset(
            f
            for f in _candidate_files(package, project)
            if _file_enables_x64(f) and _starts_package(f, package, project)
        )
        known = _project_answers[key] = (now, enabling)
    others = known[1] - {file}
    if package != project or not others:
        return bool(others)
    # A folder of scripts: each is its own program. A configuration file or conftest counts;
    # a sibling script only when it imports this module (it starts the program).
    return any(
        f.suffix != ".py" or f.name == "conftest.py" or _imports(f, file.stem) for f in others
    )


def _starts_package(file: Path, package: Path, project: Path) -> bool:
    """Does a file that switches x64 on run before the package's code? A script beside the
    package (`main.py` next to `pkg/`) only when it imports the package; any other file
    (the package's own modules, the configuration, a conftest) always. A folder of scripts
    is judged per module (`project_enables_x64`)."""
    if package == project or file.parent != project or file.suffix != ".py":
        return True
    return file.name == "conftest.py" or _imports(file, package.name)


# Folders without `__init__.py` between a module and its package (`netket/_src/stats/` above
# `online_stats/`): namespace folders, importable as `netket._src.stats`. At most this many.
_NAMESPACE_LEVELS = 3


def _package_and_project(file: Path) -> tuple[Path, Path]:
    """The outermost package folder holding `file` (its own folder for a lone script) and the
    folder above it, where a project keeps its configuration and tests."""
    folder = file.parent
    while True:
        while (folder / "__init__.py").is_file() and (folder.parent / "__init__.py").is_file():
            folder = folder.parent
        outer = _package_above_namespace(folder)
        if outer is None:
            break
        folder = outer
    if not (folder / "__init__.py").is_file():
        return folder, folder  # a script folder: its own files only
    return folder, folder.parent


def _package_above_namespace(folder: Path) -> Path | None:
    """The package folder above namespace folders (no `__init__.py`) right above `folder`, or
    right holding it: `netket/` for `netket/_src/stats/online_stats/`."""
    gap = folder.parent if (folder / "__init__.py").is_file() else folder
    for _ in range(_NAMESPACE_LEVELS):
        # A namespace folder is named like a module and is no project's root.
        if gap == gap.parent or not gap.name.isidentifier() or _is_project_root(gap):
            return None
        if (gap.parent / "__init__.py").is_file():
            return gap.parent
        gap = gap.parent
    return None


def _is_project_root(folder: Path) -> bool:
    return any((folder / name).is_file() for name in ("pyproject.toml", "setup.py", "setup.cfg"))


def _candidate_files(package: Path, project: Path) -> Iterator[Path]:
    for name in _CONFIG_FILES:
        yield project / name
    yield project / "conftest.py"
    if package == project:  # a folder of scripts: not recursive (it may be a home folder)
        yield from sorted(package.glob("*.py"))[:_MAX_FILES]
        return
    # The scripts beside the package (`main.py` next to `pkg/`), not recursive.
    yield from (f for f in sorted(project.glob("*.py"))[:_MAX_FILES] if f.name != "conftest.py")
    tests = project / "tests"
    if tests.is_dir():
        yield from sorted(tests.rglob("conftest.py"))[:_MAX_FILES]
    count = 0
    for folder, subfolders, files in os.walk(package):
        subfolders[:] = [s for s in subfolders if s not in _SKIPPED_FOLDERS and s[0] != "."]
        for name in files:
            if name.endswith(".py"):
                count += 1
                if count > _MAX_FILES:
                    return
                yield Path(folder) / name


def _imports(script: Path, module: str) -> bool:
    """Does `script` import `module` (a top-level name: `import pkg.ops`, `from pkg import`)?"""
    try:
        text = script.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False
    pattern = (
        rf"^\s*(from\s+{re.escape(module)}(\.[\w.]+)?\s+import\b"
        rf"|import\s+[\w., ]*\b{re.escape(module)}\b)"
    )
    return re.search(pattern, text, re.MULTILINE) is not None


def _file_enables_x64(file: Path) -> bool:
    try:
        stat = file.stat()
    except OSError:
        return False
    stamp = (stat.st_size, stat.st_mtime_ns)
    known = _file_answers.get(str(file))
    if known is not None and known[0] == stamp:
        return known[1]
    answer = _text_enables_x64(file)
    if len(_file_answers) > 65536:
        _file_answers.clear()
    _file_answers[str(file)] = (stamp, answer)
    return answer


def _text_enables_x64(file: Path) -> bool:
    try:
        text = file.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False
    if file.suffix != ".py":
        return bool(_ENV_SETTING.search(text))
    if "jax_enable_x64" not in text and "JAX_ENABLE_X64" not in text:
        return False
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return False
    return any(_switches_x64_on(node) for node in walk_nodes(tree))


def _switches_x64_on(node: ast.AST) -> bool:
    """`<...>.config.update("jax_enable_x64", True)`, `os.environ["JAX_ENABLE_X64"] = "1"` or
    `os.environ.setdefault("JAX_ENABLE_X64", "1")`, spelled any way (no resolver here), or the
    same with a value that is not a literal (unsure means on, as for the module's own switch)."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and len(node.args) == 2:
        name, value = node.args
        if not (isinstance(name, ast.Constant) and name.value in _FLAG_SPELLINGS):
            return False
        return node.func.attr in ("update", "setdefault") and _maybe_truthy(value)
    if isinstance(node, ast.Assign) and len(node.targets) == 1:
        target = node.targets[0]
        return (
            isinstance(target, ast.Subscript)
            and isinstance(target.slice, ast.Constant)
            and target.slice.value == "JAX_ENABLE_X64"
            and _maybe_truthy(node.value)
        )
    return False


def _maybe_truthy(value: ast.expr) -> bool:
    """A literal that switches the flag on, or a value read at run time (a package's own
    setting, `update("jax_enable_x64", val)` in its config callback, may well be on)."""
    if not isinstance(value, ast.Constant):
        return True
    if isinstance(value.value, str):
        return value.value.lower() in ("1", "true", "yes")
    return value.value is True or value.value == 1

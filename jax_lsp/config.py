"""Settings: `[tool.jax-lsp]` in pyproject.toml, then the editor's settings on top.

Keys (kebab-case in pyproject, camelCase accepted from editors): those of
`settings_table.OPTIONS`; any other key of a settings file is an error (an editor's are left
out: it sends its own settings too). Codes match by prefix: "JAX7" selects JAX701-JAX703.
"""

from __future__ import annotations

import fnmatch
import functools
import os
import re
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path, PurePath
from typing import Any

from jax_lsp.analysis.api_changes import jax_release, parse_version
from jax_lsp.diagnostics import ALL_RULES
from jax_lsp.diagnostics.base import Rule
from jax_lsp.findings import Severity
from jax_lsp.settings_table import OPTIONS, SETTING_KEYS

DEFAULT_EXCLUDE = (
    ".git",
    ".hg",
    ".svn",
    ".venv",
    "venv",
    ".tox",
    ".nox",
    "__pycache__",
    "node_modules",
    "build",
    "dist",
    ".eggs",
    "site-packages",
    ".mypy_cache",
    ".ruff_cache",
    ".pytest_cache",
)


class ConfigError(ValueError):
    """A setting with a value we cannot use."""


def _codes(value: Any, key: str) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list | tuple) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"`{key}` must be a list of rule codes")
    known = {rule.code for rule in ALL_RULES}
    codes = tuple(v.strip().upper() for v in value if v.strip())
    for code in codes:
        if code != "ALL" and not any(k.startswith(code) for k in known):
            raise ConfigError(f"`{key}`: unknown rule code {code!r}")
    return codes


def _matches(code: str, selectors: tuple[str, ...]) -> bool:
    return any(s == "ALL" or code.startswith(s) for s in selectors)


_MEMOS = ("_chosen_rules", "_severities", "_exclusions")


@dataclass(frozen=True)
class Settings:
    select: tuple[str, ...] = ()  # empty: the rules that are on by default
    extend_select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    per_file_ignores: tuple[tuple[str, tuple[str, ...]], ...] = ()
    exclude: tuple[str, ...] = DEFAULT_EXCLUDE
    extend_exclude: tuple[str, ...] = ()
    severity: tuple[tuple[str, Severity], ...] = ()
    fix_all: bool = True
    unsafe_fixes: bool = False
    enable_x64: bool = False  # the project runs with JAX_ENABLE_X64 set
    # The JAX release the project uses ("0.4.30"): the setting, else the lowest its requirement
    # on `jax` allows (`declared_jax_version`); None: the installed one's, else the newest the
    # removed/deprecated table knows (see `jax_version`).
    target_jax_version: str | None = None
    # Library mode: what the project's users trace, as glob patterns over dotted names
    # (`mylib.ops.*`, `mylib.envs.*.step`): checked as code `jax.jit` traces.
    traced: tuple[str, ...] = ()
    traced_line: int = 0  # where the settings file sets `traced` (0-based), for the editor
    respect_gitignore: bool = True  # `check` skips what .gitignore and .ignore files name
    # The command line's selection, applied after the file's (as ruff does): rules it adds
    # even if the file ignores them, and rules it removes.
    late_select: tuple[str, ...] = ()
    late_ignore: tuple[str, ...] = ()
    root: str | None = None  # the folder of the pyproject.toml it came from
    extra: dict = field(default_factory=dict, compare=False, repr=False)

    def rules_for(self, path: str | None = None) -> tuple[type[Rule], ...]:
        removed = self.late_ignore + self._per_file_ignores(path)
        # Asked on every keystroke: the choice depends on the path only through its ignores.
        chosen_by_removed = self._chosen_rules
        if removed not in chosen_by_removed:
            chosen_by_removed[removed] = self._choose_rules(removed)
        return chosen_by_removed[removed]

    def __getstate__(self) -> dict[str, Any]:
        # Without what is memoised on the settings (`cached_property`): workers get fields.
        return {name: value for name, value in self.__dict__.items() if name not in _MEMOS}

    @cached_property
    def _chosen_rules(self) -> dict[tuple[str, ...], tuple[type[Rule], ...]]:
        return {}

    def _choose_rules(self, removed: tuple[str, ...]) -> tuple[type[Rule], ...]:
        chosen = []
        for rule in ALL_RULES:
            selected = (
                _matches(rule.code, self.select) if self.select else rule.default_enabled
            ) or _matches(rule.code, self.extend_select)
            selected = (selected and not _matches(rule.code, self.ignore)) or _matches(
                rule.code, self.late_select
            )
            if selected and not _matches(rule.code, removed):
                chosen.append(rule.configured(self))
        return tuple(chosen)

    def _per_file_ignores(self, path: str | None) -> tuple[str, ...]:
        if not path or not self.per_file_ignores:
            return ()
        relative = self.relative(path)
        codes: list[str] = []
        for pattern, ignored in self.per_file_ignores:
            if _glob(relative, pattern):
                codes.extend(ignored)
        return tuple(codes)

    def relative(self, path: str) -> str:
        if self.root:
            try:
                return PurePath(os.path.relpath(path, self.root)).as_posix()
            except ValueError:
                pass
        return PurePath(path).as_posix()

    @cached_property
    def _severities(self) -> Mapping[str, Severity]:
        result: dict[str, Severity] = {}
        for selector, severity in self.severity:
            for rule in ALL_RULES:
                if _matches(rule.code, (selector,)):
                    result[rule.code] = severity
        return result

    @property
    def jax_version(self) -> tuple[int, ...]:
        """The JAX release the project uses: `target-jax-version`, else the installed JAX's
        (read from its metadata: jax is never imported), else the newest the table knows."""
        return jax_release(self.target_jax_version)

    def severities(self) -> Mapping[str, Severity]:
        """Each rule's severity where the settings change it (asked on every keystroke)."""
        return self._severities

    @cached_property
    def _exclusions(self) -> dict[str, bool]:
        return {}

    def is_excluded(self, path: str) -> bool:
        """A path matching an exclude pattern whole (see `_glob`), or one of its parts
        (memoised: the editor asks it of the open file on every keystroke)."""
        known = self._exclusions.get(path)
        if known is None:
            known = self._exclusions[path] = self._excludes(self.relative(path))
        return known

    def _excludes(self, relative: str) -> bool:
        relative = os.path.normcase(relative)
        matches_part, matches_path = _exclusion_matchers(self.exclude + self.extend_exclude)
        return matches_path(relative) or any(matches_part(p) for p in PurePath(relative).parts)

    def with_command_line(
        self,
        select: list[str] | None = None,
        extend_select: list[str] | None = None,
        ignore: list[str] | None = None,
    ) -> Settings:
        """The command line's choice of rules on top of the file's, in ruff's order: `--select`
        replaces the file's choice (its ignores too), `--extend-select` adds rules (even ones
        the file ignores), `--ignore` removes rules. Per-file ignores still apply."""
        settings = self
        if select:
            settings = replace(self, select=_codes(select, "--select"), extend_select=(), ignore=())
        return replace(
            settings,
            late_select=_codes(extend_select, "--extend-select"),
            late_ignore=_codes(ignore, "--ignore"),
        )

    def merged(self, overrides: Mapping[str, Any]) -> Settings:
        """These settings with `overrides` (editor or command-line settings) on top."""
        return replace(self, **_parse(overrides)) if overrides else self


def _glob_variants(pattern: str) -> tuple[str, ...]:
    """The path itself, anything under it, and both again at any depth."""
    pattern = pattern.rstrip("/")
    return (pattern, f"{pattern}/*", f"*/{pattern}", f"*/{pattern}/*")


def _glob(relative: str, pattern: str) -> bool:
    return any(fnmatch.fnmatch(relative, variant) for variant in _glob_variants(pattern))


def _never(name: str) -> bool:
    return False


@functools.lru_cache(maxsize=16)
def _exclusion_matchers(
    patterns: tuple[str, ...],
) -> tuple[Callable[[str], bool], Callable[[str], bool]]:
    """What `fnmatch` tests one pattern at a time (file discovery asks for every file and
    folder), as one regex for path parts and one for whole paths; the names they are given
    must be `os.path.normcase`d, as fnmatch does."""

    def any_of(globs: list[str]) -> Callable[[str], bool]:
        if not globs:
            return _never
        regex = re.compile("|".join(fnmatch.translate(os.path.normcase(g)) for g in globs))
        return lambda name: regex.match(name) is not None

    variants = [variant for pattern in patterns for variant in _glob_variants(pattern)]
    return any_of(list(patterns)), any_of(variants)


def _parse(raw: Mapping[str, Any]) -> dict[str, Any]:
    values: dict[str, Any] = {}
    for key, value in raw.items():
        name = SETTING_KEYS.get(key)
        if name is None or value is None:
            continue
        if name in ("select", "extend_select", "ignore"):
            values[name] = _codes(value, key)
        elif name == "traced":
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise ConfigError(f'`{key}` must be a list of dotted names such as "mylib.ops.*"')
            values[name] = tuple(value)
        elif name in ("exclude", "extend_exclude"):
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise ConfigError(f"`{key}` must be a list of glob patterns")
            values[name] = tuple(value)
        elif name == "per_file_ignores":
            if not isinstance(value, Mapping):
                raise ConfigError(f"`{key}` must map glob patterns to lists of codes")
            values[name] = tuple((p, _codes(c, f"{key}.{p}")) for p, c in value.items())
        elif name == "severity":
            if not isinstance(value, Mapping):
                raise ConfigError(f"`{key}` must map rule codes to error/warning/info")
            try:
                values[name] = tuple(
                    (code.upper(), Severity(str(level).lower())) for code, level in value.items()
                )
            except ValueError as error:
                raise ConfigError(f"`{key}`: {error}") from None
        elif name == "target_jax_version":
            text = str(value).strip()
            if isinstance(value, bool) or not parse_version(text):
                raise ConfigError(f'`{key}` must be a JAX release such as "0.4.30"')
            values[name] = text
        elif not isinstance(value, bool):
            raise ConfigError(f"`{key}` must be true or false")
        else:
            values[name] = value
    return values


def find_pyproject(start: Path) -> Path | None:
    return _nearest(start, "pyproject.toml")


def _nearest(start: Path, name: str) -> Path | None:
    """The file `name` in the folder `start` (or holding it) or the nearest one above."""
    start = start.resolve()
    for folder in [start, *start.parents] if start.is_dir() else start.parents:
        candidate = folder / name
        if candidate.is_file():
            return candidate
    return None


def _pytest_env_sets_x64(data: Mapping[str, Any]) -> bool:
    """pytest-env's `env = ["JAX_ENABLE_X64=1"]` (optionally with its D:/R: prefixes)."""
    env = data.get("tool", {}).get("pytest", {}).get("ini_options", {}).get("env", [])
    for entry in env if isinstance(env, list) else []:
        name, _, value = str(entry).partition("=")
        name = name.strip().removeprefix("D:").removeprefix("R:")
        if name == "JAX_ENABLE_X64" and value.strip().lower() in ("1", "true", "yes"):
            return True
    return False


# A requirement on JAX: its name (extras and spaces allowed), then its version specifiers.
_JAX_REQUIREMENT = re.compile(
    r"^\s*jax(?![\w.-])\s*(?:\[[^\]]*\])?\s*(?P<specifiers>[^;#]*)", re.IGNORECASE
)
# A specifier that bounds the version from below (`==0.4.20`, `>=0.4.20`, `~=0.4.20`).
_LOWER_BOUND = re.compile(r"(?:===?|>=|~=|>)\s*(?P<version>\d+(?:\.\d+)*)")


# The files a project's settings are read from: `[tool.jax-lsp]` and the project's `jax`
# requirement (`declared_jax_version`).
SETTINGS_FILES = ("pyproject.toml", "requirements.txt")


def declared_jax_version(requirements: list[str]) -> str | None:
    """The lowest JAX release the project's requirements allow (`jax==0.4.20`, `jax>=0.4.30`),
    as ruff takes `requires-python`'s lower bound for its target: None when they name none."""
    for requirement in requirements:
        found = _JAX_REQUIREMENT.match(requirement)
        if found is None:  # another distribution (`jaxlib`, `jax-md`)
            continue
        bounds = [m.group("version") for m in _LOWER_BOUND.finditer(found.group("specifiers"))]
        if bounds:
            return max(bounds, key=parse_version)
    return None


def _requirement_lines(folder: Path) -> list[str]:
    """The lines of `requirements.txt` in `folder` (none when it cannot be read)."""
    try:
        return (folder / "requirements.txt").read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return []


def _project_jax_version(data: Mapping[str, Any], folder: Path) -> str | None:
    """The JAX release the project declares: in pyproject's `[project] dependencies`, else in
    the `requirements.txt` beside it."""
    dependencies = data.get("project", {}).get("dependencies", [])
    declared = isinstance(dependencies, list) and declared_jax_version(
        [str(entry) for entry in dependencies]
    )
    return declared or declared_jax_version(_requirement_lines(folder))


def _key_line(text: str, key: str, in_tool_table: bool) -> int | None:
    """The 0-based line where a settings file sets `key` (in `[tool.jax-lsp]` when
    `in_tool_table`); None if it cannot be told."""
    in_table = not in_tool_table
    for number, line in enumerate(text.splitlines()):
        stripped = line.strip()
        if stripped.startswith("["):
            in_table = not in_tool_table or stripped.replace(" ", "") in (
                "[tool.jax-lsp]",
                '[tool."jax-lsp"]',
            )
        elif in_table and re.match(rf"{re.escape(key)}\s*=", stripped):
            return number
    return None


# The tables that make a TOML file a pyproject.toml rather than a file of jax-lsp settings.
_PYPROJECT_TABLES = frozenset({"build-system", "project", "tool"})


def _settings_table(
    data: Mapping[str, Any], source: Path, named: bool
) -> tuple[Mapping[str, Any], bool]:
    """The settings `source` holds, and whether they are its `[tool.jax-lsp]` table: that
    table, else for a file `--config` names (`named`) that is no pyproject.toml, its top
    level. A named file holding neither is an error; a pyproject.toml found above the files
    checked may hold none (the defaults apply)."""
    tool = data.get("tool")
    table = tool.get("jax-lsp") if isinstance(tool, Mapping) else None
    if table is not None:
        if not isinstance(table, Mapping):
            raise ConfigError(f"{source}: `tool.jax-lsp` must be a table")
        return table, True
    if not named:
        return {}, True
    if source.name != "pyproject.toml" and data and not data.keys() & _PYPROJECT_TABLES:
        return data, False
    raise ConfigError(
        f"{source}: no jax-lsp settings: expected a `[tool.jax-lsp]` table, or (in a file "
        "other than pyproject.toml) settings such as `select = [...]` at its top level"
    )


def _kebab(key: str) -> str:
    """`unsafe_fixes` and `unsafeFixes` as `[tool.jax-lsp]` spells them: `unsafe-fixes`."""
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "-", key).replace("_", "-").lower()


def _unknown_key(key: str, in_tool_table: bool) -> str:
    """Why `key` is no setting of a settings file, with the setting it most likely means."""
    kebab = _kebab(key)
    for option in OPTIONS:
        if option.field is None and kebab == option.key:
            return (
                f"`{key}` is a setting of the editor, not of the project: set "
                f"`jax-lsp.{option.camel}` in the editor's settings"
            )
    # Each key a file may use -> the setting's own spelling (the one to suggest).
    spelled = {
        name: option.key
        for option in OPTIONS
        if option.field is not None
        for name in (option.key, *option.aliases)
    }
    guess = spelled.get(kebab)
    if guess is None:
        import difflib  # an unknown key only

        close = difflib.get_close_matches(kebab, list(spelled), n=1, cutoff=0.6)
        guess = spelled[close[0]] if close else None
    where = " in `[tool.jax-lsp]`" if in_tool_table else ""
    hint = f"; did you mean `{guess}`?" if guess else ""
    return f"unknown setting `{key}`{where}{hint}"


def _check_keys(table: Mapping[str, Any], source: Path, text: str, in_tool_table: bool) -> None:
    """Every key of `table` names a setting (as ruff rejects an unknown field): a misspelled
    key is an error that names it, its line and the closest setting, never silently unused."""
    problems = []
    for key in table:
        if key not in SETTING_KEYS:
            line = _key_line(text, key, in_tool_table)
            where = f"{source}:{line + 1}" if line is not None else f"{source}"
            problems.append(f"{where}: {_unknown_key(key, in_tool_table)}")
    if problems:
        raise ConfigError("\n".join(problems))


def load_settings(start: Path, config: Path | None = None) -> Settings:
    """Settings from `config` (a TOML file with a `[tool.jax-lsp]` table, or holding those
    keys at its top level), else from the nearest pyproject.toml at or above `start` (defaults
    if none). A key that names no setting is a `ConfigError`."""
    pyproject = config if config is not None else find_pyproject(start)
    if config is not None and not config.is_file():
        raise ConfigError(f"{config}: no such file")
    x64_env = os.environ.get("JAX_ENABLE_X64", "").lower() in ("1", "true", "yes")
    if pyproject is None:
        requirements = _nearest(start, "requirements.txt")
        declared = (
            declared_jax_version(_requirement_lines(requirements.parent)) if requirements else None
        )
        return Settings(enable_x64=x64_env, target_jax_version=declared)
    # Imported once a settings file is read, not with the engine (a folder may have none).
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover
        import tomli as tomllib
    try:
        text = pyproject.read_text(encoding="utf-8")
        data = tomllib.loads(text)
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        raise ConfigError(f"{pyproject}: {error}") from None
    table, in_tool_table = _settings_table(data, pyproject, named=config is not None)
    _check_keys(table, pyproject, text, in_tool_table)
    settings = Settings(root=str(pyproject.parent.resolve()), enable_x64=x64_env)
    try:
        settings = replace(settings, **_parse(table))
    except ConfigError as error:
        raise ConfigError(f"{pyproject}: {error}") from None
    if settings.traced:
        traced_line = _key_line(text, "traced", in_tool_table) or 0
        settings = replace(settings, traced_line=traced_line)
    if settings.target_jax_version is None and pyproject.name == "pyproject.toml":
        declared = _project_jax_version(data, pyproject.parent)
        settings = replace(settings, target_jax_version=declared)
    if _pytest_env_sets_x64(data):
        settings = replace(settings, enable_x64=True)
    return settings

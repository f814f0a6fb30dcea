"""Every user setting, once: its pyproject key, its `Settings` field, its `jax-lsp check` flag and
whether the VS Code extension offers it.

`config.py` reads `[tool.jax-lsp]` and the editor's settings through `SETTING_KEYS`, built here
(a key of `[tool.jax-lsp]` it lacks is an error that names the closest row);
`tests/test_settings_table.py` checks the places that cannot import this module against it: the
`check` parser's flags, the extension's `package.json` and `src/settings.ts`, the documentation.
A new setting is a row here, then whatever that test names as missing.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Option:
    key: str  # kebab-case, as in `[tool.jax-lsp]`
    default: bool | None  # a switch's default; None for lists and tables (unset)
    summary: str
    # The `config.Settings` field it sets; None for a setting of the editor alone.
    field: str | None = None
    flag: str | None = None  # the `jax-lsp check` flag that overrides it, if any
    vscode: bool = False  # the VS Code extension offers it (as `jax-lsp.<camelCase>`)
    aliases: tuple[str, ...] = ()  # other keys accepted for it

    @property
    def camel(self) -> str:
        """The editor's spelling: `unsafe-fixes` -> `unsafeFixes`."""
        first, *rest = self.key.split("-")
        return first + "".join(part[:1].upper() + part[1:] for part in rest)


OPTIONS: tuple[Option, ...] = (
    Option(
        "select",
        None,
        "only these rule codes or prefixes",
        field="select",
        flag="--select",
        vscode=True,
    ),
    Option("extend-select", None, "these rules too", field="extend_select", flag="--extend-select"),
    Option(
        "ignore",
        None,
        "never these rule codes or prefixes",
        field="ignore",
        flag="--ignore",
        vscode=True,
    ),
    Option(
        "per-file-ignores", None, "codes ignored in files a glob matches", field="per_file_ignores"
    ),
    Option(
        "exclude", None, "paths `check` skips (replaces `config.DEFAULT_EXCLUDE`)", field="exclude"
    ),
    Option(
        "extend-exclude",
        None,
        "paths `check` skips too",
        field="extend_exclude",
        flag="--extend-exclude",
    ),
    Option(
        "severity", None, "a rule's severity: error, warning or info", field="severity", vscode=True
    ),
    Option("fix-all", True, "fix-all applies the safe fixes", field="fix_all", vscode=True),
    Option(
        "unsafe-fixes",
        False,
        "unsafe fixes count as fixable, and fix-all applies them",
        field="unsafe_fixes",
        flag="--unsafe-fixes",
        vscode=True,
    ),
    Option(
        "enable-x64",
        False,
        "the project runs with JAX_ENABLE_X64 set",
        field="enable_x64",
        aliases=("x64",),
    ),
    Option(
        "target-jax-version",
        None,
        "the JAX release the project uses (default: the lowest its `jax` requirement allows, "
        "else the installed one's)",
        field="target_jax_version",
    ),
    Option(
        "traced",
        None,
        "library mode: the functions the project's users trace, as dotted-name globs",
        field="traced",
    ),
    Option(
        "respect-gitignore",
        True,
        "`check` skips what .gitignore and .ignore files name",
        field="respect_gitignore",
        flag="--respect-gitignore",
    ),
    Option("code-lens", True, "the editor's lens above each traced function", vscode=True),
    Option(
        "inlay-hints", False, "the editor's `traced`/`static` after each parameter", vscode=True
    ),
)

BY_KEY = {option.key: option for option in OPTIONS}

# Every key `[tool.jax-lsp]` or an editor may use for a `Settings` field -> that field.
SETTING_KEYS: dict[str, str] = {
    key: option.field
    for option in OPTIONS
    if option.field is not None
    for key in (option.key, option.camel, *option.aliases)
}

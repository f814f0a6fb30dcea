"""One settings table (`jax_lsp/settings_table.py`): every place a setting is spelled agrees with
it, so a setting added, renamed or dropped in one place and not the others fails here."""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path

import pytest

from jax_lsp.cli import build_parser
from jax_lsp.config import Settings
from jax_lsp.lsp import settings as lsp_settings
from jax_lsp.settings_table import OPTIONS, SETTING_KEYS

ROOT = Path(__file__).resolve().parent.parent
EXTENSION = ROOT / "vscode-extension"

# `Settings` fields no user sets by name: the command line's late selection, where the file
# was and where it sets `traced`.
INTERNAL_FIELDS = {"late_select", "late_ignore", "root", "traced_line", "extra"}
# `check` flags that choose what the run does, not a setting of the project.
RUN_FLAGS = {
    "--config",
    "--output-format",
    "--fix",
    "--diff",
    "--watch",
    "--statistics",
    "--quiet",
    "--exit-zero",
    "--exit-non-zero-on",
    "--jobs",
}
# The extension's own settings: how it starts the server, and VS Code's trace of the messages.
LAUNCH_SETTINGS = {"interpreter", "path", "importStrategy", "trace.server"}

EDITOR_SETTINGS = [option for option in OPTIONS if option.vscode]


def test_every_settings_field_has_one_row():
    fields = {field.name for field in dataclasses.fields(Settings)} - INTERNAL_FIELDS
    rows = [option.field for option in OPTIONS if option.field is not None]
    assert sorted(rows) == sorted(fields)
    defaults = Settings()
    for option in OPTIONS:
        if option.field is not None and isinstance(option.default, bool):
            assert getattr(defaults, option.field) is option.default, option.key


def test_every_key_of_a_switch_sets_its_field():
    for key, field in SETTING_KEYS.items():
        default = getattr(Settings(), field)
        if isinstance(default, bool):
            assert getattr(Settings().merged({key: not default}), field) is not default, key


def test_the_editor_only_switches_are_the_servers():
    switches = {keys[1]: keys for keys in (lsp_settings._CODE_LENS, lsp_settings._INLAY_HINTS)}
    editor_only = [option for option in OPTIONS if option.field is None]
    assert sorted(switches) == sorted(option.key for option in editor_only)
    for option in editor_only:
        assert switches[option.key] == (option.camel, option.key, option.default)


def _check_flags() -> dict[str, object]:
    parser = build_parser()
    (commands,) = [a for a in parser._actions if a.dest == "command"]
    check = commands.choices["check"]
    return {
        flag: action
        for action in check._actions
        for flag in action.option_strings
        if flag.startswith("--") and not flag.startswith("--no-") and flag != "--help"
    }


def test_the_check_flags_are_the_tables():
    flags = _check_flags()
    table = {option.flag for option in OPTIONS if option.flag}
    assert table <= set(flags), sorted(table - set(flags))
    assert set(flags) - table == RUN_FLAGS
    for option in OPTIONS:
        if option.flag and isinstance(option.default, bool):
            assert f"--no-{option.flag[2:]}" in flags[option.flag].option_strings, option.flag


def _contributed() -> dict[str, dict]:
    package = json.loads((EXTENSION / "package.json").read_text(encoding="utf-8"))
    properties = package["contributes"]["configuration"]["properties"]
    return {name.removeprefix("jax-lsp."): spec for name, spec in properties.items()}


def test_the_extension_contributes_the_tables_editor_settings():
    contributed = _contributed()
    assert set(contributed) - LAUNCH_SETTINGS == {option.camel for option in EDITOR_SETTINGS}
    for option in EDITOR_SETTINGS:
        spec = contributed[option.camel]
        if isinstance(option.default, bool):
            assert spec["type"] == "boolean" and spec["default"] is option.default, option.key
        else:  # unset: the project's pyproject.toml stays in charge
            assert spec["default"] is None, option.key


def test_the_extension_sends_the_tables_editor_settings():
    source = (EXTENSION / "src" / "settings.ts").read_text(encoding="utf-8")
    sent = re.search(r"const SERVER_KEYS = \[(.*?)\] as const", source, re.DOTALL).group(1)
    assert re.findall(r"'(\w+)'", sent) == [option.camel for option in EDITOR_SETTINGS]
    interface = re.search(r"interface ServerSettings \{(.*?)\}", source, re.DOTALL).group(1)
    assert re.findall(r"(\w+)\?:", interface) == [option.camel for option in EDITOR_SETTINGS]


@pytest.mark.parametrize(
    "document",
    ["README.md", "vscode-extension/README.md", "editors/README.md"],
)
def test_the_documentation_names_the_settings(document):
    text = (ROOT / document).read_text(encoding="utf-8")
    if document == "README.md":  # the `[tool.jax-lsp]` example; `exclude` replaces the default
        named = [o.key for o in OPTIONS if o.field is not None and o.key != "exclude"]
        missing = [key for key in named if not re.search(rf"^{key} = ", text, re.MULTILINE)]
    elif document.startswith("vscode"):
        missing = [o.camel for o in EDITOR_SETTINGS if f"`jax-lsp.{o.camel}`" not in text]
    else:
        missing = [o.camel for o in EDITOR_SETTINGS if f"`{o.camel}`" not in text]
    assert missing == []

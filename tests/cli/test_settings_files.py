"""The settings files `check` reads, as ruff reads its own: a key that names no setting is an
error naming the key, its file and line and the closest setting (never silently unused), and
`--config` reads a pyproject.toml-style file's `[tool.jax-lsp]` table as well as a file of bare
settings, and says so when a file holds neither."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from jax_lsp.exit_codes import EXIT_USAGE
from jax_lsp.settings_table import OPTIONS
from tests.cli.helpers import jax_lsp, jax_lsp_process

# JAX901 (a warning) and JAX201 (an error).
SOURCE = "import jax.numpy as jnp\n\nx = jnp.zeros(3, dtype=jnp.float64)\nx[0] = 1.0\n"


def codes(run) -> list[str]:
    return sorted(row["code"] for row in json.loads(run.stdout))


def check(tmp_path: Path, *args: str):
    return jax_lsp("check", "--output-format", "json", *args, "a.py", cwd=tmp_path)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "a.py").write_text(SOURCE)
    return tmp_path


def test_misspelled_keys_are_named_with_their_line_and_the_closest_setting(project: Path):
    pyproject = project / "pyproject.toml"
    pyproject.write_text(
        '[project]\nname = "demo"\n\n[tool.jax-lsp]\nselct = ["JAX901"]\nunsafe_fixes = true\n'
    )

    run = check(project)

    assert run.code == EXIT_USAGE and run.stdout == ""
    assert run.stderr.splitlines() == [
        f"jax-lsp: error: {pyproject}:5: unknown setting `selct` in `[tool.jax-lsp]`; "
        "did you mean `select`?",
        f"jax-lsp: error: {pyproject}:6: unknown setting `unsafe_fixes` in `[tool.jax-lsp]`; "
        "did you mean `unsafe-fixes`?",
    ]


def test_every_key_of_the_settings_table_is_accepted(project: Path):
    # Each setting of the project (and each alias) under its own name, at a value it takes:
    # a switch at its default, the others at these.
    values = {
        "select": '["JAX2"]',
        "extend-select": "[]",
        "ignore": "[]",
        "per-file-ignores": "{}",
        "exclude": "[]",
        "extend-exclude": "[]",
        "severity": "{}",
        "target-jax-version": '"0.4.30"',
        "traced": "[]",
    }
    settings = [option for option in OPTIONS if option.field is not None]
    lines = [
        f"{key} = {values[option.key] if option.key in values else str(option.default).lower()}"
        for option in settings
        for key in (option.key, *option.aliases)
    ]
    assert all(isinstance(o.default, bool) or o.key in values for o in settings)
    (project / "pyproject.toml").write_text("[tool.jax-lsp]\n" + "\n".join(lines) + "\n")

    run = check(project)

    assert run.stderr == "" and codes(run) == ["JAX201"]


def test_an_editor_setting_in_the_file_says_where_it_belongs(project: Path):
    editor_only = [option for option in OPTIONS if option.field is None]
    assert editor_only
    for option in editor_only:
        (project / "pyproject.toml").write_text(f"[tool.jax-lsp]\n{option.key} = true\n")
        run = check(project)
        assert run.code == EXIT_USAGE
        assert f"`jax-lsp.{option.camel}` in the editor's settings" in run.stderr


def test_an_unknown_key_in_a_bare_settings_file(project: Path):
    (project / "strict.toml").write_text('select = ["JAX901"]\nextend_ignore = ["JAX2"]\n')

    run = check(project, "--config", "strict.toml")

    assert run.code == EXIT_USAGE
    assert run.stderr == (
        "jax-lsp: error: strict.toml:2: unknown setting `extend_ignore`; did you mean `ignore`?\n"
    )


def test_a_bad_value_names_its_file(project: Path):
    (project / "pyproject.toml").write_text('[tool.jax-lsp]\nselect = ["JAX9999"]\n')
    run = check(project)
    assert run.code == EXIT_USAGE
    assert "pyproject.toml: `select`: unknown rule code 'JAX9999'" in run.stderr


@pytest.mark.parametrize("name", ["ci.toml", "pyproject.toml"])
def test_config_reads_the_tool_table_of_a_pyproject_style_file(project: Path, name: str):
    # The project's own pyproject.toml ignores JAX901; the named file selects it alone.
    (project / "pyproject.toml").write_text('[tool.jax-lsp]\nignore = ["JAX901"]\n')
    (project / "other").mkdir()
    (project / "other" / name).write_text(
        '[project]\nname = "other"\n\n[tool.jax-lsp]\nselect = ["JAX901"]\n'
    )

    run = check(project, "--config", f"other/{name}")

    assert run.stderr == "" and codes(run) == ["JAX901"]


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("ruff.toml", '[tool.ruff]\nselect = ["E"]\n'),
        ("pyproject.toml", '[project]\nname = "other"\n'),
        ("pyproject.toml", 'select = ["JAX901"]\n'),  # a pyproject.toml's settings are its table
        ("empty.toml", ""),
    ],
    ids=["another-tool", "pyproject-without-table", "pyproject-top-level", "empty"],
)
def test_config_holding_no_settings_is_an_error(project: Path, name: str, text: str):
    (project / "other").mkdir()
    (project / "other" / name).write_text(text)

    run = check(project, "--config", f"other/{name}")

    assert run.code == EXIT_USAGE and run.stdout == ""
    assert run.stderr.startswith(f"jax-lsp: error: other/{name}: no jax-lsp settings: ")
    assert "`[tool.jax-lsp]`" in run.stderr


def test_a_pyproject_found_without_a_table_gives_the_defaults(project: Path):
    (project / "pyproject.toml").write_text('[project]\nname = "demo"\n')
    run = check(project)
    assert run.stderr == "" and codes(run) == ["JAX201", "JAX901"]


@pytest.mark.slow  # a process
def test_a_process_exits_with_the_usage_status_and_one_line_per_key(project: Path):
    (project / "pyproject.toml").write_text('[tool.jax-lsp]\nignroe = ["JAX901"]\n')
    run = jax_lsp_process("check", "a.py", cwd=project, timeout=120)
    assert run.returncode == EXIT_USAGE
    assert run.stderr.splitlines() == [
        f"jax-lsp: error: {project / 'pyproject.toml'}:2: unknown setting `ignroe` in "
        "`[tool.jax-lsp]`; did you mean `ignore`?"
    ]

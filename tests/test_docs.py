"""Generated docs stay in sync with the rule classes (regenerate: python -m jax_lsp.docs)."""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import tomllib
import yaml

from jax_lsp.diagnostics import ALL_RULES
from jax_lsp.docs import TABLE_END, TABLE_START, readme_with_table

ROOT = Path(__file__).resolve().parent.parent


def test_readme_rule_table_is_current():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert TABLE_START in readme and TABLE_END in readme
    assert readme == readme_with_table(readme), "run `python -m jax_lsp.docs`"


def test_rule_pages_are_current():
    for rule in ALL_RULES:
        page = ROOT / "docs" / "rules" / f"{rule.code}.md"
        assert page.read_text(encoding="utf-8") == rule.docs(), "run `python -m jax_lsp.docs`"
        assert rule.url().endswith(f"docs/rules/{rule.code}.md")


def test_every_rule_documents_itself():
    codes = [rule.code for rule in ALL_RULES]
    assert len(codes) == len(set(codes))
    for rule in ALL_RULES:
        for text in (rule.name, rule.summary, rule.what_it_does, rule.why_bad, rule.fix_safety):
            assert text.strip(), f"{rule.code} lacks documentation"


# -- The documented commands work on a fresh clone ---------------------------------------------

DOCUMENTS = [ROOT / "README.md", ROOT / "editors" / "README.md"]
CI_RECIPES = sorted((ROOT / "docs" / "ci").glob("*.yml"))
# What needs the network, or is the test suite itself, or sets up a shell: not run here.
_NOT_OFFLINE = (
    "git clone",
    "python3 -m venv",
    ". .venv",
    "pip install",
    "python -m pip",
    "python -m pytest",
    "cd ",
)
_SHELL_BLOCK = re.compile(r"```(?:bash|sh|console)\n(.*?)```", re.DOTALL)


def documented_commands() -> list[str]:
    """Every shell command in the READMEs' bash blocks and the CI recipes' `run:` steps."""
    commands: list[str] = []
    for document in DOCUMENTS:
        for block in _SHELL_BLOCK.findall(document.read_text(encoding="utf-8")):
            for line in block.splitlines():
                line = line.split(" # ")[0].strip()
                commands += [part.strip() for part in line.split("&&") if part.strip()]
    for recipe in CI_RECIPES:
        for job in yaml.safe_load(recipe.read_text())["jobs"].values():
            commands += [step["run"].strip() for step in job["steps"] if "run" in step]
    return commands


def test_every_offline_documented_command_runs(tmp_path: Path):
    commands = [c for c in documented_commands() if not c.startswith(_NOT_OFFLINE)]
    assert any(c.startswith("jax-lsp check") for c in commands)
    shutil.copytree(ROOT / "examples", tmp_path / "examples")
    bin_dir = Path(sys.executable).parent
    environment = {"PATH": f"{bin_dir}:/usr/bin:/bin", "PYTHONPATH": str(ROOT), "NO_COLOR": "1"}
    for command in commands:
        run = subprocess.run(
            command,
            shell=True,
            cwd=tmp_path,
            env=environment,
            capture_output=True,
            text=True,
            timeout=300,
        )
        # 1: findings (the examples are full of gotchas); never a usage error or a crash.
        assert run.returncode in (0, 1), (command, run.stderr)
        assert "Traceback" not in run.stderr, (command, run.stderr)


def test_commands_that_need_the_network_install_what_exists():
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"
    ]
    for command in documented_commands():
        for extra in re.findall(r"\.\[(\w+)\]", command):
            assert extra in extras, command
        if command.startswith("pip install") and "-e" not in shlex.split(command):
            assert "git+" in command or "." in shlex.split(command)[-1], command


# A command installing jax-lsp from PyPI, where it is not published yet (not `jax-lsp @ git+...`).
_FROM_PYPI = re.compile(r"""pip install\s+["']?jax-lsp(\[[\w,]+\])?["']?(?!\s*@)""")
_TEXT_FILES = (".md", ".py", ".ts", ".rs", ".lua", ".el", ".toml", ".yml", ".yaml", ".sh")


def test_installing_jax_lsp_is_from_a_clone_until_it_is_published():
    """Every document, message and spec that says how to install jax-lsp gives a command that
    works from a clone; installing it from PyPI is named only as what will do once published."""
    tracked = subprocess.run(
        ["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.splitlines()
    unqualified = []
    for name in tracked:
        if name.startswith("tests/") or not name.endswith(_TEXT_FILES):
            continue
        path = ROOT / name
        if not path.is_file():  # deleted in the working tree
            continue
        text = path.read_text(encoding="utf-8")
        for found in _FROM_PYPI.finditer(text):
            around = text[max(found.start() - 120, 0) : found.end() + 120]
            if "publish" not in around and "not on PyPI" not in around:
                unqualified.append(f"{name}: {found.group()}")
    assert unqualified == []
    assert "pip install -e ." in (ROOT / "README.md").read_text(encoding="utf-8")


def test_readme_sample_output_is_what_the_command_prints():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    sample = readme.split("<!-- sample:start")[1].split("<!-- sample:end -->")[0]
    lines = sample.split("```\n")[1].splitlines()
    command, expected = lines[0].removeprefix("$ "), lines[1:]
    run = subprocess.run(
        [sys.executable, "-m", "jax_lsp", *shlex.split(command)[1:]],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT)},
    )
    assert run.stdout.splitlines() == expected


def test_pre_commit_recipes_name_a_revision_that_exists():
    texts = [
        (ROOT / "editors" / "README.md").read_text(),
        (ROOT / ".pre-commit-hooks.yaml").read_text(),
    ]
    revisions = {
        rev for text in texts for rev in re.findall(r"^[\s#]*rev:\s*([\w./-]+)", text, re.MULTILINE)
    }
    assert revisions
    for revision in revisions:
        found = [
            subprocess.run(
                ["git", "rev-parse", "--verify", "--quiet", f"{name}^{{commit}}"],
                cwd=ROOT,
                capture_output=True,
            ).returncode
            == 0
            for name in (revision, f"origin/{revision}")
        ]
        assert any(found), f"rev: {revision} names nothing in this repository"


def test_every_editor_setting_is_named_where_users_look():
    """The editor-only switches (`inlayHints` is off by default: a user who does not know the
    key sees no hints) appear in each list of settings and in the Neovim recipe."""
    from jax_lsp.lsp import settings

    keys = [settings._INLAY_HINTS[0], settings._CODE_LENS[0], "select", "unsafeFixes"]
    places = [
        ROOT / "README.md",
        ROOT / "editors" / "README.md",
        ROOT / "editors" / "nvim" / "lsp" / "jax_lsp.lua",
        ROOT / "vscode-extension" / "README.md",
    ]
    for place in places:
        text = place.read_text(encoding="utf-8")
        missing = [key for key in keys if key not in text]
        assert not missing, f"{place.relative_to(ROOT)} does not name {missing}"
    assert settings._INLAY_HINTS[2] is False  # what the docs say: off until turned on
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "`inlayHints` (default `false`" in readme

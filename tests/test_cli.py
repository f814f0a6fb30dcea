"""The `jax-lsp` command line, run as a real subprocess."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.cli.helpers import jax_lsp_process

pytestmark = pytest.mark.slow  # the command line run as a subprocess

BUGGY = textwrap.dedent(
    """\
    import jax.numpy as jnp

    x = jnp.zeros(3)
    x[0] = 1.0
    x.at[1].set(2.0)
    """
)


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return jax_lsp_process(*args, cwd=cwd, timeout=120)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "buggy.py").write_text(BUGGY)
    (tmp_path / "pkg" / "clean.py").write_text("import numpy as np\nx = np.zeros(3)\nx[0] = 1\n")
    (tmp_path / ".venv" / "lib").mkdir(parents=True)
    (tmp_path / ".venv" / "lib" / "ignored.py").write_text(BUGGY)
    return tmp_path


def test_text_output_and_exit_code(project: Path):
    result = run("check", ".", cwd=project)
    assert result.returncode == 1
    lines = result.stdout.splitlines()
    assert lines[0] == (
        "pkg/buggy.py:4:1: error: JAX201 [*] `x` is a JAX array, which is immutable: item "
        "assignment "
        "raises TypeError. Use `x = x.at[...].set(...)`"
    )
    assert lines[1].startswith("pkg/buggy.py:5:1: warning: JAX203 [*]")
    assert "Found 2 findings: 1 error, 1 warning." in result.stdout
    assert ".venv" not in result.stdout


def test_a_folder_named_inside_an_excluded_one_is_checked(project: Path):
    result = run("check", ".venv/lib", cwd=project)
    assert result.returncode == 1
    assert result.stdout.startswith(".venv/lib/ignored.py:4:1: error: JAX201")
    # Below the named folder the excludes still apply.
    (project / ".venv" / "lib" / "node_modules").mkdir()
    (project / ".venv" / "lib" / "node_modules" / "dep.py").write_text(BUGGY)
    assert "node_modules" not in run("check", ".venv/lib", cwd=project).stdout


def test_no_python_files_is_said_not_passed_over(project: Path):
    (project / "empty").mkdir()
    result = run("check", "empty", cwd=project)
    assert result.returncode == 0
    assert result.stderr == "warning: No Python files found under the given path(s)\n"
    assert run("check", "empty", "--quiet", cwd=project).stderr == ""


def test_clean_file_exits_zero(project: Path):
    result = run("check", "pkg/clean.py", cwd=project)
    assert result.returncode == 0
    assert "All checks passed!" in result.stdout


def test_json_output_has_ruffs_shape(project: Path):
    result = run("check", "pkg", "--output-format", "json", cwd=project)
    rows = json.loads(result.stdout)
    assert {row["code"] for row in rows} == {"JAX201", "JAX203"}
    row = next(r for r in rows if r["code"] == "JAX201")
    assert set(row) >= {"code", "message", "filename", "location", "end_location", "fix", "url"}
    assert row["location"] == {"row": 4, "column": 1}
    assert row["end_location"] == {"row": 4, "column": 5}
    assert row["filename"] == str((project / "pkg" / "buggy.py").resolve())
    assert row["fix"]["applicability"] == "safe"
    assert row["fix"]["edits"] == [
        {
            "content": "x = x.at[0].set(1.0)",
            "location": {"row": 4, "column": 1},
            "end_location": {"row": 4, "column": 11},
        }
    ]


def test_sarif_output_is_sarif_2_1_0(project: Path):
    result = run("check", "pkg", "--output-format", "sarif", cwd=project)
    sarif = json.loads(result.stdout)
    assert sarif["version"] == "2.1.0"
    run_ = sarif["runs"][0]
    rule_ids = [rule["id"] for rule in run_["tool"]["driver"]["rules"]]
    assert "JAX201" in rule_ids
    results = run_["results"]
    assert {r["ruleId"] for r in results} == {"JAX201", "JAX203"}
    region = results[0]["locations"][0]["physicalLocation"]["region"]
    assert region["startLine"] == 4
    for result_ in results:
        assert rule_ids[result_["ruleIndex"]] == result_["ruleId"]


def test_fix_rewrites_the_file_and_leaves_nothing(project: Path):
    result = run("check", "pkg", "--fix", cwd=project)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Fixed 2 findings." in result.stdout
    fixed = (project / "pkg" / "buggy.py").read_text()
    assert fixed == BUGGY.replace("x[0] = 1.0", "x = x.at[0].set(1.0)").replace(
        "x.at[1].set(2.0)", "x = x.at[1].set(2.0)"
    )


def test_select_ignore_and_statistics(project: Path):
    only = run("check", "pkg", "--select", "JAX203", "--output-format", "json", cwd=project)
    assert [row["code"] for row in json.loads(only.stdout)] == ["JAX203"]
    ignored = run("check", "pkg", "--ignore", "JAX2", cwd=project)
    assert ignored.returncode == 0
    stats = run("check", "pkg", "--statistics", cwd=project)
    assert "JAX201" in stats.stdout and "JAX203" in stats.stdout


def test_unreadable_files_get_one_line_and_the_rest_is_checked(project: Path):
    (project / "pkg" / "binary.py").write_bytes(b"x = 1\x00\x01\n")
    (project / "pkg" / "latin.py").write_bytes(b"s = '\xff\xfe'\n")
    (project / "pkg" / "broken.py").write_text("def f(:\n")
    result = run("check", "pkg", cwd=project)
    assert result.returncode == 1
    errors = result.stderr.splitlines()
    assert len(errors) == 2, result.stderr
    assert any("binary.py" in line and "NUL" in line for line in errors)
    assert any("latin.py" in line and "decode" in line for line in errors)
    # A file that does not parse is checked: its syntax error is a finding of the report.
    assert "broken.py:1:7: error: invalid-syntax SyntaxError" in result.stdout
    assert "Traceback" not in result.stderr
    assert "JAX201" in result.stdout


def test_coding_cookie_is_honoured(project: Path):
    source = (
        "# -*- coding: latin-1 -*-\nimport jax.numpy as jnp\ns = '\xe9'\n"
        "x = jnp.zeros(2)\nx[0] = 1\n"
    )
    (project / "pkg" / "cookie.py").write_bytes(source.encode("latin-1"))
    result = run("check", "pkg/cookie.py", cwd=project)
    assert "cookie.py:5:1: error: JAX201" in result.stdout


def test_usage_errors_exit_two(project: Path):
    assert run("check", "missing-folder", cwd=project).returncode == 2
    assert run("check", "--select", "NOPE1", cwd=project).returncode == 2
    assert run("check", "--output-format", "xml", cwd=project).returncode == 2
    assert run("explain", "JAX999", cwd=project).returncode == 2


def test_pyproject_configuration_applies(project: Path):
    (project / "pyproject.toml").write_text(
        '[tool.jax-lsp]\nignore = ["JAX203"]\nper-file-ignores = { "pkg/buggy.py" = ["JAX201"] }\n'
    )
    result = run("check", ".", cwd=project)
    assert result.returncode == 0, result.stdout
    (project / "pyproject.toml").write_text('[tool.jax-lsp]\nextend-exclude = ["pkg"]\n')
    assert run("check", ".", cwd=project).returncode == 0
    (project / "pyproject.toml").write_text('[tool.jax-lsp]\nselect = "oops"\n')
    assert run("check", ".", cwd=project).returncode == 2


def test_rules_and_explain(project: Path):
    rules = run("rules", cwd=project)
    assert rules.returncode == 0 and "JAX201" in rules.stdout
    table = json.loads(run("rules", "--output-format", "json", cwd=project).stdout)
    assert any(row["code"] == "JAX202" for row in table)
    explain = run("explain", "jax201", cwd=project)
    assert explain.returncode == 0
    for heading in ("## What it does", "## Why is this bad?", "## Example", "## Use instead"):
        assert heading in explain.stdout


def test_parallel_jobs_give_the_same_result(project: Path):
    for index in range(40):
        (project / "pkg" / f"copy{index}.py").write_text(BUGGY)
    serial = run("check", "pkg", "--jobs", "1", "--output-format", "json", cwd=project)
    parallel = run("check", "pkg", "--jobs", "2", "--output-format", "json", cwd=project)
    assert json.loads(serial.stdout) == json.loads(parallel.stdout)
    assert len(json.loads(serial.stdout)) == 82


def test_check_reads_imported_workspace_modules(tmp_path: Path):
    """Engine-only cross-module facts (no jedi): `make_state` returns a JAX array."""
    (tmp_path / "a.py").write_text(
        "import jax.numpy as jnp\n\ndef make_state():\n    return jnp.zeros(3)\n"
    )
    (tmp_path / "b.py").write_text(
        "from a import make_state\n\nstate = make_state()\nstate[0] = 1.0\n"
    )
    result = run("check", "b.py", "--output-format", "json", cwd=tmp_path)
    rows = json.loads(result.stdout)
    assert [(row["code"], row["location"]["row"]) for row in rows] == [("JAX201", 4)]


def test_json_paths_are_absolute_in_related_places_too(tmp_path: Path):
    (tmp_path / "utils.py").write_text(
        "import jax.numpy as jnp\n\ndef clip(g):\n    if jnp.linalg.norm(g) > 1.0:\n"
        "        g = g / 2\n    return g\n"
    )
    (tmp_path / "train.py").write_text(
        "import jax\nfrom utils import clip\n\n@jax.jit\ndef step(g):\n    return clip(g)\n"
    )
    rows = json.loads(run("check", ".", "--output-format", "json", cwd=tmp_path).stdout)
    places = [related["filename"] for row in rows for related in row["related"]]
    assert str((tmp_path / "train.py").resolve()) in places
    assert all(Path(place).is_absolute() for place in places)


def test_output_formats_are_the_reporters():
    from jax_lsp.cli import OUTPUT_FORMATS
    from jax_lsp.reporting import FORMATTERS

    assert tuple(sorted(FORMATTERS)) == OUTPUT_FORMATS


def test_serve_imports_no_check_machinery_jedi_or_libcst():
    """What `jax-lsp serve` imports before its first diagnostics: nothing they do not need."""
    probe = (
        "import sys, jax_lsp.cli, jax_lsp.server; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('jedi', 'libcst', 'parso') "
        "or m in ('jax_lsp.checking', 'jax_lsp.reporting', 'concurrent.futures.process')))"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, check=True
    )
    assert result.stdout.strip() == "[]"


def test_summary_counts_hidden_unsafe_fixes_in_plural(tmp_path: Path):
    (tmp_path / "flags.py").write_text(
        "import jax\n\n\n@jax.jit\ndef f(x, y):\n    return (not x), (not y)\n"
    )
    result = run("check", "flags.py", cwd=tmp_path)
    assert result.returncode == 1
    assert "(2 hidden fixes can be enabled with the `--unsafe-fixes` option.)" in result.stdout

"""What a ruff user expects of `jax-lsp check`: options over the config file, usage, honest
summaries, severities, .gitignore, colour, full output, --diff, --quiet, --watch."""

from __future__ import annotations

import json
import queue
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from tests.cli.helpers import FIXABLE, FIXED, jax_lsp

X64 = "import jax.numpy as jnp\n\nx = jnp.zeros(3, dtype=jnp.float64)\n"  # JAX901, an error
# JAX901 on NumPy float64 data: its one fix (enable 64-bit mode) is unsafe.
CONVERTED = (
    "import jax.numpy as jnp\nimport numpy as np\n\n"
    "x = jnp.asarray(np.linspace(0, 1, 5, dtype=np.float64))\n"
)
CAST = "import jax.numpy as jnp\n\ny = jnp.linspace(0.0, 300.0, 5).astype(jnp.uint8)\n"  # JAX903
DISCARDED = "import jax.numpy as jnp\n\nx = jnp.zeros(3)\nx.at[0].set(1.0)\n"  # JAX203


def codes(run) -> list[str]:
    return [row["code"] for row in json.loads(run.stdout)]


def test_command_line_selection_beats_the_config_file(tmp_path: Path):
    (tmp_path / "pyproject.toml").write_text('[tool.jax-lsp]\nignore = ["JAX901", "JAX2"]\n')
    (tmp_path / "a.py").write_text(X64 + "x[0] = 1.0\n")
    json_out = ("--output-format", "json", "a.py")

    assert codes(jax_lsp("check", *json_out, cwd=tmp_path)) == []
    assert codes(jax_lsp("check", "--select", "JAX901", *json_out, cwd=tmp_path)) == ["JAX901"]
    assert codes(jax_lsp("check", "--extend-select", "JAX201", *json_out, cwd=tmp_path)) == [
        "JAX201"
    ]
    both = jax_lsp(
        "check", "--select", "JAX2,JAX901", "--ignore", "JAX901", *json_out, cwd=tmp_path
    )
    assert codes(both) == ["JAX201"]


def test_config_option_names_the_settings_file(tmp_path: Path):
    (tmp_path / "pyproject.toml").write_text('[tool.jax-lsp]\nignore = ["JAX901"]\n')
    (tmp_path / "strict.toml").write_text('select = ["JAX901"]\n')
    (tmp_path / "a.py").write_text(X64)

    run = jax_lsp(
        "check", "--config", "strict.toml", "--output-format", "json", "a.py", cwd=tmp_path
    )
    assert codes(run) == ["JAX901"]
    missing = jax_lsp("check", "--config", "nowhere.toml", "a.py", cwd=tmp_path)
    assert missing.code == 2 and "nowhere.toml" in missing.stderr


def test_bare_command_prints_usage_and_exits_two(tmp_path: Path):
    run = jax_lsp(cwd=tmp_path)
    assert run.code == 2
    assert run.stderr.startswith("usage: jax-lsp")


def test_a_file_that_cannot_be_decoded_is_counted_never_all_passed(tmp_path: Path):
    (tmp_path / "bad.py").write_bytes(b"# coding: utf-8\nx = '\xff'\n")
    (tmp_path / "ok.py").write_text("x = 1\n")

    run = jax_lsp("check", ".", cwd=tmp_path)

    assert run.code == 1
    assert "bad.py: cannot decode" in run.stderr
    assert "All checks passed!" not in run.stdout
    assert "1 file could not be checked" in run.stdout


def test_a_syntax_error_is_a_finding_in_every_format_never_all_passed(tmp_path: Path):
    (tmp_path / "broken.py").write_text(DISCARDED + "def broken(:\n    pass\n")
    (tmp_path / "ok.py").write_text("x = 1\n")

    concise = jax_lsp("check", ".", cwd=tmp_path)
    rows = json.loads(jax_lsp("check", "--output-format", "json", ".", cwd=tmp_path).stdout)
    sarif = json.loads(jax_lsp("check", "--output-format", "sarif", ".", cwd=tmp_path).stdout)

    assert concise.code == 1 and "All checks passed!" not in concise.stdout
    assert "broken.py:5:12: error: invalid-syntax SyntaxError: invalid syntax" in concise.stdout
    assert "Found 2 findings: 1 error, 1 warning." in concise.stdout
    # The lines that parse are still checked.
    assert [(r["code"], r["location"]["row"]) for r in rows] == [
        ("JAX203", 4),
        ("invalid-syntax", 5),
    ]
    (run,) = sarif["runs"]
    syntax = next(r for r in run["results"] if r["ruleId"] == "invalid-syntax")
    assert run["tool"]["driver"]["rules"][syntax["ruleIndex"]]["id"] == "invalid-syntax"
    assert syntax["level"] == "error"
    assert syntax["locations"][0]["physicalLocation"]["region"]["startLine"] == 5


def test_severity_is_shown_counted_and_can_set_the_exit_status(tmp_path: Path):
    (tmp_path / "cast.py").write_text(CAST)
    (tmp_path / "discarded.py").write_text(DISCARDED)

    info = jax_lsp("check", "--select", "ALL", "cast.py", cwd=tmp_path)
    assert ": info: JAX903 " in info.stdout
    assert "Found 1 finding: 1 info." in info.stdout
    rows = json.loads(
        jax_lsp("check", "--select", "ALL", "--output-format", "json", ".", cwd=tmp_path).stdout
    )
    assert {(r["code"], r["severity"]) for r in rows} == {("JAX903", "info"), ("JAX203", "warning")}
    both = jax_lsp("check", "--select", "ALL", ".", cwd=tmp_path)
    assert "Found 2 findings: 1 warning, 1 info." in both.stdout

    assert both.code == 1
    assert (
        jax_lsp("check", "--select", "ALL", "--exit-non-zero-on", "error", ".", cwd=tmp_path).code
        == 0
    )
    assert (
        jax_lsp("check", "--select", "ALL", "--exit-non-zero-on", "warning", ".", cwd=tmp_path).code
        == 1
    )
    assert (
        jax_lsp(
            "check", "--select", "ALL", "--exit-non-zero-on", "warning", "cast.py", cwd=tmp_path
        ).code
        == 0
    )


def test_gitignore_and_ignore_files_are_respected_unless_turned_off(tmp_path: Path):
    (tmp_path / ".git").mkdir()
    (tmp_path / ".gitignore").write_text("generated/\n*.pyi\n!kept.pyi\n")
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / ".ignore").write_text("scratch.py\n")
    for name in ("generated/a.py", "src/stub.pyi", "src/kept.pyi", "src/scratch.py", "src/b.py"):
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_text(FIXABLE)

    def checked(*args: str, cwd: Path = tmp_path) -> set[str]:
        rows = json.loads(jax_lsp("check", "--output-format", "json", *args, cwd=cwd).stdout)
        return {Path(r["filename"]).relative_to(tmp_path).as_posix() for r in rows}

    assert checked(".") == {"src/kept.pyi", "src/b.py"}
    assert checked("src", cwd=tmp_path) == {"src/kept.pyi", "src/b.py"}  # the root's file too
    assert checked("generated") == {"generated/a.py"}  # named on the command line: checked
    everything = {"generated/a.py", "src/stub.pyi", "src/kept.pyi", "src/scratch.py", "src/b.py"}
    assert checked("--no-respect-gitignore", ".") == everything
    (tmp_path / "pyproject.toml").write_text("[tool.jax-lsp]\nrespect-gitignore = false\n")
    assert checked(".") == everything
    assert checked("--respect-gitignore", ".") == {"src/kept.pyi", "src/b.py"}


def test_colour_honours_no_color_and_force_color(tmp_path: Path):
    (tmp_path / "a.py").write_text(FIXABLE)
    plain = jax_lsp("check", "a.py", cwd=tmp_path)  # not a terminal
    forced = jax_lsp("check", "a.py", cwd=tmp_path, env={"FORCE_COLOR": "1", "NO_COLOR": ""})
    refused = jax_lsp("check", "a.py", cwd=tmp_path, env={"FORCE_COLOR": "1", "NO_COLOR": "1"})
    assert "\x1b[" not in plain.stdout and "\x1b[" not in refused.stdout
    assert "\x1b[31;1merror\x1b[0m" in forced.stdout


def test_full_output_shows_the_line_and_a_caret_concise_does_not(tmp_path: Path):
    (tmp_path / "a.py").write_text(FIXABLE)
    full = jax_lsp("check", "--output-format", "full", "a.py", cwd=tmp_path).stdout.splitlines()
    concise = jax_lsp("check", "--output-format", "concise", "a.py", cwd=tmp_path).stdout
    assert full[1:4] == ["  |", "4 | x[0] = 1.0", "  | ^^^^"]
    assert "|" not in concise


def test_full_output_notes_the_places_that_explain_a_finding(tmp_path: Path):
    (tmp_path / "a.py").write_text(
        "import jax\n\n@jax.jit\ndef f(x):\n    if x > 0:\n        return x\n    return -x\n"
    )
    full = jax_lsp("check", "--output-format", "full", "a.py", cwd=tmp_path).stdout.splitlines()
    concise = jax_lsp("check", "--output-format", "concise", "a.py", cwd=tmp_path).stdout
    assert full[4:6] == ["  = note: a.py:3:2: `jax.jit` traces `f` here", ""]
    assert "note:" not in concise


def test_diff_shows_the_fix_and_writes_nothing(tmp_path: Path):
    (tmp_path / "a.py").write_text(FIXABLE)
    (tmp_path / "clean.py").write_text("x = 1\n")

    run = jax_lsp("check", "--diff", "a.py", cwd=tmp_path)

    assert run.code == 1
    assert run.stdout.splitlines() == [
        "--- a/a.py",
        "+++ b/a.py",
        "@@ -1,4 +1,4 @@",
        " import jax.numpy as jnp",
        " ",
        " x = jnp.zeros(3)",
        "-x[0] = 1.0",
        "+x = x.at[0].set(1.0)",
    ]
    assert "Would fix 1 finding." in run.stderr
    assert (tmp_path / "a.py").read_text() == FIXABLE
    assert jax_lsp("check", "--diff", "clean.py", cwd=tmp_path).code == 0


def test_a_path_outside_the_working_folder_is_shown_absolute_in_diffs_and_as_a_file_uri(
    tmp_path: Path,
):
    project, elsewhere = tmp_path / "project", tmp_path / "other folder"
    project.mkdir()
    elsewhere.mkdir()
    target = elsewhere / "a.py"
    target.write_text(FIXABLE)

    diff = jax_lsp("check", "--diff", str(target), cwd=project).stdout.splitlines()
    sarif = json.loads(
        jax_lsp("check", "--output-format", "sarif", str(target), cwd=project).stdout
    )

    assert diff[:2] == [f"--- {target}", f"+++ {target}"]
    location = sarif["runs"][0]["results"][0]["locations"][0]["physicalLocation"]
    assert location["artifactLocation"]["uri"] == target.as_uri()
    assert "%20" in location["artifactLocation"]["uri"]


def test_quiet_prints_findings_only(tmp_path: Path):
    (tmp_path / "a.py").write_text(FIXABLE)
    (tmp_path / "clean.py").write_text("x = 1\n")
    quiet = jax_lsp("check", "--quiet", "a.py", cwd=tmp_path)
    assert quiet.code == 1
    assert quiet.stdout.splitlines() == [quiet.stdout.splitlines()[0]]
    assert "JAX201" in quiet.stdout
    assert jax_lsp("check", "-q", "clean.py", cwd=tmp_path).stdout == ""


class _Watching:
    """A `check --watch` process in `folder`, its output read line by line; entered once it
    says it is watching, terminated on exit."""

    def __init__(self, folder: Path) -> None:
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "jax_lsp",
                "check",
                "--watch",
                "--output-format",
                "concise",
                ".",
            ],
            cwd=folder,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        self.lines: queue.Queue[str] = queue.Queue()
        threading.Thread(
            target=lambda: [self.lines.put(line) for line in self.process.stdout], daemon=True
        ).start()

    def save_until(
        self,
        text: str,
        path: Path | None = None,
        content: str = "",
        timeout: float = 60,
        again: bool = True,
    ) -> None:
        """Save `content` at `path` (again every few seconds if `again`: the watcher starts
        just after it says it is watching) until `text` is printed."""
        deadline = time.monotonic() + timeout
        saved = 0.0
        while time.monotonic() < deadline:
            if path is not None and time.monotonic() - saved > 3 and (again or not saved):
                path.write_text(content)
                saved = time.monotonic()
            try:
                if text in self.lines.get(timeout=0.5):
                    return
            except queue.Empty:
                continue
        raise AssertionError(f"no {text!r} within {timeout} s")

    def __enter__(self) -> _Watching:
        try:
            self.save_until("Watching for file changes.")
        except BaseException:
            self.__exit__()
            raise
        return self

    def __exit__(self, *exception: object) -> None:
        self.process.terminate()
        self.process.wait(timeout=10)


@pytest.mark.slow  # a watching process waits for a save
def test_watch_checks_again_when_a_file_is_saved(tmp_path: Path):
    pytest.importorskip("watchfiles")
    path = tmp_path / "a.py"
    path.write_text("x = 1\n")
    with _Watching(tmp_path) as watching:
        watching.save_until("a.py:4:1: error: JAX201", path, FIXABLE)
        watching.save_until("All checks passed!", path, FIXED)


@pytest.mark.slow  # a watching process waits for a save
def test_watch_reads_a_saved_module_again_for_the_modules_importing_it(tmp_path: Path):
    """What a module's helper returns reaches the module using it at the next save of the
    helper's file, however recently its last version was read: saved once, at once after a
    check that read it."""
    pytest.importorskip("watchfiles")
    helper = tmp_path / "helpers.py"
    helper.write_text("import jax.numpy as jnp\n\n\ndef make():\n    return jnp.zeros(3)\n")
    use = tmp_path / "use.py"
    use.write_text("from helpers import make\n\nx = make()\nx[0] = 1.0\n")
    with _Watching(tmp_path) as watching:
        watching.save_until("use.py:5:1: error: JAX201", use, "\n" + use.read_text())
        list_maker = "def make():\n    return [0.0] * 3\n"
        watching.save_until("All checks passed!", helper, list_maker, timeout=30, again=False)


def test_summary_counts_hidden_fixes_in_english(tmp_path: Path):
    """Findings whose only fixes are unsafe are counted as hidden: "1 hidden fix", "2 hidden
    fixes" (never "fixs")."""
    (tmp_path / "one.py").write_text(CONVERTED)
    (tmp_path / "two.py").write_text(CONVERTED + "y = jnp.asarray(np.ones(2, dtype=np.float64))\n")
    one = jax_lsp("check", "--select", "JAX901", "one.py", cwd=tmp_path).stdout
    two = jax_lsp("check", "--select", "JAX901", "two.py", cwd=tmp_path).stdout
    assert "(1 hidden fix can be enabled with the `--unsafe-fixes` option.)" in one
    assert "(2 hidden fixes can be enabled with the `--unsafe-fixes` option.)" in two


def test_an_unknown_option_is_reported_with_its_commands_usage(tmp_path: Path):
    run = jax_lsp("check", "--bogus", ".", cwd=tmp_path)
    assert run.code == 2
    assert "usage: jax-lsp check" in run.stderr
    assert "jax-lsp check: error: unrecognized arguments: --bogus" in run.stderr
    top = jax_lsp("--bogus", cwd=tmp_path)
    assert top.code == 2 and "jax-lsp: error: unrecognized arguments: --bogus" in top.stderr

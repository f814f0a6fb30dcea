"""`jax-lsp check` run as a process ends it without the interpreter's teardown (`cli._end_check`):
its whole output still arrives, through a pipe too, with the exit status it would have had."""

from __future__ import annotations

import json
import logging
import sys
from pathlib import Path

import pytest

from jax_lsp import cli
from tests.cli.helpers import FIXABLE, FIXED, jax_lsp, jax_lsp_process

pytestmark = pytest.mark.slow  # check run as a process, with workers


def _many(lines: int) -> str:
    return "import jax.numpy as jnp\n\nx = jnp.zeros(3)\n" + "x[0] = 1.0\n" * lines


# Many findings per file: each file's report alone is larger than a pipe's buffer (64 KiB on
# Linux; 100 findings take about 87 KB as JSON). 40 files are checked by worker processes.
@pytest.mark.parametrize(("files", "lines"), [(3, 400), (40, 100)], ids=["in-process", "workers"])
def test_whole_report_and_status_from_a_process(tmp_path: Path, files: int, lines: int) -> None:
    for index in range(files):
        (tmp_path / f"m{index:02}.py").write_text(_many(lines), encoding="utf-8")
    run = jax_lsp_process("check", "--output-format", "json", ".", cwd=tmp_path)
    assert run.returncode == 1, run.stderr
    findings = json.loads(run.stdout)  # complete: the buffered tail was flushed
    assert len(findings) == lines * files
    first_file = [f for f in findings if Path(f["filename"]).name == "m00.py"]
    assert len(json.dumps(first_file)) > 64 * 1024
    assert run.stdout == jax_lsp("check", "--output-format", "json", ".", cwd=tmp_path).stdout


def test_clean_status_and_summary_from_a_process(tmp_path: Path) -> None:
    (tmp_path / "clean.py").write_text("import jax.numpy as jnp\n\nx = jnp.zeros(3)\n")
    run = jax_lsp_process("check", ".", cwd=tmp_path)
    assert (run.returncode, run.stdout) == (0, "All checks passed!\n")


def test_fixes_written_before_the_process_ends(tmp_path: Path) -> None:
    (tmp_path / "fixable.py").write_text(FIXABLE, encoding="utf-8")
    run = jax_lsp_process("check", "--fix", ".", cwd=tmp_path)
    assert run.returncode == 0, run.stdout + run.stderr
    assert (tmp_path / "fixable.py").read_text(encoding="utf-8") == FIXED
    assert run.stdout == "Fixed 1 finding.\n"


def test_the_command_line_ends_the_process(tmp_path: Path, monkeypatch, capsys) -> None:
    """`main()` of the process's own command line ends it through `os._exit`, with the
    status; `main(argv)` (a caller in the same process) returns it."""
    (tmp_path / "fixable.py").write_text(FIXABLE, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    ended: list[int] = []

    def exit_now(status: int) -> None:
        ended.append(status)
        raise SystemExit(status)

    monkeypatch.setattr(cli.os, "_exit", exit_now)
    # The process would end here: pytest's own log handlers must stay open.
    monkeypatch.setattr(logging, "shutdown", lambda: None)
    assert cli.main(["check", "fixable.py"]) == 1
    assert ended == []
    monkeypatch.setattr(sys, "argv", ["jax-lsp", "check", "fixable.py"])
    with pytest.raises(SystemExit):
        cli.main()
    assert ended == [1]
    assert "JAX201" in capsys.readouterr().out

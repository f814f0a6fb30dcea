"""The server and `check`, started in a user's folder, import nothing from it.

`python -m` puts the working directory first on `sys.path`, and editors start the server in the
project (the VS Code extension did, with `python -m jax_lsp serve`): a `typing.py` there would
shadow the standard library's. The folder here holds a module for every standard-library name
and for the server's dependencies, each writing a marker file when imported. The server runs for
real over stdio, until its jedi worker process has answered.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
from pytest_lsp import make_test_lsp_client

from jax_lsp import import_path
from tests.e2e.conftest import codes, open_document, start, wait_for

pytestmark = pytest.mark.slow  # real servers started

_DEPENDENCIES = ("pygls", "lsprotocol", "cattrs", "attrs", "jedi", "parso", "libcst", "pathspec")
# jedi's cold start in its (niced) worker takes seconds, and minutes on a machine loaded ten
# times over its cores.
_PATIENCE = 300.0
_EVERY = tuple(sorted(set(sys.stdlib_module_names) | set(_DEPENDENCIES)))
_USER = "from a import make_state\n\nstate = make_state()\nstate[0] = 1.0\n"
_DIRECT = "import jax.numpy as jnp\n\nstate = jnp.zeros(3)\nstate[0] = 1.0\n"
_FLAGS_310 = ("debug", "inspect", "interactive", "optimize", "isolated", "ignore_environment")


def _shadowed_folder(root: Path) -> tuple[Path, Path]:
    """(project folder of shadowing modules, folder of the markers they write)."""
    project, markers = root / "project", root / "markers"
    project.mkdir()
    markers.mkdir()
    for name in _EVERY:
        marker = markers / name
        (project / f"{name}.py").write_text(f"open({str(marker)!r}, 'w').close()\n")
    # A value only jedi can type (from a third module): the worker process must answer.
    (project / "a.py").write_text(
        "from c import helper\n\ndef make_state():\n    return helper()\n", encoding="utf-8"
    )
    (project / "c.py").write_text(
        "import jax.numpy as jnp\n\ndef helper():\n    return jnp.ones(3)\n", encoding="utf-8"
    )
    return project, markers


def _environment() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k not in ("PYTHONSAFEPATH", "PYTHONPATH")}


def _imported(markers: Path) -> list[str]:
    return sorted(path.name for path in markers.iterdir())


def _run_in(folder: Path, command: list[str], stdin: str = "") -> subprocess.CompletedProcess:
    return subprocess.run(
        command,
        input=stdin,
        cwd=folder,
        env=_environment(),
        capture_output=True,
        text=True,
        timeout=120,
    )


def _script(command: list[str]) -> list[str]:
    """`command` with the `jax-lsp` script of this interpreter's environment."""
    if "-P" in command and sys.version_info < (3, 11):
        pytest.skip("-P is new in Python 3.11")
    if command[0] != "jax-lsp":
        return command
    found = shutil.which("jax-lsp", path=str(Path(sys.executable).parent))
    if found is None:
        pytest.skip("no jax-lsp script beside this interpreter")
    return [found, *command[1:]]


@pytest.mark.parametrize(
    "command",
    [
        # The documented command where -P exists (3.11+), as the VS Code extension runs it.
        [sys.executable, "-P", "-m", "jax_lsp", "serve"],
        ["jax-lsp", "serve"],
        # Without -P: runpy's own imports (importlib.util, contextlib, functools, types) come
        # from the folder unless `site` imported them first, as it does here (the VS Code test
        # saw a bare interpreter fail on a `types.py`): editors must not run it this way. What
        # is checked is the entry point's clean-up: everything jax-lsp imports after it starts.
        [sys.executable, "-m", "jax_lsp", "serve"],
    ],
    ids=["python-P-m", "script", "python-m"],
)
async def test_server_started_in_the_folder_imports_nothing_from_it(tmp_path, command):
    project, markers = _shadowed_folder(tmp_path)
    client = make_test_lsp_client()
    await client.start_io(*_script(command), cwd=project, env=_environment())
    try:
        await start(client, root=project)
        uri = open_document(client, project / "b.py", _USER + _DIRECT)
        # Two JAX201: the one on line 4 once the jedi worker process has answered.
        found = await wait_for(
            lambda: len(client.diagnostics.get(uri, ())) == 2 and client.diagnostics[uri],
            timeout=_PATIENCE,
        )
        await client.shutdown_session()
    finally:
        assert _imported(markers) == [], "the server imported the user's modules"
    assert codes(found) == ["JAX201", "JAX201"]
    assert sorted(d.range.start.line for d in found) == [3, 7]


@pytest.mark.parametrize(
    "command", [[sys.executable, "-m", "jax_lsp"], ["jax-lsp"]], ids=["python-m", "script"]
)
def test_check_run_in_the_folder_imports_nothing_from_it(tmp_path, command):
    project, markers = _shadowed_folder(tmp_path)
    (project / "b.py").write_text(_DIRECT, encoding="utf-8")
    done = _run_in(project, [*_script(command), "check", "--output-format", "concise", "b.py"])
    assert _imported(markers) == [], done.stderr
    assert done.returncode == 1, done.stderr
    assert "b.py:4:1: error: JAX201" in done.stdout


# A host process with a second thread: `check --jobs` then spawns its workers (forking a
# process with threads is unsafe), each a `python -c ...` started in the working directory.
_THREADED_HOST = """
import sys, threading, time
from jax_lsp.cli import main

if __name__ == "__main__":
    threading.Thread(target=time.sleep, args=(600,), daemon=True).start()
    sys.exit(main(sys.argv[1:]))
"""


def test_check_jobs_spawned_workers_import_nothing_from_the_folder(tmp_path):
    """The spawned workers and multiprocessing's resource tracker import `signal`, `socket`,
    ... before they take the parent's path (the `jax-lsp` script's, or `python -m` on 3.10, has
    no -P to pass on): they ran the folder's `signal.py` and every file was lost."""
    project, markers = _shadowed_folder(tmp_path)
    (project / "b.py").write_text(_DIRECT, encoding="utf-8")
    host = tmp_path / "host" / "run_check.py"
    host.parent.mkdir()
    host.write_text(_THREADED_HOST, encoding="utf-8")
    command = [sys.executable, str(host), "check", "--jobs", "2", "--output-format", "concise"]
    assert len(list(project.glob("*.py"))) >= 32  # enough files for `check` to use workers
    done = subprocess.run(
        [*command, "."],
        cwd=project,
        env={**_environment(), "PYTHONPATH": str(Path(__file__).resolve().parents[2])},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert _imported(markers) == [], done.stderr
    assert done.returncode == 1, done.stderr
    assert "b.py:4:1: error: JAX201" in done.stdout
    assert "could not be checked" not in done.stdout + done.stderr


def test_worker_command_for_python_310_imports_nothing_from_the_folder(tmp_path, monkeypatch):
    """Python 3.10 has no -P: the worker's command removes the folder before its first import."""
    monkeypatch.setattr(sys, "version_info", (3, 10, 14, "final", 0))
    command = import_path.module_command("jax_lsp.lsp.jedi_worker")
    assert "-P" not in command
    project, markers = _shadowed_folder(tmp_path)
    done = _run_in(project, command, stdin='{"id": 1, "op": "unknown"}\n')
    assert _imported(markers) == [], done.stderr
    assert done.stdout == '{"id": 1, "arrays": []}\n', done.stderr


def test_entry_point_runs_on_python_310(monkeypatch):
    """`python -m jax_lsp` on 3.10, whose `sys.flags` has no `safe_path`: the working directory
    is still taken off the path. (It raised AttributeError: every `python3.10 -m jax_lsp`, the
    VS Code extension's command, failed.)"""
    flags_310 = SimpleNamespace(**{name: getattr(sys.flags, name) for name in _FLAGS_310})
    monkeypatch.setattr(sys, "flags", flags_310)
    monkeypatch.setattr(sys, "path", [os.getcwd(), "/lib/python3.10"])
    monkeypatch.setitem(os.environ, "PYTHONSAFEPATH", "")
    import_path.drop_working_directory()
    assert sys.path == ["/lib/python3.10"]
    assert os.environ["PYTHONSAFEPATH"] == "1"

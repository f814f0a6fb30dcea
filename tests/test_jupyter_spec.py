"""jupyter-lsp finds jax-lsp through its spec entry point: the spec it reads, and the command in
it, which must start this package's server."""

from __future__ import annotations

import importlib
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
import tomllib

from jax_lsp import __version__
from jax_lsp.import_path import module_command
from jax_lsp.jupyter import SERVER_KEY, spec

ROOT = Path(__file__).resolve().parent.parent


def test_the_spec_starts_this_python_s_server():
    specs = spec(manager=None)
    assert list(specs) == [SERVER_KEY]
    server = specs[SERVER_KEY]
    assert server["version"] == 2  # jupyter-lsp's spec schema version
    assert server["argv"] == [*module_command("jax_lsp"), "serve"]  # never the user folder
    assert server["languages"] == ["python"]
    assert "text/x-ipython" in server["mime_types"]
    assert server["requires_documents_on_disk"] is False  # the text comes in the messages
    # Each setting offered is one the server reads from its `jax-lsp` section.
    from jax_lsp.lsp.settings import SECTION

    settings = server["config_schema"]["properties"]
    assert settings and all(key.startswith(f"{SECTION}.") for key in settings)


def test_the_install_command_is_the_readmes_from_a_clone():
    """jax-lsp is not on PyPI: the command jupyter-lsp shows installs a clone, with the extra
    JupyterLab needs, as the README's JupyterLab line does (`pip install ".[jupyterlab]"`)."""
    command = shlex.split(spec()[SERVER_KEY]["install"]["pip"])
    assert command[:2] == ["pip", "install"] and "-e" not in command  # editable: no labextension
    clone, _, extras = command[-1].partition("[")
    assert Path(clone).is_absolute() and extras == "jupyterlab]"
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert "jupyterlab" in project["project"]["optional-dependencies"]
    assert 'pip install ".[jupyterlab]"` from the clone' in (ROOT / "README.md").read_text()


def test_the_spec_command_runs():
    command = [*spec()[SERVER_KEY]["argv"][:-1], "--version"]
    result = subprocess.run(command, capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert result.stdout.strip() == f"jax-lsp {__version__}"


def test_the_entry_point_names_the_spec_function():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    target = project["project"]["entry-points"]["jupyter_lsp_spec_v1"][SERVER_KEY]
    module, _, name = target.partition(":")
    assert getattr(importlib.import_module(module), name) is spec


def test_the_spec_loads_nothing_heavy():
    # The Jupyter server imports it at its start, for every user of the environment.
    code = (
        "import sys, jax_lsp.jupyter; "
        "heavy = {'lsprotocol', 'pygls', 'jedi', 'libcst'}; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in heavy "
        "or m == 'jax_lsp.engine'))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, cwd=ROOT
    )
    assert result.stdout.strip() == "[]"


def test_the_spec_is_valid_for_jupyter_lsp():
    schema = pytest.importorskip("jupyter_lsp.schema")
    errors = list(schema.LANGUAGE_SERVER_SPEC_MAP.iter_errors(spec()))
    assert errors == []

"""`check` in a folder where JupyterLab has run: its checkpoints and jupyterlab-lsp's virtual
documents are not checked twice, and `--fix` reports what is left where it now is."""

from __future__ import annotations

import json
from pathlib import Path

from jax_lsp.files import notebook_of_virtual_document
from tests.cli.helpers import jax_lsp
from tests.test_ipynb import notebook_json

# `--fix` adds `import jax.numpy as jnp` to the first cell: every later line moves down.
NOTEBOOK = notebook_json(
    ("code", "from jax import jit\n"),
    ("code", "@jit\ndef f(x):\n    return x >= 0 and x <= 1\n"),
    ("code", "@jit\ndef g(x):\n    return float(x.sum())\n"),
)
# What jupyterlab-lsp writes for it: the cells joined, as Python, under the notebook's name.
VIRTUAL = "from jax import jit\n\n@jit\ndef g(x):\n    return float(x.sum())\n"


def lab_folder(root: Path) -> Path:
    (root / "nb.ipynb").write_text(NOTEBOOK)
    (root / ".ipynb_checkpoints").mkdir()
    (root / ".ipynb_checkpoints" / "nb-checkpoint.ipynb").write_text(NOTEBOOK)
    (root / ".virtual_documents").mkdir()
    (root / ".virtual_documents" / "nb.ipynb").write_text(VIRTUAL)
    return root


def test_a_folder_where_lab_ran_reports_each_finding_once(tmp_path: Path):
    run = jax_lsp("check", "--output-format", "concise", ".", cwd=lab_folder(tmp_path))
    assert run.stderr == ""
    assert [line.split(" ")[0] for line in run.stdout.splitlines()[:-2]] == [
        "nb.ipynb:cell",
        "nb.ipynb:cell",
    ]
    assert "Found 2 findings" in run.stdout


def test_the_tools_folders_named_on_the_command_line_are_checked(tmp_path: Path):
    lab_folder(tmp_path)
    run = jax_lsp(
        "check",
        "--output-format",
        "concise",
        ".virtual_documents",
        ".ipynb_checkpoints/nb-checkpoint.ipynb",
        cwd=tmp_path,
    )
    assert run.stderr == ""  # the virtual document is read as the Python it is
    assert ".virtual_documents/nb.ipynb:5:12: error: JAX703" in run.stdout
    assert ".ipynb_checkpoints/nb-checkpoint.ipynb:cell 3:3:12: error: JAX703" in run.stdout


def test_fix_reports_the_remaining_finding_at_its_new_line(tmp_path: Path):
    (tmp_path / "nb.ipynb").write_text(NOTEBOOK)
    fixed = jax_lsp("check", "--output-format", "concise", "--fix", "nb.ipynb", cwd=tmp_path)
    cells = [
        "".join(cell["source"]) for cell in json.loads((tmp_path / "nb.ipynb").read_text())["cells"]
    ]
    assert cells[0] == "from jax import jit\nimport jax.numpy as jnp\n"
    again = jax_lsp("check", "--output-format", "concise", "nb.ipynb", cwd=tmp_path)
    assert fixed.stdout.splitlines()[0] == again.stdout.splitlines()[0]
    assert again.stdout.startswith("nb.ipynb:cell 3:3:12: error: JAX703")


def test_fix_reports_a_python_file_at_its_new_lines(tmp_path: Path):
    cells = [json.loads(NOTEBOOK)["cells"][i]["source"] for i in range(3)]
    (tmp_path / "m.py").write_text("\n".join("".join(cell) for cell in cells))
    fixed = jax_lsp("check", "--output-format", "concise", "--fix", "m.py", cwd=tmp_path)
    again = jax_lsp("check", "--output-format", "concise", "m.py", cwd=tmp_path)
    assert fixed.stdout.splitlines()[0] == again.stdout.splitlines()[0]
    assert again.stdout.startswith("m.py:10:12: error: JAX703")


def test_a_virtual_document_names_its_notebook():
    assert notebook_of_virtual_document("/p/.virtual_documents/nb.ipynb") == "/p/nb.ipynb"
    assert notebook_of_virtual_document("/p/.virtual_documents/sub/a.ipynb") == "/p/sub/a.ipynb"
    assert notebook_of_virtual_document("/p/nb.ipynb") is None
    assert notebook_of_virtual_document("/p/.virtual_documents") is None

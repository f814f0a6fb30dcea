"""jupyterlab-lsp's virtual documents: a notebook's cells joined, sent as
`<folder>/.virtual_documents/nb.ipynb` with that virtual folder as the root. They are analysed
as the notebook in `<folder>`: its sibling modules and its pyproject.toml apply."""

from __future__ import annotations

from pathlib import Path

from tests.e2e.conftest import codes, diagnostics_for, open_document, start

HELPERS = "import jax.numpy as jnp\n\n\ndef make_array():\n    return jnp.zeros(3)\n"
# The cells as jupyterlab-lsp joins them (blank lines between cells).
JOINED = "from helpers import make_array\n\n\nx = make_array()\n\n\nx[0] = 1.0\n"


def lab_folder(root: Path) -> Path:
    (root / "helpers.py").write_text(HELPERS)
    (root / "nb.ipynb").write_text("{}")  # the real notebook (its content is not read)
    virtual = root / ".virtual_documents"
    virtual.mkdir()
    return virtual


async def test_a_sibling_import_resolves_in_a_virtual_document(client, tmp_path):
    virtual = lab_folder(tmp_path)
    await start(client, root=virtual)
    uri = open_document(client, virtual / "nb.ipynb", JOINED)
    found = await diagnostics_for(client, uri, bool)
    assert codes(found) == ["JAX201"]
    assert found[0].range.start.line == 6


async def test_the_notebook_folder_s_pyproject_applies(client, tmp_path):
    virtual = lab_folder(tmp_path)
    (tmp_path / "pyproject.toml").write_text('[tool.jax-lsp]\nignore = ["JAX201"]\n')
    await start(client, root=virtual)
    # Another finding shows the document was analysed, with JAX201 ignored.
    text = JOINED + "x[1] += 2.0\n"
    uri = open_document(client, virtual / "nb.ipynb", text)
    found = await diagnostics_for(client, uri, bool)
    assert codes(found) == ["JAX202"]

"""jupyterlab-lsp's virtual documents: a notebook's cells joined, sent as
`<folder>/.virtual_documents/nb.ipynb` with that virtual folder as the root. They are analysed
as the notebook in `<folder>`: its sibling modules and its pyproject.toml apply."""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types

from jax_lsp.lsp.hover import cell_places
from tests.e2e.conftest import codes, diagnostics_for, open_document, start
from tests.test_ipynb import notebook_json

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


NOTEBOOK_CELLS = [
    ("code", "import jax\n"),
    ("markdown", "# A leaky relu\n"),
    ("code", "def relu(x):\n    if x > 0:\n        return x\n    return 0.01 * x\n"),
    ("code", "%time relu(1.0)\nrelu_jit = jax.jit(relu)\n"),
]


def joined(cells: list[tuple[str, str]]) -> str:
    """The code cells as jupyterlab-lsp joins them: two blank lines between cells, IPython
    lines rewritten."""
    sources = [source.rstrip("\n") for kind, source in cells if kind == "code"]
    text = "\n\n\n".join(sources) + "\n"
    return text.replace("%time relu(1.0)", "get_ipython().run_line_magic('time', 'relu(1.0)')")


async def test_hover_names_related_places_by_cell_and_line(client, tmp_path):
    virtual = lab_folder(tmp_path)
    (tmp_path / "nb.ipynb").write_text(notebook_json(*NOTEBOOK_CELLS))
    await start(client, root=virtual)
    text = joined(NOTEBOOK_CELLS)
    uri = open_document(client, virtual / "nb.ipynb", text)
    found = await diagnostics_for(client, uri, bool)
    assert codes(found) == ["JAX701"]
    hover = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri), position=found[0].range.start
        )
    )
    # `jax.jit(relu)` is on line 10 of the joined text: cell 4 (markdown counted), line 2.
    assert "- cell 4, line 2: `jax.jit` traces `relu`" in hover.contents.value, hover.contents.value


async def test_hover_names_cells_of_the_notebook_sent_under_its_own_uri(client, tmp_path):
    """jupyterlab-lsp 5 sends the joined cells as the `.ipynb` itself (no `.virtual_documents`
    copy) to a server that reads documents from the messages, as jax-lsp's spec says it does."""
    (tmp_path / "nb.ipynb").write_text(notebook_json(*NOTEBOOK_CELLS))
    await start(client, root=tmp_path)
    uri = open_document(client, tmp_path / "nb.ipynb", joined(NOTEBOOK_CELLS))
    found = await diagnostics_for(client, uri, bool)
    hover = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri), position=found[0].range.start
        )
    )
    assert "- cell 4, line 2: `jax.jit` traces `relu`" in hover.contents.value, hover.contents.value


def test_places_fall_back_to_lines_when_the_saved_notebook_differs(tmp_path: Path):
    (tmp_path / "nb.ipynb").write_text(notebook_json(*NOTEBOOK_CELLS))
    lines = joined(NOTEBOOK_CELLS).split("\n")
    place = cell_places(lines, str(tmp_path / "nb.ipynb"))
    assert place is not None
    assert [place(line) for line in (0, 3, 4, 9, 10)] == [
        "cell 1, line 1",
        "cell 3, line 1",
        "cell 3, line 2",
        "cell 4, line 1",
        "cell 4, line 2",
    ]
    edited = [line.replace("def relu", "def leaky") for line in lines]
    assert cell_places(edited, str(tmp_path / "nb.ipynb")) is None
    assert cell_places(lines, str(tmp_path / "missing.ipynb")) is None

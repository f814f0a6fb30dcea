"""Cross-module facts over LSP: what an imported workspace function returns decides JAX201."""

from __future__ import annotations

import asyncio
from pathlib import Path

from lsprotocol import types

from tests.e2e.conftest import change, codes, diagnostics_for, open_document, start
from tests.e2e.test_notebooks import open_notebook

USER = "from a import make_state\n\nstate = make_state()\nstate[0] = 1.0\n"


def write_module(root: Path, body: str) -> None:
    (root / "a.py").write_text(f"import jax.numpy as jnp\nimport numpy as np\n\n{body}")


async def test_imported_jax_array_is_flagged(client, tmp_path):
    write_module(tmp_path, "def make_state():\n    return jnp.zeros(3)\n")
    await start(client, root=tmp_path)
    uri = open_document(client, tmp_path / "b.py", USER)
    found = await diagnostics_for(client, uri, bool)
    assert codes(found) == ["JAX201"]
    assert found[0].range.start.line == 3


async def test_imported_numpy_array_is_not_flagged(client, tmp_path):
    write_module(tmp_path, "def make_state():\n    return np.zeros(3)\n")
    await start(client, root=tmp_path)
    uri = open_document(client, tmp_path / "b.py", USER + "jnp_like = 1\n")
    assert await diagnostics_for(client, uri, lambda found: found == []) == []


def write_indirect(root: Path) -> Path:
    """a.make_state returns c.helper(): the engine cannot tell, jedi can. c.py writes a marker
    if it is ever imported (it must not be)."""
    marker = root / "MARKER"
    (root / "c.py").write_text(
        f"import jax.numpy as jnp\nopen({str(marker)!r}, 'w')\n\n"
        "def helper():\n    return jnp.ones(3)\n"
    )
    write_module(root, "from c import helper\n\ndef make_state():\n    return helper()\n")
    return marker


async def test_jedi_answer_arrives_and_is_published(client, tmp_path):
    """The engine cannot tell (the value comes from a third module): jedi can, possibly after
    the budget, and the server publishes again. The module writes a marker if imported."""
    marker = write_indirect(tmp_path)
    await start(client, root=tmp_path)
    uri = open_document(client, tmp_path / "b.py", USER)
    # The answer needs the jedi worker started cold (its imports, its first inference): on a
    # loaded machine that alone took more than the usual wait.
    found = await diagnostics_for(client, uri, bool, timeout=120)
    assert codes(found) == ["JAX201"]
    assert not marker.exists()


async def test_notebook_cells_ask_jedi_as_files_do(client, tmp_path):
    """A notebook's code cells, analyzed as one module, ask jedi what the engine cannot answer:
    the answer arrives and the cell's diagnostics are published again."""
    marker = write_indirect(tmp_path)
    await start(client, root=tmp_path)
    code = types.NotebookCellKind.Code
    cells = [(code, "from a import make_state\n"), (code, "state = make_state()\nstate[0] = 1.0\n")]
    _, cell_uris = open_notebook(client, tmp_path, cells)
    found = await diagnostics_for(client, cell_uris[1], bool, timeout=120)
    assert codes(found) == ["JAX201"]
    assert found[0].range.start.line == 1
    assert not marker.exists()


async def test_an_edit_of_an_imported_module_refreshes_the_open_files_importing_it(
    client, tmp_path
):
    """The module changes in the editor: unsaved, saved, closed with unsaved edits. The open
    file importing it gets its diagnostics again each time, without being edited itself."""
    write_module(tmp_path, "def make_state():\n    return jnp.zeros(3)\n")
    await start(client, root=tmp_path)
    module = tmp_path / "a.py"
    module_uri = open_document(client, module, module.read_text())
    user_uri = open_document(client, tmp_path / "b.py", USER)
    assert codes(await diagnostics_for(client, user_uri, bool)) == ["JAX201"]
    # `    return jnp.zeros(3)` -> `    return np.zeros(3)`: a NumPy array, which may be written.
    change(client, module_uri, 2, " np", (4, 10), (4, 14))
    assert await diagnostics_for(client, user_uri, lambda found: found == []) == []
    change(client, module_uri, 3, "jnp", (4, 11), (4, 13))
    assert codes(await diagnostics_for(client, user_uri, bool)) == ["JAX201"]
    # Closed with the NumPy edit unsaved: the file on disk counts again.
    change(client, module_uri, 4, " np", (4, 10), (4, 14))
    assert await diagnostics_for(client, user_uri, lambda found: found == []) == []
    closed = types.TextDocumentIdentifier(uri=module_uri)
    client.text_document_did_close(types.DidCloseTextDocumentParams(text_document=closed))
    assert codes(await diagnostics_for(client, user_uri, bool)) == ["JAX201"]
    # Opened again, edited and saved: the saved file counts (and keeps counting once closed).
    open_document(client, module, module.read_text())
    module.write_text(module.read_text().replace("jnp.zeros", "np.zeros"))
    change(client, module_uri, 2, " np", (4, 10), (4, 14))
    client.text_document_did_save(types.DidSaveTextDocumentParams(text_document=closed))
    assert await diagnostics_for(client, user_uri, lambda found: found == []) == []
    client.text_document_did_close(types.DidCloseTextDocumentParams(text_document=closed))
    await asyncio.sleep(1.0)  # longer than the refresh takes: nothing changes
    assert list(client.diagnostics[user_uri]) == []


async def test_a_pulling_client_gets_the_new_diagnostics_of_an_importer(client, tmp_path):
    """A client that pulls diagnostics, asking with the result id it holds for the importer
    (not edited itself, so at the same version) after a module it imports changed, is given
    the new report, not "unchanged"."""
    write_module(tmp_path, "def make_state():\n    return jnp.zeros(3)\n")
    await start(client, root=tmp_path, pull=True)
    module = tmp_path / "a.py"
    module_uri = open_document(client, module, module.read_text())
    user = types.TextDocumentIdentifier(uri=open_document(client, tmp_path / "b.py", USER))

    async def pull(previous: str | None) -> types.DocumentDiagnosticReport:
        return await client.text_document_diagnostic_async(
            types.DocumentDiagnosticParams(text_document=user, previous_result_id=previous)
        )

    report = await pull(None)
    assert codes(report.items) == ["JAX201"]
    change(client, module_uri, 2, " np", (4, 10), (4, 14))  # returns a NumPy array now
    for _ in range(100):  # the importer is analyzed again once the module's edits pause
        await asyncio.sleep(0.1)
        again = await pull(report.result_id)
        if again.kind == "full":
            break
    assert again.kind == "full" and list(again.items) == []
    assert (await pull(again.result_id)).kind == "unchanged"  # nothing changed since


MESH_USER = (
    "import jax\n"
    "import jax.numpy as jnp\n"
    "from jax.sharding import NamedSharding, PartitionSpec as P\n\n"
    "from meshes import mesh\n\n"
    'x = jax.device_put(jnp.zeros((8, 4)), NamedSharding(mesh, P("x")))\n'
    "x[0] = 1.0\n"
)
EXPLICIT = "import jax\n\nmesh = jax.make_mesh((4,), ('x',))\n"


async def test_a_mesh_imported_from_a_module_with_explicit_axes_makes_the_fix_unsafe(
    client, tmp_path
):
    """Two files: `meshes.py` builds the mesh with `jax.make_mesh` (explicit axes), `train.py`
    imports it and updates an array placed on it. The `.at` fix is offered as unsafe (on that
    mesh it raises without `out_sharding=`, tests/codeactions/test_sharded_update.py); once the
    module builds a mesh with automatic axes instead (edited in the editor), it is safe."""
    (tmp_path / "meshes.py").write_text(EXPLICIT)
    await start(client, root=tmp_path)
    user_uri = open_document(client, tmp_path / "train.py", MESH_USER)

    async def fix_titles() -> dict[str, bool]:
        found = await diagnostics_for(client, user_uri, bool)
        actions = await client.text_document_code_action_async(
            types.CodeActionParams(
                text_document=types.TextDocumentIdentifier(uri=user_uri),
                range=found[0].range,
                context=types.CodeActionContext(
                    diagnostics=found, only=[types.CodeActionKind.QuickFix]
                ),
            )
        )
        return {a.title: bool(a.is_preferred) for a in actions or [] if ".at[0]" in a.title}

    assert await fix_titles() == {
        "jax-lsp (JAX201): Replace with `x = x.at[0].set(1.0)` (unsafe)": False
    }
    module_uri = open_document(client, tmp_path / "meshes.py", EXPLICIT)
    # `jax.make_mesh((4,), ('x',))` -> `jax.sharding.Mesh(jax.devices(), ('x',))`
    change(client, module_uri, 2, "sharding.Mesh(jax.devices(),", (2, 11), (2, 26))
    for _ in range(100):  # the importer is analyzed again once the module's edits pause
        titles = await fix_titles()
        if "(unsafe)" not in next(iter(titles)):
            break
        await asyncio.sleep(0.1)
    assert titles == {"jax-lsp (JAX201): Replace with `x = x.at[0].set(1.0)`": True}


async def test_a_call_typed_or_an_import_changed_reaches_a_statement_not_edited(client, tmp_path):
    """What the module's calls spell is kept from one version to the next while its calls and
    imports are the same: typing the call in one statement, then importing the same name from
    another module in another, each change the finding of a third, which is never edited."""
    write_module(tmp_path, "def make_state():\n    return jnp.zeros(3)\n")
    (tmp_path / "c.py").write_text(
        "import numpy as np\n\ndef make_state():\n    return np.zeros(3)\n"
    )
    await start(client, root=tmp_path)
    uri = open_document(
        client,
        tmp_path / "b.py",
        "from a import make_state\n\nstate = make_state\nstate[0] = 1.0\n",
    )
    assert await diagnostics_for(client, uri, lambda found: found == []) == []
    change(client, uri, 2, "()", (2, 18))  # `state = make_state()`
    assert codes(await diagnostics_for(client, uri, bool)) == ["JAX201"]
    change(client, uri, 3, "c", (0, 5), (0, 6))  # the same calls of a NumPy helper
    assert await diagnostics_for(client, uri, lambda found: found == []) == []
    change(client, uri, 4, "a", (0, 5), (0, 6))
    assert codes(await diagnostics_for(client, uri, bool)) == ["JAX201"]

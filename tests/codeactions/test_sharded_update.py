"""The JAX201/JAX202 `.at[...]` fixes of a sharded array, run under JAX on 4 host devices (in
a subprocess: the device count is fixed when JAX starts). On a mesh with automatic axes the
fix keeps the values and the sharding, and stays safe; in a module that may build a mesh with
explicit axes (`jax.make_mesh`, explicit by default in this JAX) the plain update raises, so
the fix is unsafe (offered, never applied by fix-all)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from jax_lsp.codeactions.apply import apply_edits
from jax_lsp.config import Settings
from jax_lsp.engine import check_source, fix_source
from jax_lsp.workspace import Workspace

pytestmark = pytest.mark.slow  # fixed programs run under JAX in subprocesses

AUTO_MESH = textwrap.dedent(
    """
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax.sharding import Mesh, NamedSharding, PartitionSpec as P

    mesh = Mesh(np.array(jax.devices()), ("x",))
    x = jax.device_put(jnp.zeros((8, 4)), NamedSharding(mesh, P("x")))
    x[0] = 1.0
    x[1] += 2.0
    """
).lstrip()
EXPLICIT_MESH = AUTO_MESH.replace(
    'mesh = Mesh(np.array(jax.devices()), ("x",))', 'mesh = jax.make_mesh((4,), ("x",))'
)
# What the fixed module must give: the rows updated, the rows still split over the 4 devices.
CHECK = """
assert x[0].tolist() == [1.0] * 4 and x[1].tolist() == [2.0] * 4 and float(x[2:].sum()) == 0
assert x.sharding.spec[0] == "x" and len(x.sharding.device_set) == 4
print("KEPT")
"""


def _run_on_four_devices(source: str, folder: Path | None = None) -> subprocess.CompletedProcess:
    """`source` then CHECK in a fresh interpreter on 4 host devices (in `folder`, whose
    modules it may import)."""
    environment = {**os.environ, "XLA_FLAGS": "--xla_force_host_platform_device_count=4"}
    return subprocess.run(
        [sys.executable, "-c", source + CHECK],
        capture_output=True,
        text=True,
        env=environment,
        cwd=folder,
        timeout=300,
    )


def _fixes(source: str, path: str = "sharded.py", workspace: Workspace | None = None) -> list:
    findings = check_source(source, path, Settings(), workspace).findings
    assert [f.code for f in findings] == ["JAX201", "JAX202"]
    return [finding.fix for finding in findings]


def test_the_fix_keeps_values_and_sharding_on_an_automatic_mesh():
    fixes = _fixes(AUTO_MESH)
    assert all(fix.is_safe for fix in fixes)
    fixed, count = fix_source(AUTO_MESH, "sharded.py", Settings())
    assert count == 2 and "x = x.at[0].set(1.0)" in fixed and "x = x.at[1].add(2.0)" in fixed
    run = _run_on_four_devices(fixed)
    assert run.returncode == 0 and "KEPT" in run.stdout, run.stderr


@pytest.mark.parametrize("spelling", ["jax.make_mesh((4,), (", "jax.sharding.AxisType"])
def test_the_fix_is_unsafe_where_a_mesh_may_have_explicit_axes(spelling: str):
    source = EXPLICIT_MESH
    if spelling == "jax.sharding.AxisType":  # an explicit mesh asked for by its axis type
        source = AUTO_MESH.replace(
            'Mesh(np.array(jax.devices()), ("x",))',
            'Mesh(np.array(jax.devices()), ("x",), axis_types=(jax.sharding.AxisType.Explicit,))',
        )
    fixes = _fixes(source)
    assert not any(fix.is_safe for fix in fixes)
    assert fix_source(source, "sharded.py", Settings()) == (source, 0)
    # Why: applied (as a user picking the quick fix would), the update raises on that mesh.
    fixed = apply_edits(source, [edit for fix in fixes for edit in fix.edits])
    run = _run_on_four_devices(fixed)
    assert run.returncode != 0 and "KEPT" not in run.stdout
    assert "out_sharding" in run.stderr or "mesh context" in run.stderr, run.stderr


# The mesh comes from another module of the project: the array is placed on it here.
IMPORTING = textwrap.dedent(
    """
    import jax
    import jax.numpy as jnp
    from jax.sharding import NamedSharding, PartitionSpec as P

    from IMPORT

    x = jax.device_put(jnp.zeros((8, 4)), NamedSharding(MESH, P("x")))
    x[0] = 1.0
    x[1] += 2.0
    """
).lstrip()
MESH_MODULES = {
    "explicit": "import jax\n\nmesh = jax.make_mesh((4,), ('x',))\n",
    "automatic": "import jax\nimport numpy as np\nfrom jax.sharding import Mesh\n\n"
    "mesh = Mesh(np.array(jax.devices()), ('x',))\n",
}
# How the module imports it: by name, as a module, through a package re-exporting the name.
IMPORTS = {
    "name": ("from meshes import mesh", "mesh"),
    "module": ("import meshes", "meshes.mesh"),
    "package": ("from parallel import mesh", "mesh"),
}


def _project(folder: Path, mesh: str, spelling: str) -> tuple[str, str]:
    """A project whose module `meshes` builds the mesh (re-exported by the package
    `parallel`): the text and path of the module importing it."""
    (folder / "meshes.py").write_text(MESH_MODULES[mesh])
    (folder / "parallel").mkdir()
    (folder / "parallel" / "__init__.py").write_text("from meshes import mesh\n")
    imported, used = IMPORTS[spelling]
    text = IMPORTING.replace("from IMPORT", imported).replace("MESH", used)
    return text, str(folder / "train.py")


@pytest.mark.parametrize("spelling", sorted(IMPORTS))
def test_a_mesh_imported_from_the_project_makes_the_fix_unsafe_where_it_is_explicit(
    tmp_path: Path, spelling: str
):
    text, path = _project(tmp_path, "explicit", spelling)
    workspace = Workspace(str(tmp_path))
    assert not any(fix.is_safe for fix in _fixes(text, path, workspace))
    assert fix_source(text, path, Settings(), workspace) == (text, 0)
    if spelling != "name":
        return
    # Why: applied, the update raises on the imported mesh.
    fixed = apply_edits(text, [e for fix in _fixes(text, path, workspace) for e in fix.edits])
    run = _run_on_four_devices(fixed, tmp_path)
    assert run.returncode != 0 and "KEPT" not in run.stdout
    assert "out_sharding" in run.stderr or "mesh context" in run.stderr, run.stderr


def test_an_imported_automatic_mesh_keeps_the_fix_safe(tmp_path: Path):
    text, path = _project(tmp_path, "automatic", "name")
    workspace = Workspace(str(tmp_path))
    assert all(fix.is_safe for fix in _fixes(text, path, workspace))
    fixed, count = fix_source(text, path, Settings(), workspace)
    assert count == 2
    run = _run_on_four_devices(fixed, tmp_path)
    assert run.returncode == 0 and "KEPT" in run.stdout, run.stderr

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

import pytest

from jax_lsp.codeactions.apply import apply_edits
from jax_lsp.config import Settings
from jax_lsp.engine import check_source, fix_source

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


def _run_on_four_devices(source: str) -> subprocess.CompletedProcess:
    environment = {**os.environ, "XLA_FLAGS": "--xla_force_host_platform_device_count=4"}
    return subprocess.run(
        [sys.executable, "-c", source + CHECK],
        capture_output=True,
        text=True,
        env=environment,
        timeout=300,
    )


def _fixes(source: str) -> list:
    findings = check_source(source, "sharded.py", Settings()).findings
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

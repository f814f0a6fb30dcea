"""The project's trace graph over LSP: a helper in one module traced by a jitted step in
another is checked as traced code, in its own file, with the jit site as related information;
editing the module that traces it re-publishes the helper's diagnostics."""

from __future__ import annotations

from tests.e2e.conftest import change, codes, diagnostics_for, open_document, start

TRAIN = """import jax

from utils import clip_update


@jax.jit
def step(params, grads):
    return clip_update(params, grads, 0.1)
"""

UTILS = """import jax.numpy as jnp


def clip_update(params, grads, lr):
    if jnp.linalg.norm(grads) > 1.0:
        grads = grads / jnp.linalg.norm(grads)
    print("clipping", grads)
    params[0] = params[0] - lr * grads[0]
    return params
"""

EXPECTED = ["JAX201", "JAX701", "JAX101"]


def _sorted_codes(found) -> list[str]:
    return [d.code for d in sorted(found, key=lambda d: d.range.start.line)]


async def test_a_helper_traced_from_another_module_is_checked_in_its_own_file(client, tmp_path):
    (tmp_path / "train.py").write_text(TRAIN)
    (tmp_path / "utils.py").write_text(UTILS)
    await start(client, root=tmp_path)
    uri = open_document(client, tmp_path / "utils.py", UTILS)
    found = await diagnostics_for(client, uri, lambda found: len(found) == 3)
    assert _sorted_codes(found) == ["JAX701", "JAX101", "JAX201"]
    branch = next(d for d in found if d.code == "JAX701")
    assert "train.py" in branch.message
    places = [
        (info.location.uri, info.location.range.start.line) for info in branch.related_information
    ]
    train_uri = (tmp_path / "train.py").as_uri()
    assert (train_uri, 7) in places  # the call from `step`
    assert (train_uri, 5) in places  # `@jax.jit` on `step`


async def test_editing_the_jit_site_republishes_the_helper(client, tmp_path):
    """Removing `@jax.jit` in train.py makes utils.py's findings go; restoring it brings them
    back. utils.py is not edited."""
    (tmp_path / "train.py").write_text(TRAIN)
    (tmp_path / "utils.py").write_text(UTILS)
    await start(client, root=tmp_path)
    train_uri = open_document(client, tmp_path / "train.py", TRAIN)
    utils_uri = open_document(client, tmp_path / "utils.py", UTILS)
    assert len(await diagnostics_for(client, utils_uri, lambda found: len(found) == 3)) == 3
    # Line 5 is `@jax.jit`: removed.
    change(client, train_uri, 2, "", (5, 0), (6, 0))
    assert await diagnostics_for(client, utils_uri, lambda found: found == []) == []
    change(client, train_uri, 3, "@jax.jit\n", (5, 0))
    found = await diagnostics_for(client, utils_uri, lambda found: len(found) == 3)
    assert sorted(codes(found)) == sorted(EXPECTED)

"""Dicts holding boolean arrays passed into a trace (jax_lsp.analysis.boolean_entries): a
batch whose "mask" entry a NumPy comparison built (in a dict display, a name bound to one, or
what a data loader of this module or another returns) holds a traced boolean array inside
the jitted function it is given, and `x[batch["mask"]]` there raises
NonConcreteBooleanIndexError (JAX801), in that function or a helper of another module it
hands the batch to. Outside a trace, NumPy indexing with the same mask is fine."""

from __future__ import annotations

import textwrap

import pytest

from tests.analysis.test_boolean_args import check_codes
from tests.analysis.test_project_traces import codes, write
from tests.runtime import run_snippet

DATA = """
    import numpy as np


    def make_batch(n, seq_len=5):
        lengths = np.random.default_rng(0).integers(1, seq_len, size=n)
        mask = np.arange(seq_len)[None, :] < lengths[:, None]
        return {"x": np.ones((n, seq_len)), "mask": mask, "lengths": lengths}
"""
LOSSES = """
    def masked_mean(values, batch):
        return values[batch["mask"]].mean()


    def picked_mean(values, batch):
        return values[batch["lengths"]].mean()
"""
TRAIN = """
    import jax

    from data import make_batch
    from losses import masked_mean, picked_mean


    @jax.jit
    def loss(params, batch):
        return masked_mean(batch["x"] * params, batch) + picked_mean(batch["x"], batch)


    batch = make_batch(3)
    print(jax.grad(loss)(1.0, batch))
"""


def test_a_loader_s_mask_reaches_a_helper_of_the_jitted_loss(tmp_path):
    write(tmp_path, {"data.py": DATA, "losses.py": LOSSES, "train.py": TRAIN})
    assert codes(tmp_path, "losses.py") == [(2, "JAX801")]
    assert check_codes(tmp_path) == [("losses.py", 2, "JAX801")]


def test_the_same_batch_given_to_the_eager_helpers_is_clean(tmp_path):
    train = TRAIN.replace("    @jax.jit\n", "").replace(
        "jax.grad(loss)(1.0, batch)", "loss(1.0, batch)"
    )
    write(tmp_path, {"data.py": DATA, "losses.py": LOSSES, "train.py": train})
    assert codes(tmp_path, "losses.py") == []
    assert check_codes(tmp_path) == []


ONE_FILE = """
    import jax
    import numpy as np


    @jax.jit
    def loss(params, batch):
        return (batch["x"] * params)[batch["mask"]].mean()


    lengths = np.random.default_rng(0).integers(1, 5, size=3)
    mask = np.arange(5)[None, :] < lengths[:, None]
    host = np.ones((3, 5))[mask].sum()  # NumPy indexing outside the trace: fine
    result = loss(1.0, {"x": np.ones((3, 5)), "mask": MASK})
"""


@pytest.mark.parametrize(
    ("given", "flagged"),
    [
        ("mask", [(7, "JAX801")]),
        ("mask.astype(bool)", [(7, "JAX801")]),
        ("lengths", []),  # integer positions: a fixed count
        ("mask.astype(np.int32)", []),
    ],
)
def test_a_numpy_mask_in_a_dict_given_to_a_jitted_function(tmp_path, given, flagged):
    write(tmp_path, {"script.py": ONE_FILE.replace("MASK", given)})
    assert codes(tmp_path, "script.py") == flagged


def test_the_flagged_program_raises_under_jax():
    program = textwrap.dedent(ONE_FILE.replace("MASK", "mask"))
    outcome = run_snippet(program)
    assert type(outcome.error).__name__ == "NonConcreteBooleanIndexError"


def test_a_batch_whose_mask_the_caller_replaces_is_unsure(tmp_path):
    script = """
        import jax
        import numpy as np


        @jax.jit
        def loss(params, batch):
            return (batch["x"] * params)[batch["mask"]].mean()


        def run(rows):
            batch = {"x": np.ones((3, 5)), "mask": np.ones((3, 5)) > 0}
            batch.update(mask=rows)
            return loss(1.0, batch)
    """
    write(tmp_path, {"script.py": script})
    assert codes(tmp_path, "script.py") == []

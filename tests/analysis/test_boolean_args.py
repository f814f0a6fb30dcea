"""Boolean arrays passed into a trace (jax_lsp.analysis.boolean_args): a parameter that a call
running the traced function gives a boolean array is a boolean mask there, in the module of
the call or another one (JAX801 on `x[mask]`). Each case is a small project on disk, checked
as the editor checks one file and as `check` settles a project."""

from __future__ import annotations

import json
from pathlib import Path

from jax_lsp.engine import analysing_once
from tests.analysis.test_project_traces import codes, write
from tests.cli.helpers import jax_lsp

BATCHES = """
    import numpy as np


    def load(n_valid, n_rows):
        features = np.zeros((n_rows, 2), np.float32)
        features[:n_valid] = 1.0
        keep = np.zeros(n_rows, dtype=bool)
        keep[:n_valid] = True
        return features, keep


    def load_rows(n_valid, n_rows):
        features = np.zeros((n_rows, 2), np.float32)
        return features, np.arange(n_valid)
"""

METRICS = """
    def masked_total(values, keep):
        return values[keep].sum()
"""

RUN = """
    import jax

    import batches
    import metrics

    fast_total = jax.jit(metrics.masked_total)


    def evaluate():
        features, keep = batches.load(3, 8)
        return fast_total(features, keep)
"""


def check_codes(root: Path) -> list[tuple[str, int, str]]:
    """`check` of the project, in this process: its findings by file name, line and code."""
    try:
        run = jax_lsp("check", "--output-format", "json", "--jobs", "1", ".", cwd=root)
    finally:
        analysing_once(False)  # as the other tests of this process expect
    return sorted(
        (Path(f["filename"]).name, f["location"]["row"], f["code"]) for f in json.loads(run.stdout)
    )


def test_a_mask_unpacked_from_a_helper_of_a_third_module_reaches_a_jitted_function(tmp_path):
    write(tmp_path, {"batches.py": BATCHES, "metrics.py": METRICS, "run.py": RUN})
    assert codes(tmp_path, "metrics.py") == [(2, "JAX801")]
    assert check_codes(tmp_path) == [("metrics.py", 2, "JAX801")]


def test_integer_rows_from_the_helper_are_no_mask(tmp_path):
    run = RUN.replace("batches.load(3, 8)", "batches.load_rows(3, 8)")
    write(tmp_path, {"batches.py": BATCHES, "metrics.py": METRICS, "run.py": run})
    assert codes(tmp_path, "metrics.py") == []
    assert check_codes(tmp_path) == []


def test_a_mask_given_only_to_the_eager_function_is_no_trace_of_it(tmp_path):
    """`metrics.masked_total(features, keep)` called as it is runs eagerly: fine."""
    run = RUN.replace("return fast_total(", "return metrics.masked_total(")
    write(tmp_path, {"batches.py": BATCHES, "metrics.py": METRICS, "run.py": run})
    assert codes(tmp_path, "metrics.py") == []


def test_a_mask_passed_on_by_traced_code_to_a_helper_of_another_module(tmp_path):
    """The jitted step computes the mask and hands it to a helper; a parameter of the step
    given a mask by its caller is handed on the same way."""
    write(
        tmp_path,
        {
            "metrics.py": METRICS,
            "step.py": """
                import jax
                import jax.numpy as jnp

                from metrics import masked_total


                @jax.jit
                def positive_total(values):
                    return masked_total(values, values > 0)


                @jax.jit
                def kept_total(values, keep):
                    return masked_total(values, keep)


                def main():
                    values = jnp.arange(4.0)
                    keep = jnp.isfinite(values)
                    return kept_total(values, keep)
            """,
        },
    )
    assert codes(tmp_path, "metrics.py") == [(2, "JAX801")]
    assert codes(tmp_path, "step.py") == []


def test_a_module_level_mask_and_a_decorated_function(tmp_path):
    write(
        tmp_path,
        {
            "script.py": """
                import jax
                import numpy as np

                KEEP = np.arange(4) > 1


                @jax.jit
                def kept_mean(values, keep):
                    return values[keep].mean()


                @jax.jit
                def picked_mean(values, rows):
                    return values[rows].mean()


                def report(values):
                    return kept_mean(values, KEEP), picked_mean(values, np.arange(2))
            """,
        },
    )
    assert codes(tmp_path, "script.py") == [(9, "JAX801")]


def test_a_mask_bound_in_the_main_guard_is_known_there(tmp_path):
    """`if __name__ == "__main__":` runs once, at module level: a name bound once in it
    holds what it was bound to (the jitted function called there gets a mask)."""
    write(
        tmp_path,
        {
            "script.py": """
                import jax
                import jax.numpy as jnp


                @jax.jit
                def step(x, mask):
                    return x[mask].mean()


                if __name__ == "__main__":
                    m = jnp.array([True, False, True])
                    print(step(jnp.ones(3), m))
                else:
                    n = jnp.array([0, 2])
                    print(step(jnp.ones(3), n))
            """,
        },
    )
    assert codes(tmp_path, "script.py") == [(7, "JAX801")]


def test_a_name_rebound_by_the_caller_or_the_function_is_unsure(tmp_path):
    write(
        tmp_path,
        {
            "script.py": """
                import jax
                import numpy as np


                @jax.jit
                def total(values, keep):
                    return values[keep].sum()


                @jax.jit
                def total_of_rows(values, keep):
                    keep = keep.astype(np.int32)
                    return values[keep].sum()


                def report(values, rows):
                    keep = values > 0
                    if rows is not None:
                        keep = rows
                    return total(values, keep), total_of_rows(values, values > 0)
            """,
        },
    )
    assert codes(tmp_path, "script.py") == []


def test_a_mask_given_to_a_function_its_own_module_decorates_with_jit(tmp_path):
    """`@jax.jit` in the function's module: every call of it, from any module, runs the
    trace. A call outside any trace there passes the mask."""
    write(
        tmp_path,
        {
            "losses.py": """
                import jax


                @jax.jit
                def kept_total(values, keep):
                    return values[keep].sum()


                def plain_total(values, keep):
                    return values[keep].sum()
            """,
            "run.py": """
                import numpy as np

                import losses
                from losses import kept_total


                def main():
                    values = np.arange(4.0)
                    keep = values > 1
                    return kept_total(values, keep), losses.plain_total(values, keep)
            """,
        },
    )
    assert codes(tmp_path, "losses.py") == [(6, "JAX801")]
    assert check_codes(tmp_path) == [("losses.py", 6, "JAX801")]

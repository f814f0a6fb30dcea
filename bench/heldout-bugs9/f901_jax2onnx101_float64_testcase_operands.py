# Source: https://github.com/enpasos/jax2onnx/issues/101 ("Failing to convert Brax checkpoint to
# onnx", dhruvthanki). Importing the converter printed, for its scatter_add and scan plugins,
# "UserWarning: Explicitly requested dtype <class 'jax.numpy.float64'> requested in zeros is not
# available, and will be truncated to dtype float32": the plugins' example operands were built
# with `jnp.zeros(..., dtype=jnp.float64)` / `jnp.ones(..., dtype=jnp.float64)` at import,
# while jax_enable_x64 was off, so the "float64" cases silently ran in float32.
# Reconstructed (the operand lines from the warnings; the registry around them is a sketch).
import warnings

import jax.numpy as jnp

warnings.simplefilter("always")

SCATTER_ADD_TESTCASES = [
    {
        "testcase": "scatter_add_f64_window",
        "operand": jnp.zeros((8, 50, 1, 1), dtype=jnp.float64),  # expect: JAX901
        "updates": jnp.ones((8, 45, 1, 1), dtype=jnp.float32),
    },
]

for case in SCATTER_ADD_TESTCASES:
    print(case["testcase"], case["operand"].dtype)

# ok: x64 is enabled right after the imports, before the float64 test operands are built.
import jax
import jax.numpy as jnp

jax.config.update("jax_enable_x64", True)

SCATTER_ADD_TESTCASES = [
    {
        "testcase": "scatter_add_f64_window",
        "operand": jnp.zeros((8, 50, 1, 1), dtype=jnp.float64),
        "updates": jnp.ones((8, 45, 1, 1), dtype=jnp.float64),
    },
]

for case in SCATTER_ADD_TESTCASES:
    print(case["testcase"], case["operand"].dtype)

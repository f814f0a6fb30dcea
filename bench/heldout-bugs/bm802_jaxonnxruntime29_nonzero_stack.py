# Source: https://github.com/google/jaxonnxruntime/issues/29 ("Cannot jax.jit the nonzero operator")
# onnx_nonzero is `return jnp.stack(jnp.nonzero(x))`; "When put the jax model inside jax.jit,
# there will be an error: ConcretizationTypeError ... The size argument of jnp.nonzero must be
# statically specified".
# Adapted: the ONNX op handler and a jitted call, without the ONNX graph runner.
import jax
import jax.numpy as jnp


def onnx_nonzero(x):
    return jnp.stack(jnp.nonzero(x))  # expect: JAX802


jit_func = jax.jit(onnx_nonzero)
x = jnp.array([[1, 0], [0, 3]])
print("eager:", onnx_nonzero(x).tolist())
try:
    print(jit_func(x))
except Exception as err:
    print(type(err).__name__, str(err).splitlines()[0])

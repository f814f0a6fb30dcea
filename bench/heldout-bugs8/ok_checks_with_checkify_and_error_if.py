# ok: value checks in traced code use `checkify.check` or `eqx.error_if`; Python asserts only
# test static facts (shapes, Python config values) and run-time values outside jit.
import equinox as eqx
import jax
import jax.numpy as jnp
from jax.experimental import checkify

_enable_numeric_checks = True


def check_numerics(x):
    if _enable_numeric_checks:
        checkify.check(jnp.isfinite(x).all(), "non-finite values")
    return x


def layer_fn(inputs, weight):
    assert inputs.shape[-1] == weight.shape[0], "shape mismatch"
    return check_numerics(jnp.tanh(inputs @ weight))


def positive_log(arr):
    arr = eqx.error_if(arr, arr.min() <= 0, "data-dependent check failed")
    return jnp.log(arr)


err, out = checkify.checkify(jax.jit(layer_fn))(jnp.ones((2, 3)), jnp.eye(3))
err.throw()
print(out.shape)
print(eqx.filter_jit(jax.vmap(positive_log))(jnp.ones((3, 4))).shape)
values = jnp.array([1.0, 2.0])
assert bool(jnp.isfinite(values).all())
print("checked", values)

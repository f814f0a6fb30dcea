# Source: https://github.com/apple/axlearn/issues/815 ("`check_numerics` doesn't work inside
# `repeat.py`")
# ds-hwang: `assert bool(jnp.isfinite(x).all())` in `check_numerics` "doesn't work with traced
# `x`": called from a layer repeated with `jax.checkpoint` inside `lax.scan`, it raises
# TracerBoolConversionError; "So `check_numerics` doesn't work inside `jit`, `pmap`, and `scan`."
# Adapted (`check_numerics` is the report's; the repeated layer is a small dense block).
import jax
import jax.numpy as jnp

_enable_numeric_checks = True


def check_numerics(x, msg_fmt="", **msg_kwargs):
    """Checks that all elements in `x` are finite."""
    if _enable_numeric_checks:
        assert bool(jnp.isfinite(x).all()), f"Check numerics {msg_fmt.format(**msg_kwargs)}: {x}"  # expect: JAX701
    return x


def layer_fn(inputs, weight):
    outputs = jnp.tanh(inputs @ weight)
    return check_numerics(outputs, msg_fmt="layer {name}", name="repeat")


def repeat(inputs, weights):
    def body(carry, weight):
        return jax.checkpoint(layer_fn)(carry, weight), None

    outputs, _ = jax.lax.scan(body, inputs, weights)
    return outputs


weights = jnp.stack([jnp.eye(3)] * 2)
print(layer_fn(jnp.ones((2, 3)), jnp.eye(3)).shape)
try:
    print(repeat(jnp.ones((2, 3)), weights).shape)
except jax.errors.TracerBoolConversionError as err:
    print(type(err).__name__)

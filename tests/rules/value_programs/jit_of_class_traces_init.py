# runtime: jax.errors.TracerBoolConversionError
# clean runtime: check: assert spline.slopes.tolist() == [1.0, 3.0]
import equinox as eqx
import jax
import jax.numpy as jnp


def checked(x):
    if not jnp.all(jnp.isfinite(x)):  # expect: JAX701  # clean: x = eqx.error_if(x, ~jnp.all(jnp.isfinite(x)), "finite x")
        raise ValueError("x must be finite")  # clean:
    return x


class Spline(eqx.Module):
    slopes: jax.Array

    def __init__(self, x, y, check=True):
        if check:  # a default jax.jit(Spline)(x, y) leaves alone: a Python bool
            x = checked(x)
        self.slopes = jnp.diff(y) / jnp.diff(x)


# jax.jit of the class runs its __init__ inside the trace, on traced x and y
spline = jax.jit(Spline)(jnp.array([0.0, 1.0, 2.0]), jnp.array([0.0, 1.0, 4.0]))

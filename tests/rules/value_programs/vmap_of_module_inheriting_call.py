# runtime: jax.errors.TracerBoolConversionError
# clean runtime: check: assert out.tolist() == [[1.0, 1.0], [-2.0, -2.0]]
import equinox as eqx
import jax
import jax.numpy as jnp


class Layer(eqx.Module):
    w: jax.Array

    def __call__(self, x):
        y = x * self.w
        if y.sum() > 0:  # expect: JAX701  # clean: return jnp.where(y.sum() > 0, y, 2 * y)
            return y  # clean:
        return 2 * y  # clean:


class Scaled(Layer):  # `__call__` inherited from `Layer`
    pass


@jax.jit
def apply(xs):
    layer = Scaled(jnp.ones(2))  # a local instance: vmap runs its class's `__call__`
    return jax.vmap(layer)(xs)


out = apply(jnp.array([[1.0, 1.0], [-1.0, -1.0]]))

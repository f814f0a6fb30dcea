import equinox as eqx
import jax
import jax.numpy as jnp


class Scaler(eqx.Module):
    scale: jax.Array

    def __call__(self, x):
        return x * self.scale


@eqx.filter_jit
def normalise(model, x):
    norm = jnp.linalg.norm(x)
    if norm > 1.0:  # expect: JAX701
        x = x / norm
    return model(x)


print(normalise(Scaler(jnp.array(2.0)), jnp.arange(3.0)))

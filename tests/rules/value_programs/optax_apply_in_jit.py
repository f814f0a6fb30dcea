# runtime: TypeError
import jax
import jax.numpy as jnp
import optax


@jax.jit
def step(params, updates):
    new_params = optax.apply_updates(params, updates)
    new_params["w"][0] = 0.0  # expect: JAX201  # clean: new_params["w"] = new_params["w"].at[0].set(0.0)
    return new_params


p = {"w": jnp.ones(3)}
out = step(p, {"w": jnp.ones(3)})

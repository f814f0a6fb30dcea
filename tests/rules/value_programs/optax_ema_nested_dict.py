# runtime: TypeError
import jax.numpy as jnp
import optax

online = {"dense": {"kernel": jnp.ones((2, 2)), "bias": jnp.zeros(2)}}
target = {"dense": {"kernel": jnp.zeros((2, 2)), "bias": jnp.zeros(2)}}
for _ in range(3):
    target = optax.incremental_update(online, target, step_size=0.1)
    target["dense"]["kernel"][0, 0] = 0.0  # expect: JAX201  # clean: target["dense"]["kernel"] = target["dense"]["kernel"].at[0, 0].set(0.0)

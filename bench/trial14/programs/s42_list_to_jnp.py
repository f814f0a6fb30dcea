import jax.numpy as jnp

losses = []
for epoch in range(3):
    losses.append(jnp.float32(1.0 / (epoch + 1)))
print("mean loss", jnp.mean(losses))  # expect: JAX501

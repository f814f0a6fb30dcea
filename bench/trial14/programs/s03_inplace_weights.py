# Zeroing out part of a weight matrix like I did with torch.no_grad(): w[0] = 0
import jax
import jax.numpy as jnp

key = jax.random.key(0)
w = jax.random.normal(key, (4, 4))
w[0, :] = 0.0  # expect: JAX201
grads = jnp.ones((4, 4))
grads[:, 1] *= 0.5  # expect: JAX202
print(w, grads)

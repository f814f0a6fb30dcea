# RNN written like PyTorch: append hidden states to a list inside the scan body.
import jax
import jax.numpy as jnp

W = jnp.eye(4) * 0.5
xs = jnp.ones((5, 4))
outputs = []


def step(h, x):
    h = jnp.tanh(h @ W + x)
    outputs.append(h)  # expect: JAX103
    return h, None


h, _ = jax.lax.scan(step, jnp.zeros(4), xs)
print(jnp.stack(outputs).sum())

# Causal self-attention, ported from my torch code (masked_fill_).
import jax
import jax.numpy as jnp


def attention(q, k, v, causal=True):
    scores = q @ k.T / jnp.sqrt(q.shape[-1])
    if causal:
        mask = jnp.triu(jnp.ones(scores.shape, dtype=bool), k=1)
        scores[mask] = -jnp.inf  # expect: JAX201
    return jax.nn.softmax(scores, axis=-1) @ v


x = jax.random.normal(jax.random.key(0), (5, 8))
print(jax.jit(attention)(x, x, x))

# Source: https://github.com/jax-ml/jax/issues/4615 ("Print-debugging jax?")
# "I've got some jax code that relies on grad, jvp, etc. I'd like to do some simple
# print-style debugging ... print("JUtotal: ", ret) ... but instead, I see:
# JUtotal:  Traced<ConcreteArray(-0.9240109029514282)>with<JVPTrace(level=6/0)> ..."
# Reconstructed: an energy function with the user's print, differentiated with grad.
import jax
import jax.numpy as jnp


def total_energy(positions):
    diffs = positions[:, None, :] - positions[None, :, :]
    r2 = jnp.sum(diffs**2, axis=-1) + jnp.eye(positions.shape[0])
    ret = -jnp.sum(jnp.triu(1.0 / jnp.sqrt(r2), k=1)) / 10.0
    print("JUtotal: ", ret)  # expect: JAX101
    return ret


pos = jnp.array([[0.0, 0.0], [1.0, 0.0], [0.0, 2.0]])
g = jax.grad(total_energy)(pos)
print("grad shape", g.shape)

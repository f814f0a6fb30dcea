# Learning-rate schedule kept in a module variable, torch scheduler style.
import jax
import jax.numpy as jnp

lr = 0.1


@jax.jit
def sgd(w, g):
    return w - lr * g  # expect: JAX102


w = jnp.ones(2)
for epoch in range(4):
    if epoch == 2:
        lr = lr * 0.1
    w = sgd(w, jnp.ones(2))
    print(epoch, w)

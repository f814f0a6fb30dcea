# %% [1]
import jax
import jax.numpy as jnp
# %% [2]
def logistic_final(r, x0=0.5, n=500):
    def body(i, x):
        return r * x * (1 - x)

    return jax.lax.fori_loop(0, n, body, x0)
# %% [3]
rs = jnp.linspace(2.5, 4.0, 301)
finals = jax.jit(jax.vmap(logistic_final))(rs)
# %% [4]
print(finals[:5], finals.shape)
# %% [5]
def logistic_final(r, x0=0.2, n=1000):
    def body(i, x):
        return r * x * (1 - x)

    return jax.lax.fori_loop(0, n, body, x0)

finals2 = jax.jit(jax.vmap(logistic_final))(rs)
print(jnp.abs(finals2 - finals)[:5])

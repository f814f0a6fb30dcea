# ok: the sampler takes its key as an argument and returns the next one (nothing global is
# written under jit); values inside vmap are printed with jax.debug.print.
import jax
import jax.numpy as jnp


@jax.jit
def sampler(key):
    key, subkey = jax.random.split(key)
    return key, jax.random.normal(subkey)


key = jax.random.PRNGKey(0)
draws = []
for _ in range(3):
    key, value = sampler(key)
    draws.append(float(value))
print(len(set(draws)) == 3)


def show(x):
    jax.debug.print("x = {x}", x=x)
    return x


print(jax.vmap(show)(jnp.arange(3)))

# ok: interval conditions combined with &, one-argument where with size= under jit, and
# chained comparisons on plain Python numbers.
import jax
import jax.numpy as jnp


@jax.jit
def f(x):
    return jnp.piecewise(x, [x < 0, (0 < x) & (x < 1)], [lambda v: -v, lambda v: v])


@jax.jit
def location_of_max(a):
    return jnp.where(a == jnp.max(a), size=1)


lo, hi = 0.0, 1.0
print(f(0.5), f(-2.0))
print(location_of_max(jnp.array([[0.0, 3.0], [1.0, 2.0]])))
print(0 < lo + 0.5 < hi)

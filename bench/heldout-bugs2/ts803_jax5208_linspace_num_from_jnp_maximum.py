# Source: https://github.com/jax-ml/jax/issues/5208 ("Unexpected JIT error for operations
# on static arguments")
# grid1 works; grid2 computes num_steps with jnp.maximum from local constants and
# passes it to jnp.linspace: ConcretizationTypeError, because jnp operations are staged
# under jit even on constants.
# Verbatim from the issue (the first example); try/except added.
import jax
import jax.numpy as jnp


@jax.jit
def grid1():
    print('re-compiling ...')
    t0, tf, num_steps = 0., 1., 10
    ts = jnp.linspace(t0, tf, num_steps + 1)
    return ts


@jax.jit
def grid2():
    print('re-compiling ...')
    t0, tf, dt = 0., 1., 1e-1
    num_steps = jnp.maximum(jnp.abs((tf - t0)/dt), 1)
    ts = jnp.linspace(t0, tf, num_steps + 1)  # expect: JAX803
    return ts


print(grid1())
try:
    print(grid2())
except Exception as e:
    print(type(e).__name__)

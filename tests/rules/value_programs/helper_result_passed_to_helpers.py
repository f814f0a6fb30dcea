# runtime: TypeError
# clean runtime: check: assert float(out.sum()) == 1.5
import jax
import jax.numpy as jnp


def scale(p):
    return p * 0.5


def zero_first(g):
    g[0] = 0.0  # expect: JAX201  # clean: g = g.at[0].set(0.0)
    return g


@jax.jit
def update(params):
    grads = scale(params)  # `params * 0.5`: a tracer
    print("grads:", grads)  # expect: JAX101  # clean:
    return params - zero_first(grads)


out = update(jnp.ones(2))

# Source: https://github.com/patrick-kidger/diffrax/issues/379 ("FLOPS count")
# joglekara wrapped a solve in a jitted function and passed `max_steps` through it as an
# argument; the solver's loop helper checks `if max_steps == 1:`, which then sees a tracer
# and raises TracerBoolConversionError. "this is probably because I'm passing in max steps
# as an argument and it's tripping up the tracer."
# Reconstructed (a fixed-step Euler solver with a checkpointed-loop helper stands in for
# diffrax/equinox; the check and the way max_steps reaches it are the report's).
import jax
import jax.numpy as jnp


def checkpointed_while_loop(cond_fun, body_fun, init_val, max_steps=None):
    if max_steps == 1:  # expect: JAX701
        return body_fun(init_val)
    return jax.lax.while_loop(cond_fun, body_fun, init_val)


def diffeqsolve(vector_field, t0, t1, dt0, y0, max_steps=4096):
    def cond_fun(carry):
        t, _, step = carry
        return (t < t1) & (step < max_steps)

    def body_fun(carry):
        t, y, step = carry
        return t + dt0, y + dt0 * vector_field(t, y), step + 1

    _, y1, steps = checkpointed_while_loop(
        cond_fun, body_fun, (t0, y0, 0), max_steps=max_steps
    )
    return y1, steps


@jax.jit
def solve(y0, max_steps):
    return diffeqsolve(lambda t, y: -y, 0.0, 1.0, 0.01, y0, max_steps=max_steps)


print(diffeqsolve(lambda t, y: -y, 0.0, 1.0, 0.01, jnp.ones(2), max_steps=1000)[0])
try:
    print(solve(jnp.ones(2), 1000))
except jax.errors.TracerBoolConversionError as err:
    print(type(err).__name__)

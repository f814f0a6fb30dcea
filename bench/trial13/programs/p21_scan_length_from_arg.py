# Generating a sequence: allocate the output buffer with a traced length.
import jax
import jax.numpy as jnp


@jax.jit
def generate(x0, n):
    out = jnp.zeros(n)  # expect: JAX803

    def body(i, carry):
        x, out = carry
        x = 0.9 * x + 1.0
        return x, out.at[i].set(x)

    _, out = jax.lax.fori_loop(0, n, body, (x0, out))
    return out


print(generate(1.0, 5))

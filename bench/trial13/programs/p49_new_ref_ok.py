# Mutable array refs (jax.new_ref): in-place writes are allowed on a Ref; correct.
import jax
import jax.numpy as jnp


@jax.jit
def histogram(xs):
    counts = jax.new_ref(jnp.zeros(4, jnp.int32))

    def body(i, _):
        b = xs[i]
        counts[b] += 1
        return None

    jax.lax.fori_loop(0, xs.shape[0], body, None)
    return counts[...]


acc = jax.new_ref(jnp.zeros(3))
acc[0] = 2.0
acc[...] = acc[...] * 2
print(histogram(jnp.array([0, 1, 1, 3, 3, 3])), acc[...])

# Source: https://openillumi.com/?p=43923 (also at
# https://openillumi.com/en/en-jax-vmap-non-hashable-error-fix; retelling of a Stack Overflow
# question: "Non-hashable static arguments are not supported in Jax when using vmap"). `map_row(z,
# alpha, T)` is jitted with `alpha` and `T` static, then mapped as
# `vmap(partial(map_row, alpha, T))(input)`: partial binds alpha and T to the first two
# positions, so the mapped row lands at position 2, a static one, and the BatchTracer cannot be
# hashed: ValueError "Non-hashable static arguments are not supported". The answer's fix:
# `vmap(lambda z: map_row(z, alpha, T))`.
# Reconstructed (the names and the failing call from the retelling; the row function is small).
from functools import partial

import jax
import jax.numpy as jnp


@partial(jax.jit, static_argnums=(1, 2))
def map_row(z, alpha, T):
    return jnp.tanh(alpha * z / T)


alpha, T = 0.5, 2.0
rows = jnp.arange(6.0).reshape(3, 2)
print(jax.vmap(lambda z: map_row(z, alpha, T))(rows))
try:
    print(jax.vmap(partial(map_row, alpha, T))(rows))  # expect: JAX1002
except ValueError as err:
    print(str(err).split(".")[0])

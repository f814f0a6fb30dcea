# Source: https://github.com/QuantEcon/lecture-jax/issues/95 ("edits to Markov asset pricing lecture")
# `power_iteration_sr = jax.jit(power_iteration_sr, static_argnums=(1,2))`: removing the
# static_argnums was proposed; HumphreyYang: readers who change the number of iterations
# or the seed "will run into TracerIntegerConversionError". The iteration count drives a
# Python `range`.
# Reconstructed (a power iteration for the spectral radius with the lecture's signature).
import jax
import jax.numpy as jnp


def power_iteration_sr(A, num_iterations=15, seed=1234):
    key = jax.random.PRNGKey(seed)
    b_k = jax.random.uniform(key, (A.shape[1],))
    sr = 0.0
    for _ in range(num_iterations):  # expect: JAX703
        b_k1 = A @ b_k
        b_k1_norm = jnp.linalg.norm(b_k1)
        sr = jnp.sum(b_k1 * b_k) / jnp.sum(b_k * b_k)
        b_k = b_k1 / b_k1_norm
    return sr


A = jnp.array([[0.9, 0.1], [0.4, 0.6]])
print(jax.jit(power_iteration_sr, static_argnums=(1, 2))(A, 20))
try:
    print(jax.jit(power_iteration_sr)(A, 20))
except jax.errors.TracerIntegerConversionError as err:
    print(type(err).__name__)

# Source: https://github.com/quantumlib/OpenFermion/pull/1396 ("Fix type casting error in
# thc_jax.py", 2026)
# compute_objective_batched in openfermion's THC factorisation is decorated with @jax.jit and
# cast its result with float() to satisfy the `-> float` annotation; under tracing the result
# is a Tracer and float() raises ConcretizationTypeError. The fix replaced float() by
# typing.cast.
# Adapted: the function body is the repository's (einsums on small random tensors, as in
# thc_jax.py); only the float() cast of the return value, which the PR describes and removes,
# is restored; shapes are tiny.
from typing import Tuple

import jax
import jax.numpy as jnp


@jax.jit
def compute_objective_batched(
    chis: Tuple[jax.Array, jax.Array, jax.Array, jax.Array],
    zetas: jax.Array,
    chols: Tuple[jax.Array, jax.Array],
    penalty_param: float = 0.0,
) -> float:
    eri_thc = jnp.einsum(
        "Jpm,Jqm,Jmn,Jrn,Jsn->Jpqrs",
        chis[0].conj(),
        chis[1],
        zetas,
        chis[2].conj(),
        chis[3],
        optimize=True,
    )
    eri_ref = jnp.einsum("Jnpq,Jnrs->Jpqrs", chols[0], chols[1], optimize=True)
    deri = eri_thc - eri_ref
    lambda_z = jnp.sum(jnp.einsum("JPQ->J", 0.5 * jnp.abs(zetas)) ** 2.0)
    res = 0.5 * jnp.sum((jnp.abs(deri)) ** 2) + penalty_param * lambda_z
    return float(res.conj())  # expect: JAX703


chi_key, zeta_key, chol_key = jax.random.split(jax.random.PRNGKey(0), 3)
chi = jax.random.normal(chi_key, (2, 3, 4))
zeta = jax.random.normal(zeta_key, (2, 4, 4))
chol = jax.random.normal(chol_key, (2, 5, 3, 3))
try:
    print(compute_objective_batched((chi, chi, chi, chi), zeta, (chol, chol)))
except jax.errors.ConcretizationTypeError as err:
    print(type(err).__name__)

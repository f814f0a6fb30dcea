# Source: https://github.com/proteneer/timemachine/pull/800 ("Make result of
# generic.Nonbonded.to_reference jax-transformable")
# `jit(nonbonded_ref)(conf, params, box, lam)` failed with ConcretizationTypeError: "JAX fails
# to trace through the assertions in timemachine.potentials.nonbonded.nonbonded_v3"
# (runtime_validate=True asserts on array values); the fix passes runtime_validate=False.
# Reconstructed: the PR quotes only the call; nonbonded_v3 is reduced to a Lennard-Jones-like
# sum with the validation assert that the flag guards (names from timemachine).
import jax
import jax.numpy as jnp
from jax import jit


def nonbonded_v3(conf, params, box, lamb, beta=2.0, cutoff=1.2, runtime_validate=True):
    if runtime_validate:
        assert (box.diagonal() > 2 * cutoff).all()  # expect: JAX701
    dij = jnp.linalg.norm(conf[:, None, :] - conf[None, :, :] + 1e-6, axis=-1)
    q = params[:, 0]
    return jnp.sum(q[:, None] * q[None, :] * jnp.exp(-beta * dij) * (dij < cutoff)) * (1 - lamb)


def nonbonded_ref(conf, params, box, lam):
    return nonbonded_v3(conf, params, box, lam)


conf = jax.random.uniform(jax.random.PRNGKey(0), (5, 3))
params = jnp.ones((5, 3))
box = jnp.eye(3) * 3.0
print(nonbonded_ref(conf, params, box, 0.1))  # OK
nonbonded_ref_jit = jit(nonbonded_ref)
try:
    nonbonded_ref_jit(conf, params, box, 0.1)  # Fails with `ConcretizationTypeError`
except jax.errors.ConcretizationTypeError as err:
    print(type(err).__name__)

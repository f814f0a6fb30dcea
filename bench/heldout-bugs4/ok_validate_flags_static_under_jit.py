# ok: runtime validation runs on concrete values before jit; inside jit the flag is off and
# finiteness is checked with jnp (returned as data, not used in a Python branch).
import jax
import jax.numpy as jnp


def nonbonded_v3(conf, params, box, lamb, beta=2.0, cutoff=1.2, runtime_validate=True):
    if runtime_validate:
        assert (box.diagonal() > 2 * cutoff).all()
    dij = jnp.linalg.norm(conf[:, None, :] - conf[None, :, :] + 1e-6, axis=-1)
    q = params[:, 0]
    return jnp.sum(q[:, None] * q[None, :] * jnp.exp(-beta * dij) * (dij < cutoff)) * (1 - lamb)


@jax.jit
def nonbonded_jit(conf, params, box, lam):
    energy = nonbonded_v3(conf, params, box, lam, runtime_validate=False)
    return energy, jnp.all(jnp.isfinite(conf))


conf = jax.random.uniform(jax.random.PRNGKey(0), (5, 3))
params, box = jnp.ones((5, 3)), jnp.eye(3) * 3.0
print(nonbonded_v3(conf, params, box, 0.1))
print(nonbonded_jit(conf, params, box, 0.1))

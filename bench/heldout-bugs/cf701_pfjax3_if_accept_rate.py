# Source: https://github.com/mlysy/pfjax/issues/3 ("Not to use Boolean in mwg_adapt")
# "In mwg_adapt, we get an error that traced values cannot be used in Boolean functions";
# the fix replaced the branch on the acceptance rate with jnp.sign(targ_acc - accept_rate).
# Reconstructed from the issue (the linked lines 203-207 compute the adaptation with an `if`
# on the traced acceptance rate inside a jitted MCMC step).
import jax
import jax.numpy as jnp


def mwg_adapt(rw_sd, accept_rate, n_iter, targ_acc=0.44):
    delta = jnp.minimum(0.01, 1.0 / jnp.sqrt(n_iter))
    if accept_rate < targ_acc:  # expect: JAX701
        return jnp.exp(jnp.log(rw_sd) - delta)
    else:
        return jnp.exp(jnp.log(rw_sd) + delta)


@jax.jit
def mwg_step(rw_sd, n_accept, n_iter):
    accept_rate = n_accept / n_iter
    return mwg_adapt(rw_sd, accept_rate, n_iter)


print("eager:", mwg_adapt(jnp.ones(2), 0.3, 10.0))
try:
    print(mwg_step(jnp.ones(2), 3.0, 10.0))
except Exception as err:
    print(type(err).__name__, str(err).splitlines()[0])

# runtime: jax.errors.TracerBoolConversionError
# clean runtime: check: assert abs(float(train_step(jnp.eye(2) / 2, jnp.eye(2) / 2))) < 1e-5
# jaxquantum qarray.powm: the eigenvalue check runs only when `clip_eigvals` is False;
# `fidelity` passes its own `force_positivity` on, and the one traced call of `fidelity`
# gives it True: the check never runs traced.
import jax
import jax.numpy as jnp


def powm(x, n, clip_eigvals=False):
    evalues, evectors = jnp.linalg.eigh(x)
    if clip_eigvals:
        evalues = jnp.maximum(evalues, 0)
    else:
        if not (evalues >= 0).all():  # expect: JAX701
            raise ValueError("the matrix has a negative eigenvalue")
    return (evectors * jnp.power(evalues, n)) @ evectors.T


def fidelity(rho, sigma, force_positivity=False):
    sqrt_rho = powm(rho, 0.5, clip_eigvals=force_positivity)
    inner = powm(sqrt_rho @ sigma @ sqrt_rho, 0.5, clip_eigvals=force_positivity)
    return jnp.trace(inner) ** 2


@jax.jit
def train_step(rho, sigma):
    return 1.0 - fidelity(rho, sigma)  # clean: return 1.0 - fidelity(rho, sigma, force_positivity=True)


print(fidelity(jnp.eye(2) / 2, jnp.eye(2) / 2))  # eager: the check runs on values
train_step(jnp.eye(2) / 2, jnp.eye(2) / 2)

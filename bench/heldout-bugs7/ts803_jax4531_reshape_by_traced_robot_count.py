# Source: https://github.com/jax-ml/jax/issues/4531 ("Regarding Jax static argnum and jit")
# jatan12's multi-robot trajectory solver takes the number of robots `n_rob` as an
# argument and reshapes the stacked solution with it (`cx.reshape(n_rob, nvar)`); under
# jit the count is a tracer and the shape is not concrete.
# Adapted (the solve is trimmed to a linear system; the reshape by n_rob is the report's).
import jax
import jax.numpy as jnp


def compute_x(n_rob, P, cost_mat_inv_x, lincost_x):
    nvar = jnp.shape(P)[1]
    primal_sol_x = jnp.dot(cost_mat_inv_x, lincost_x)
    cx = primal_sol_x.reshape(n_rob, nvar)  # expect: JAX803
    return jnp.dot(P, cx.T).T


P = jnp.ones((5, 3))
inv = jnp.eye(6)
lin = jnp.arange(6.0)
print(compute_x(2, P, inv, lin).shape)
try:
    print(jax.jit(compute_x)(2, P, inv, lin).shape)
except TypeError as err:  # Shapes must be 1D sequences of concrete values
    print(type(err).__name__)

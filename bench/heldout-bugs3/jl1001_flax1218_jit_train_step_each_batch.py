# Source: https://github.com/google/flax/issues/1218 ("Incredibly slow transformer code")
# The user's transformer trained orders of magnitude slower than expected; jheek: "my first guess
# is that your problem is the placement of jax.jit. Note how you end up calling jit each
# iteration" (train.py line 53), and: jit the whole train step once, with a print that "should
# print only once in the entire train script".
# Reconstructed: the repository is not stored; the loop re-creates jax.jit(...) of the loss
# gradient for every batch as described, with a small linen model. The print shows each retrace.
import jax
import jax.numpy as jnp
import flax.linen as nn
import optax


class Model(nn.Module):
    @nn.compact
    def __call__(self, x):
        return nn.Dense(1)(nn.relu(nn.Dense(16)(x)))


model = Model()
params = model.init(jax.random.PRNGKey(0), jnp.ones((1, 4)))
tx = optax.adam(1e-3)
opt_state = tx.init(params)


def train(params, opt_state, batches):
    for inputs, targets in batches:
        def loss_fn(params):
            print("tracing loss_fn ...")
            return jnp.mean((model.apply(params, inputs) - targets) ** 2)

        grads = jax.jit(jax.grad(loss_fn))(params)  # expect: JAX1001
        updates, opt_state = tx.update(grads, opt_state)
        params = optax.apply_updates(params, updates)
    return params, opt_state


batches = [(jnp.ones((8, 4)) * i, jnp.ones((8, 1))) for i in range(3)]
params, opt_state = train(params, opt_state, batches)

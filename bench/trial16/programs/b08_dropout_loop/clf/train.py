import jax
import jax.numpy as jnp
import optax

from clf.model import Classifier


def train(x, y, n_steps=100, seed=0):
    model = Classifier()
    rng = jax.random.PRNGKey(seed)
    params_rng, dropout_rng = jax.random.split(rng)
    params = model.init(params_rng, x[:1], train=False)["params"]
    tx = optax.sgd(0.1)
    opt_state = tx.init(params)

    @jax.jit
    def step(params, opt_state, x, y, dropout_rng):
        def loss_fn(params):
            logits = model.apply({"params": params}, x, train=True, rngs={"dropout": dropout_rng})
            return optax.softmax_cross_entropy_with_integer_labels(logits, y).mean()

        loss, grads = jax.value_and_grad(loss_fn)(params)
        updates, opt_state = tx.update(grads, opt_state)
        return optax.apply_updates(params, updates), opt_state, loss

    for i in range(n_steps):
        params, opt_state, loss = step(params, opt_state, x, y, dropout_rng)  # expect: JAX602
    return params, loss

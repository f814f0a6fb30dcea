import functools

import equinox as eqx
import jax
import jax.numpy as jnp
import optax

from seqmodels import Head, StackedRNN, load_windows

windows, lengths = load_windows(32, 16, 3)
xs, lengths = jnp.asarray(windows), jnp.asarray(lengths)
key = jax.random.PRNGKey(0)
k_rnn, k_head, k_drop = jax.random.split(key, 3)

rnn = StackedRNN(hidden=16)
rnn_params = rnn.init(k_rnn, xs)["params"]
head = Head(16, 3, depth=2, key=k_head)
params = (rnn_params, head)
tx = optax.adamw(1e-3)
opt_state = tx.init(eqx.filter(params, eqx.is_array))


def loss_fn(params, xs, lengths, rng, deterministic):
    rnn_params, head = params
    hs = rnn.apply({"params": rnn_params}, xs, deterministic, rngs={"dropout": rng})
    last = hs[jnp.arange(hs.shape[0]), lengths - 1]
    preds = jax.vmap(head)(last)
    valid = jnp.arange(xs.shape[1])[None, :] < lengths[:, None]
    target = jnp.where(valid[..., None], xs, 0.0).sum(1) / lengths[:, None]
    return jnp.mean((preds - target) ** 2)


@functools.partial(eqx.filter_jit, donate="none")
def train_step(params, opt_state, xs, lengths, rng):
    loss, grads = eqx.filter_value_and_grad(loss_fn)(params, xs, lengths, rng, False)
    updates, opt_state = tx.update(grads, opt_state, eqx.filter(params, eqx.is_array))
    return eqx.apply_updates(params, updates), opt_state, loss


def evaluate(params, n_draws=4):
    def body(i, acc):
        return acc + loss_fn(params, xs, lengths, jax.random.fold_in(k_drop, 10_000 + i), True)

    return jax.lax.fori_loop(0, n_draws, body, 0.0) / n_draws


for step in range(5):
    params, opt_state, loss = train_step(params, opt_state, xs, lengths, jax.random.fold_in(k_drop, step))
    print(step, float(loss))
print("eval", float(evaluate(params)))

# LSTM-ish cell carrying a dict pytree through scan; correct.
import jax
import jax.numpy as jnp

H = 6
params = {
    "W": jax.random.normal(jax.random.key(0), (H + 2, 4 * H)) * 0.1,
    "b": jnp.zeros(4 * H),
}


def lstm_step(carry, x):
    h, c = carry["h"], carry["c"]
    z = jnp.concatenate([h, x]) @ params["W"] + params["b"]
    i, f, o, g = jnp.split(z, 4)
    c = jax.nn.sigmoid(f) * c + jax.nn.sigmoid(i) * jnp.tanh(g)
    h = jax.nn.sigmoid(o) * jnp.tanh(c)
    return {"h": h, "c": c}, h


init = {"h": jnp.zeros(H), "c": jnp.zeros(H)}
xs = jnp.ones((10, 2))
final, hs = jax.jit(lambda xs: jax.lax.scan(lstm_step, init, xs))(xs)
print(final["h"].shape, hs.shape)

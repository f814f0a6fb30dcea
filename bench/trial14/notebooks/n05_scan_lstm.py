# %% [1]
import jax
import jax.numpy as jnp
from jax import lax
# %% [2]
def lstm_step(carry, x, params):
    h, c = carry
    z = params["Wx"] @ x + params["Wh"] @ h + params["b"]
    i, f, o, g = jnp.split(z, 4)
    c = jax.nn.sigmoid(f) * c + jax.nn.sigmoid(i) * jnp.tanh(g)
    h = jax.nn.sigmoid(o) * jnp.tanh(c)
    return (h, c), h
# %% [3]
@jax.jit
def run_lstm(params, xs):
    hidden = params["Wh"].shape[1]
    init = (jnp.zeros(hidden), jnp.zeros(hidden))
    (h, c), hs = lax.scan(lambda carry, x: lstm_step(carry, x, params), init, xs)
    return hs
# %% [4]
key = jax.random.key(0)
k1, k2 = jax.random.split(key)
params = {"Wx": jax.random.normal(k1, (16, 3)) * 0.1, "Wh": jax.random.normal(k2, (16, 4)) * 0.1, "b": jnp.zeros(16)}
run_lstm(params, jnp.ones((10, 3))).shape

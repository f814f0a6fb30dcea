# Collecting losses in a list from inside jit.
import jax
import jax.numpy as jnp
import optax

losses = []
w = jnp.array([0.5, -0.5])
X = jnp.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
y = jnp.array([1.0, 2.0, 3.0])
opt = optax.adam(0.01)
st = opt.init(w)


@jax.jit
def update(w, st):
    loss, g = jax.value_and_grad(lambda w: jnp.mean((X @ w - y) ** 2))(w)
    losses.append(loss)  # expect: JAX103
    u, st = opt.update(g, st)
    return optax.apply_updates(w, u), st


for _ in range(3):
    w, st = update(w, st)
print(len(losses), jnp.stack(losses))

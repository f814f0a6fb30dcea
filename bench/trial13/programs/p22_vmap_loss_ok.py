# Per-example loss with vmap, then mean; correct.
import jax
import jax.numpy as jnp


def predict(w, x):
    return jnp.dot(w, x)


def per_example_loss(w, x, y):
    return (predict(w, x) - y) ** 2


batched = jax.vmap(per_example_loss, in_axes=(None, 0, 0))
w = jnp.array([1.0, 2.0])
xs = jnp.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
ys = jnp.array([1.0, 2.0, 4.0])
loss = jnp.mean(batched(w, xs, ys))
grads = jax.grad(lambda w: jnp.mean(batched(w, xs, ys)))(w)
print(loss, grads)

# ok: jitted functions return what they compute (the inference output, the loss through
# value_and_grad's aux), and the host appends the concrete values to its lists.
import flax.linen as nn
import jax
import jax.numpy as jnp


class Model(nn.Module):
    @nn.compact
    def __call__(self, x):
        return nn.Dense(4)(jnp.mean(nn.relu(nn.Conv(8, (3, 3))(x)), axis=(1, 2)))


model = Model()
params = model.init(jax.random.key(0), jnp.ones((1, 16, 16, 3)))


@jax.jit
def infer(x):
    return model.apply(params, x)


output = infer(jnp.ones((1, 16, 16, 3)))
print(output.shape)


class FourierModel:
    def __init__(self):
        self.loss_list = []

    def loss(self, coefficients, xs, ys):
        ks = jnp.arange(coefficients.shape[0])
        preds = jnp.cos(xs[:, None] * ks[None, :]) @ coefficients
        return jnp.sum(jnp.square(preds - ys))

    def fit(self, coefficients, xs, ys, steps=3):
        step = jax.jit(jax.value_and_grad(self.loss))
        for _ in range(steps):
            loss, grads = step(coefficients, xs, ys)
            coefficients = coefficients - 0.01 * grads
            self.loss_list.append(float(loss))
        return coefficients


m = FourierModel()
xs = jnp.linspace(0, 3, 20)
m.fit(jnp.zeros(4), xs, jnp.cos(2 * xs))
print(m.loss_list)

# Source: https://github.com/jax-ml/jax/issues/2332 ("Recover value from Traced<ConcreteArray(-)>with<JVPTrace(level=1/0)>")
# LenCewa's Fourier-coefficient model records its loss in `self.loss_list += [l]` inside
# the loss function that `grad` differentiates, and finds tracers in the list instead of
# numbers. mattjj: side effects are not allowed in transformed functions; return the loss
# (value_and_grad).
# Adapted (the reporter's loss and update methods; the update is jitted as in a training
# loop, so the stored values are tracers that cannot be used afterwards).
import jax
import jax.numpy as jnp


class FourierModel:
    def __init__(self):
        self.loss_list = []

    def batched_predict(self, coefficients, xs):
        ks = jnp.arange(coefficients.shape[0])
        return jnp.cos(xs[:, None] * ks[None, :]) @ coefficients

    def loss(self, coefficients, train_values, train_labels):
        preds = self.batched_predict(coefficients, train_values)
        l = jnp.sum(jnp.square(preds - train_labels))
        self.loss_list += [l]  # expect: JAX103
        return l

    def update(self, coefficients, x, y):
        grads = jax.grad(self.loss)(coefficients, x, y)
        return coefficients - 0.01 * grads


model = FourierModel()
xs = jnp.linspace(0, 3, 20)
ys = jnp.cos(2 * xs)
coeffs = jax.jit(model.update)(jnp.zeros(4), xs, ys)
print(type(model.loss_list[0]).__name__)
try:
    print(model.loss_list[0] + 1.0)
except jax.errors.UnexpectedTracerError as err:
    print(type(err).__name__)

# runtime: jax.errors.TracerBoolConversionError
# clean runtime: check: assert abs(float(step) + 0.05) < 1e-6 and abs(float(default_step) + 0.09) < 1e-6
# objax #92: `momentum or self.momentum` in a method jitted through a module name bound to the
# bound method; a call of that name passes a momentum, so the parameter is traced.
import jax
import jax.numpy as jnp


class Momentum:
    def __init__(self, momentum=0.9):
        self.momentum = momentum

    def update(self, lr, grad, momentum=None):
        momentum = momentum or self.momentum  # expect: JAX702  # clean: momentum = self.momentum if momentum is None else momentum
        return -lr * momentum * grad


opt = Momentum()
update = jax.jit(opt.update)
default_step = update(0.1, jnp.float32(1.0))
step = update(0.1, jnp.float32(1.0), 0.5)

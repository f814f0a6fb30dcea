# Source: https://github.com/google/objax/pull/92 ("Override default momentum")
# The PR let callers override the optimizer's momentum per call with
# `momentum = momentum or self.momentum` inside the jitted `__call__`; the tests failed with
# "The problem arose with the 'bool' function" because the momentum passed in is traced.
# Reconstructed without objax (not installed): the optimizer keeps its state in a dict and its
# update is jitted the way objax.Jit traces `__call__` (all arguments traced).
import jax
import jax.numpy as jn


class Momentum:
    def __init__(self, params, momentum=0.9):
        self.momentum = momentum
        self.m = {k: jn.zeros_like(v) for k, v in params.items()}

    def update(self, lr, grads, m, momentum=None):
        momentum = momentum or self.momentum  # expect: JAX702
        new_m = {k: momentum * m[k] + grads[k] for k in grads}
        return {k: -lr * new_m[k] for k in grads}, new_m


params = {"w": jn.ones(3)}
opt = Momentum(params)
update = jax.jit(opt.update)
try:
    print(update(0.1, {"w": jn.ones(3)}, opt.m, 0.5))
except jax.errors.TracerBoolConversionError as err:
    print(type(err).__name__)

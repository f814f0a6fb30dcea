# runtime: jax.errors.TracerBoolConversionError
# clean runtime: check: assert float(out) == 1.5
import functools

import jax
import jax.numpy as jnp


def method_jit(meth):
    owner = meth.__self__

    def fun(*args, **kwargs):
        return meth.__func__(owner, *args, **kwargs)

    jitted = jax.jit(fun)

    @functools.wraps(meth)
    def wrapper(*args, **kwargs):
        return jitted(*args, **kwargs)

    return wrapper


class Sampler:
    def __init__(self, scale):
        self.scale = scale

    def sample(self, x, *, temperature=0.0):
        if temperature > 0.0:  # expect: JAX701  # clean: return jnp.where(temperature > 0.0, x / jnp.maximum(temperature, 1e-6), x * self.scale)
            return x / temperature  # clean:
        return x * self.scale  # clean:


sampler = Sampler(3.0)
sample = method_jit(sampler.sample)
out = sample(jnp.float32(0.75), temperature=0.5)

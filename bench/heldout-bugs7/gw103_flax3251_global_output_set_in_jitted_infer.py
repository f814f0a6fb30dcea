# Source: https://github.com/google/flax/issues/3251 ("inference function block with global variables consumes less gpu ram and faster than purely functional code without global usage")
# TheSeriousProgrammer benchmarked a linen model with a jitted `infer` that stores the
# result in a global (`global output; output = model.apply(params, x)`) instead of
# returning it, and found it 30x "faster". The jitted function returns nothing, so nothing
# is computed; the global holds a tracer from the one trace.
# Adapted (a small linen CNN replaces the 512x512 model; the two infer functions are the
# report's).
import flax.linen as nn
import jax
import jax.numpy as jnp


class Model(nn.Module):
    @nn.compact
    def __call__(self, x):
        x = nn.Conv(8, (3, 3))(x)
        return nn.Dense(4)(jnp.mean(nn.relu(x), axis=(1, 2)))


model = Model()
input_shape = (1, 16, 16, 3)
params = model.init(jax.random.key(0), jnp.ones(input_shape))
output = None


@jax.jit
def infer(x):
    global output
    output = model.apply(params, x)  # expect: JAX103


infer(jnp.ones(input_shape))
print(type(output).__name__)
try:
    print(output + 1)
except jax.errors.UnexpectedTracerError as err:
    print(type(err).__name__)

# Source: https://github.com/jax-ml/jax/pull/16430 ("errors: create
# TracerBoolConversionError for more targeted debugging tips")
# Reviewer dbelenko: "I'd also add the typical Python idiom of: z = nullable_value or
# default_value ... That's how I encountered this issue. ... it might not be obvious to
# a distracted programmer that `or` is a boolean operation here".
# Reconstructed: the review gives the idiom only; it is placed in a jitted function with
# an optional temperature, as the reviewer describes (a value that may be None).
import jax
import jax.numpy as jnp


@jax.jit
def scale_logits(logits, temperature=None):
    t = temperature or 1.0  # expect: JAX702
    return logits / t


print(scale_logits(jnp.ones(3)))
try:
    print(scale_logits(jnp.ones(3), jnp.float32(0.5)))
except Exception as e:
    print(type(e).__name__)

# A config dict changed after the first call; the jitted code keeps the old value.
import jax
import jax.numpy as jnp

config = {"temperature": 1.0}


@jax.jit
def sample_logits(logits):
    return jax.nn.softmax(logits / config["temperature"])  # expect: JAX102


logits = jnp.array([1.0, 2.0, 3.0])
print(sample_logits(logits))
config["temperature"] = 0.1
print(sample_logits(logits))

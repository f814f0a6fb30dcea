import jax

_TEMPERATURE = 1.0


def set_temperature(t):
    global _TEMPERATURE
    _TEMPERATURE = t


def sample_token(key, logits):
    return jax.random.categorical(key, logits / _TEMPERATURE)  # expect: JAX102

# Source: https://github.com/google-deepmind/distrax/issues/291 ("`TracerArrayConversionError`
# when indexing into a distribution", adzcai, 2025-07-02). `d[mask].entropy()` with
# `mask = jnp.arange(logits.shape[0])` works eagerly and fails under jit: distrax's
# `to_batch_shape_index` computes `[x[index] for x in np.indices(batch_shape)]`, indexing NumPy
# arrays with the traced index: TracerArrayConversionError.
# Reconstructed (the report's `foo`, and distrax's failing line with the call chain
# __getitem__ -> to_batch_shape_index; the distribution is a small stand-in, distrax is not
# installed).
import jax
import jax.numpy as jnp
import numpy as np
from jax import jit


def to_batch_shape_index(batch_shape, index):
    new_index = [x[index] for x in np.indices(batch_shape)]  # expect: JAX703
    return jnp.stack(new_index, axis=-1)


class Categorical:
    def __init__(self, logits):
        self.logits = logits

    @property
    def batch_shape(self):
        return self.logits.shape[:-1]

    def __getitem__(self, index):
        index = to_batch_shape_index(self.batch_shape, index)
        return Categorical(self.logits[tuple(jnp.moveaxis(index, -1, 0))])

    def entropy(self):
        log_p = jax.nn.log_softmax(self.logits)
        return -jnp.sum(jnp.exp(log_p) * log_p, axis=-1)


def foo(logits):
    d = Categorical(logits=logits)
    mask = jnp.arange(logits.shape[0])
    return d[mask].entropy()


logits = jnp.zeros((3, 3, 3))
print(foo(logits).shape)
try:
    jit(foo)(logits)
except jax.errors.TracerArrayConversionError as err:
    print(type(err).__name__)

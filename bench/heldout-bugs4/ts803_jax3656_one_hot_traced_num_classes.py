# Source: https://github.com/jax-ml/jax/pull/3656 ("improve concreteness error message for
# nn.one_hot", fixing #3654)
# `jit(one_hot)(3, 5)` failed with a confusing "__array__() was called on the JAX Tracer"
# error: num_classes sets the output shape and was traced. After the PR:
# "ConcretizationTypeError ... (in jax.nn.one_hot argument `num_classes`). Use transformation
# parameters such as `static_argnums` for `jit`".
# Adapted: the report's one-liner as a small labelling function jitted like the user's.
from functools import partial

import jax
from jax import jit
from jax.nn import one_hot


@jit
def encode_labels(labels, num_classes):
    return one_hot(labels, num_classes)  # expect: JAX803


try:
    encode_labels(3, 5)
except jax.errors.ConcretizationTypeError as err:
    print(type(err).__name__)
print(partial(jit, static_argnums=1)(encode_labels.__wrapped__)(3, 5))

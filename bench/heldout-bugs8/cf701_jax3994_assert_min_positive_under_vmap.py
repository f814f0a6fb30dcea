# Source: https://github.com/jax-ml/jax/issues/3994 ("Suggestion: expose `_jit_is_disabled`
# utility")
# KristianHolsheimer guards a data-dependent `assert arr.min() > 0` so it only runs when jit is
# disabled; froystig answers that `jax.vmap` still traces the function, so with
# `jax.disable_jit()` the assert raises ConcretizationTypeError "(in `bool`)".
# Adapted (froystig's vmap-of-jit example; the private `_jit_is_disabled` guard no longer exists
# and is dropped).
import jax
import jax.numpy as jnp


@jax.vmap
@jax.jit
def func(arr):
    assert arr.min() > 0, "data-dependent check failed"  # expect: JAX701
    return jnp.log(arr)


try:
    with jax.disable_jit():
        print(func(jnp.ones((3, 4))))
except jax.errors.ConcretizationTypeError as err:
    print(type(err).__name__)

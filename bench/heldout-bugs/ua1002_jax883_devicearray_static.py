# Source: https://github.com/jax-ml/jax/issues/883 ("DeviceArray as static argument: incompatible
# with jit cache?")
# A jax array passed at a static_argnums position. In 2019 the second call failed in the
# cache lookup; today the first call raises "ValueError: Non-hashable static arguments are
# not supported".
# Verbatim, except `from jax import partial` (removed from jax) -> functools.partial.
from functools import partial

import jax.numpy as np
from jax import jit


@partial(jit, static_argnums=(1,))
def f(x, v):
    return x


def main():
    x = np.ones((10, 10))
    v = np.array([1, 2, 3])
    try:
        firstCall = f(x, v)  # expect: JAX1002
        print(firstCall.shape)
        secondCall = f(x, v)
        print(secondCall.shape)
    except ValueError as err:
        print("ValueError:", str(err).splitlines()[0])


if __name__ == "__main__":
    main()

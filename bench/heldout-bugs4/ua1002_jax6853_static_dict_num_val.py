# Source: https://github.com/jax-ml/jax/issues/6853 ("Need a way to specify constants")
# remifan jitted a function slicing by `d['num']`; plain jit gave "Array slice indices must
# have static start/stop/step", and marking the dict static with static_argnums=1 gave
# "ValueError: Non-hashable static arguments are not supported". jakevdp: static_argnums has
# no finer granularity; pass the pieces separately.
# Verbatim (imports and try/except added; the user's key typo 'value' is kept).
from functools import partial

import jax.numpy as jnp
import numpy as np
from jax import jit


@partial(jit, static_argnums=1)
def foo(x, d: dict):
    return x[: d["num"]] + d["val"]


try:
    foo(jnp.arange(10), {"num": 5, "value": np.arange(5)})  # expect: JAX1002
except ValueError as err:
    print(type(err).__name__, str(err)[:60])

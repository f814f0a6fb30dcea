# Source: https://github.com/jax-ml/jax/issues/1162 ("Bad error message on `vmap` arity mismatch")
# LenCewa reproduced the README's matrix product built from vmap over a vector dot product,
# but had `import numpy as np`: np.vdot receives vmap tracers. Then it crashed (SIGSEGV or an
# assertion); hawkinsp: import jax.numpy as np. Today: TracerArrayConversionError.
# Verbatim (second example; try/except and the jax.numpy version added).
import jax
import jax.numpy as jnp
import numpy as np
from jax import vmap

b = np.array([1, 2, 3])
m1 = np.array([[1, 1, 1], [2, 2, 2]])

vv = lambda x, y: np.vdot(x, y)  # expect: JAX703
mv = vmap(vv, (0, None), 0)

try:
    print(mv(m1, b))
except jax.errors.TracerArrayConversionError as err:
    print(type(err).__name__)

print(vmap(lambda x, y: jnp.vdot(x, y), (0, None), 0)(m1, b))

# ok: vmapped kernel uses jnp.where; the Python branch reads a static shape; the chained
# comparison is written with & in a lax.switch branch under grad.
import jax
import jax.numpy as jnp
from jax import grad, vmap
from jax.lax import switch


def kernel_scalar(x, lam=0.18, beta=1.0):
    return jnp.where(jnp.abs(x) > lam, 0.0, jnp.exp(-beta * x**2))


@jax.jit
def kernel(xs):
    if xs.shape[0] > 1:
        return vmap(kernel_scalar)(xs)
    return kernel_scalar(xs[0])[None]


func_0 = lambda x: jnp.where((0.0 < x) & (x < 1.0), x, 0.0)
func_1 = lambda x: jnp.where(jnp.logical_and(0.0 < x, x < 1.0), x, 1.0)
func = lambda index, x: switch(index, [func_0, func_1], x)

print(kernel(jnp.linspace(-1.0, 1.0, 5)))
print(grad(func, argnums=1)(1, 0.5))

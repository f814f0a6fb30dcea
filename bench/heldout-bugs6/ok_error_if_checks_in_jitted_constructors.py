# ok: constructors validated with eqx.error_if (runs under jit), and a spline whose input
# checks run on the host before the jitted evaluation.
import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np


class Scale(eqx.Module):
    matrix: jax.Array

    @classmethod
    def from_factors(cls, factors):
        factors = jnp.asarray(factors)
        factors = eqx.error_if(factors, jnp.any(factors == 0), "singular scale")
        return cls(jnp.diag(factors))


class LinearSpline(eqx.Module):
    x: jax.Array
    slopes: jax.Array
    y0: jax.Array

    def __call__(self, xq):
        i = jnp.clip(jnp.searchsorted(self.x, xq) - 1, 0, self.slopes.shape[0] - 1)
        return self.y0[i] + self.slopes[i] * (xq - self.x[i])


def make_spline(x, y):
    x = np.asarray(x, dtype=float)
    if not np.all(np.isfinite(x)):
        raise ValueError("x must be finite")
    return LinearSpline(jnp.asarray(x), jnp.asarray(np.diff(y) / np.diff(x)), jnp.asarray(y, dtype=float))


print(eqx.filter_jit(Scale.from_factors)(jnp.asarray([2.0, 1.0, 4.0])).matrix.shape)
spline = make_spline([0, 1, 2], [0, 1, 4])
print(eqx.filter_jit(lambda s, q: s(q))(spline, jnp.array([0.5, 1.5])))

# Source: https://github.com/pnkraemer/probdiffeq/pull/813 ("Fix a tracer conversion issue")
# pnkraemer: "If output_scale is a traced array, `output_scale or ...` doesn't work."
# A fixed-step solver took an optional output scale and defaulted it with `or`; when the
# scale is calibrated (passed into a jitted solve), `or` converts the traced scale to bool.
# Today: TracerBoolConversionError. The fix tests `output_scale is None`.
# Reconstructed (the PR gives the idiom; a small fixed-grid IVP solver stands in for probdiffeq).
import jax
import jax.numpy as jnp


def vector_field(y, t):
    return -0.5 * y


def solve_fixed_grid(vf, y0, grid, output_scale=None):
    output_scale = output_scale or jnp.ones(())  # expect: JAX702

    def step(y, t_pair):
        t0, t1 = t_pair
        y_next = y + (t1 - t0) * vf(y, t0)
        return y_next, y_next

    _, ys = jax.lax.scan(step, y0, (grid[:-1], grid[1:]))
    return ys, output_scale * jnp.std(ys)


@jax.jit
def solve_with_scale(y0, scale):
    return solve_fixed_grid(vector_field, y0, jnp.linspace(0.0, 1.0, 11), output_scale=scale)


print(solve_fixed_grid(vector_field, 1.0, jnp.linspace(0.0, 1.0, 11))[1])
try:
    print(solve_with_scale(1.0, 2.0)[1])
except jax.errors.TracerBoolConversionError as err:
    print(type(err).__name__)

# Source: https://github.com/gdsfactory/klujax/issues/34 ("analyze() raises ConcretizationTypeError inside JAX traces")
# `analyze()` calls `int(raw_symbol)` on the result of a JAX computation; a circuit model
# that builds its circuit inside the physics function is traced by an equinox-jitted
# Newton step, so `int()` receives a tracer: ConcretizationTypeError. The reporter's
# workaround builds the circuit once, outside the traced function.
# Reconstructed (the sparse-LU "symbolic" handle is a jnp computation returning an integer
# code; the int() of it inside a helper several calls below filter_jit is the report's).
import equinox as eqx
import jax.numpy as jnp


def analyze(Ai, Aj, n_col):
    raw_symbol = jnp.max(Ai * n_col + Aj)
    return int(raw_symbol)  # expect: JAX703


def circuit(wl, Ai, Aj):
    symbolic = analyze(Ai, Aj, 4)
    return jnp.cos(2 * jnp.pi * wl) * (symbolic % 7 + 1)


def coupler_ring(wl, Ai, Aj):
    return circuit(wl, Ai, Aj)


@eqx.filter_jit
def newton_step(wl, Ai, Aj):
    return wl - 0.1 * coupler_ring(wl, Ai, Aj)


Ai, Aj = jnp.array([0, 1, 2, 3]), jnp.array([0, 1, 2, 3])
print(coupler_ring(1.55, Ai, Aj))
try:
    print(newton_step(1.55, Ai, Aj))
except Exception as err:  # ConcretizationTypeError
    print(type(err).__name__)

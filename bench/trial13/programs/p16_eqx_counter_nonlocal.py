# Counting steps with a nonlocal counter inside filter_jit: it counts traces, not calls.
import equinox as eqx
import jax
import jax.numpy as jnp


def make_trainer():
    calls = 0

    @eqx.filter_jit
    def grad_fn(model, x):
        nonlocal calls
        calls = calls + 1  # expect: JAX103
        return eqx.filter_grad(lambda m: jnp.sum(m(x) ** 2))(model)

    def report():
        return calls

    return grad_fn, report


model = eqx.nn.Linear(3, 2, key=jax.random.key(0))
grad_fn, report = make_trainer()
for _ in range(3):
    g = grad_fn(model, jnp.ones(3))
print("calls:", report())

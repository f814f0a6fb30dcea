# Source: https://github.com/google/flax/issues/4695 ("`nnx.Optimizer.update` causes tracer
# leaking when used in a jitted function", 2025)
# zhengzl18 built `update` as a `@jax.jit` closure in `Algorithm.__init__` that called
# `self.optimizer.update(grad)`; saving `nnx.state(model)` afterwards raised
# UnexpectedTracerError (the optimizer and model were mutated with tracers inside jax.jit).
# Maintainer: since flax 0.10.5 this is an error ("You currently cannot mutate NNX objects
# across boundaries"); use nnx.jit and pass the optimizer in.
# Adapted: the report's structure (class holding model, tx and optimizer; jitted closure in
# __init__) with a small nnx.Linear model; today's Optimizer.update signature (model, grads).
import jax
import jax.numpy as jnp
import optax
from flax import nnx


class Algorithm:
    def __init__(self, model, lr):
        self.model = model
        self.tx = optax.adamw(lr)
        self.optimizer = nnx.Optimizer(model, self.tx, wrt=nnx.Param)

        @jax.jit
        def update(key, data):
            def loss_fn(model):
                return jnp.mean((model(data) - 1.0) ** 2)

            grad = nnx.grad(loss_fn)(self.model)
            self.optimizer.update(self.model, grad)  # expect: JAX103

        self.update = update


model = nnx.Linear(3, 1, rngs=nnx.Rngs(0))
algo = Algorithm(model, 1e-2)
try:
    algo.update(jax.random.key(0), jnp.ones((4, 3)))
    print(nnx.state(model))
except Exception as err:  # flax raises its own error type for the cross-trace mutation
    print(type(err).__name__, str(err)[:80])

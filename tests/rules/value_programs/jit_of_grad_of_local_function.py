# runtime: check: assert len(traces) == 6
# clean runtime: check: assert len(traces) == 2
# flax #1218: `jax.jit(jax.grad(loss_fn))` built in the training loop: the grad wrapper (and
# a closure defined in the loop) is a new function every iteration, so each batch compiles.
import jax
import jax.numpy as jnp

traces = []


def loss(p, x):
    traces.append(1)
    return jnp.mean(p * x)


grad_at = jax.jit(jax.grad(loss))


def train(params, batches):
    def loss_fn(p, x):
        traces.append(1)
        return jnp.mean(p * x)

    grad_fn = jax.jit(jax.grad(loss_fn))  # noqa: F841 (the clean counterpart calls it)
    for inputs in batches:
        grads = jax.jit(jax.grad(loss_fn))(params, inputs)  # expect: JAX1001  # clean: grads = grad_fn(params, inputs)
        params = params - grads
    return params


def train_inline(params, batches):
    for inputs in batches:

        def step_loss(p):
            traces.append(1)
            return jnp.mean(p * inputs)  # noqa: B023 (called in this iteration)

        params = params - jax.jit(jax.grad(step_loss))(params)  # expect: JAX1001  # clean: params = params - grad_at(params, inputs)
    return params


batches = [jnp.ones(3) * i for i in range(3)]
train(jnp.ones(3), batches)
train_inline(jnp.ones(3), batches)

# runtime: jax.errors.UnexpectedTracerError
# clean runtime: check: assert len(recorder.history) == 1 and float(recorder.history[0]) == 3.0
# A metrics recorder created at module level collects the loss inside the jitted step: the
# list keeps the tracer, and reading it afterwards raises.
import jax
import jax.numpy as jnp


class Recorder:
    def __init__(self):
        self.history = []


recorder = Recorder()


@jax.jit
def step(w):
    loss = jnp.sum(w**2)
    recorder.history.append(loss)  # expect: JAX103  # clean:
    return w - 0.1 * 2 * w, loss


w, loss = step(jnp.ones(3))
recorder.history.append(loss)  # clean: recorder.history.append(loss)
print(recorder.history[0] + 1)  # clean:

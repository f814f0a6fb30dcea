# runtime: jax.errors.UnexpectedTracerError
# clean runtime: check: assert int(out[2]) == 2 and a.dct == {}
# jax #13022: a vmapped function stores a closure over its traced argument in a dict held
# by a module-level object; the tracer outlives vmap and a later use raises.
import jax


class A:
    def __init__(self, dct):
        self.dct = dct


a = A({})


def sketch(x):
    a.dct["hi"] = [lambda: x]  # expect: JAX103  # clean:
    return x


out = jax.vmap(sketch)(jax.numpy.arange(3))
leaked = a.dct["hi"][0]()  # clean:
print(leaked + 1)  # clean:

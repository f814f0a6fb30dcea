# runtime: check: assert run() == (2.0, 2.0)  # the second call should give 6.0
# clean runtime: check: assert run() == (2.0, 2.0)
# neural-tangents' predict_test: `loss` reads `f`, jitted before `f` is first bound; the first
# binding is the value every trace sees (nothing can trace it earlier). Binding it again after
# a call is what leaves the compiled closure stale.
import jax


def run():
    step = jax.jit(lambda x: x * scale)  # expect: JAX102
    scale = 1.0
    first = float(step(2.0))
    scale = 3.0  # clean:
    return first, float(step(2.0))


print(run())

# runtime: check: assert steps == 1 and int(final) == 10
# clean runtime: check: assert int(steps) == 10
from jax import lax

steps = 0


def body(carry):
    global steps  # clean:
    val, n = carry
    steps += 1  # expect: JAX103  # clean: n = n + 1
    return val + 1, n


final, n = lax.while_loop(lambda c: c[0] < 10, body, (0, 0))
result = final  # clean: steps = n

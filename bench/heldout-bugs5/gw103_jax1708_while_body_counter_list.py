# Source: https://github.com/jax-ml/jax/issues/1708 ("lax.while_loop calls body_fun only once")
# The user counted iterations by bumping u[0] in the body of lax.while_loop; the body is traced
# once, so u ends at [1] instead of [10] (shoyer/mattjj: the loop body is traced, side effects
# run once). Under today's JAX the counter also holds no tracer, but it is simply wrong.
# Verbatim (the Python reference loop and prints kept).
from jax import lax


def body_fun(val):
    u[0] += 1  # expect: JAX103
    return val + 1


cond_fun = lambda j: j < 10


### python
u = [0]


def while_loop(cond_fun, body_fun, init_val):
    val = init_val
    while cond_fun(val):
        val = body_fun(val)
    return val


while_loop(cond_fun, body_fun, 0)
print("python", u)

### xla
u = [0]
lax.while_loop(cond_fun, body_fun, 0)
print("xla", u)

# ok: jax.debug.print inside the jitted function, print outside it, and the branch on the value
# written with lax.cond.
import jax


@jax.jit
def jit_func(x):
    jax.debug.print("JIT print: {}", x)
    return jax.lax.cond(x > 0, lambda v: v * 2, lambda v: v + 2, x)


for v in (3, -1):
    print("JIT output:", jit_func(v))

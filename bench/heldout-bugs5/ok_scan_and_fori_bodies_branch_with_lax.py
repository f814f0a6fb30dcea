# ok: loop bodies branch on their carry with lax.cond / jnp.where; Python bool() only on
# static values (a length and a flag fixed before tracing).
import jax
import jax.numpy as jnp

USE_CLIP = True


def scan_body(c, x):
    c = jax.lax.cond(c > 0, lambda v: v - x, lambda v: v + x, c)
    if bool(USE_CLIP):
        c = jnp.clip(c, -10.0, 10.0)
    return c, c


def fori_body(i, c):
    return jnp.where(c > 1.0, c / 2.0, c + i)


xs = jnp.arange(4.0)
final, trace = jax.lax.scan(scan_body, 3.0, xs, length=bool(len(xs)) * len(xs))
print(final, trace)
print(jax.lax.fori_loop(0, 5, fori_body, 3.0))

# Registered dataclass pytree through scan; correct.
import dataclasses
import functools

import jax
import jax.numpy as jnp


@functools.partial(jax.tree_util.register_dataclass, data_fields=["mean", "count"], meta_fields=[])
@dataclasses.dataclass
class Running:
    mean: jax.Array
    count: jax.Array


def update(r: Running, x):
    count = r.count + 1
    mean = r.mean + (x - r.mean) / count
    return Running(mean, count), mean


r, means = jax.lax.scan(update, Running(jnp.array(0.0), jnp.array(0.0)), jnp.arange(1.0, 6.0))
print(r.mean, means)

# Source: https://github.com/jax-ml/jax/issues/3701 ("Unhashable objects are silently accepted
# as static arguments to jax.jit")
# JonyEpsilon passed a @dataclasses.dataclass Config as a static argument; a dataclass with
# eq=True and no frozen=True has __hash__ = None. Then: silent retrace on every call; since
# jax 0.2.6: ValueError "Non-hashable static arguments are not supported".
# frozen=True (or unsafe_hash=True) gives the class a value hash.
# Adapted (the report's Config and do_stuff; the body and the data made up; try/except added).
import dataclasses
import functools

import jax
import jax.numpy as jnp


@dataclasses.dataclass
class Config:
    some_value: int
    # many other values omitted


@functools.partial(jax.jit, static_argnums=1)
def do_stuff(data, config):
    return data * config.some_value


def summon_up_evaluation_data():
    return jnp.arange(4.0)


def evaluate():
    config = Config(3)
    data = summon_up_evaluation_data()
    return do_stuff(data, config)  # expect: JAX1002


try:
    print(evaluate())
except ValueError as err:
    print(type(err).__name__, str(err)[:50])

# runtime: jax.errors.NonConcreteBooleanIndexError
import flax.struct
import jax
import jax.numpy as jnp


@flax.struct.dataclass
class Episode:
    rewards: jax.Array
    done: jax.Array


@jax.jit
def undone_return(episode: Episode):
    kept = episode.rewards[~episode.done]  # expect: JAX801
    return kept.sum()


total = undone_return(Episode(rewards=jnp.ones(5), done=jnp.zeros(5, dtype=bool)))

# runtime: jax.errors.NonConcreteBooleanIndexError
# clean runtime: check: assert float(total) == 5.0
import flax.struct
import jax
import jax.numpy as jnp


@flax.struct.dataclass
class Episode:
    rewards: jax.Array
    done: jax.Array


@jax.jit
def undone_return(episode: Episode):
    kept = episode.rewards[~episode.done]  # expect: JAX801  # clean: kept = jnp.where(episode.done, 0.0, episode.rewards)
    return kept.sum()


total = undone_return(Episode(rewards=jnp.ones(5), done=jnp.zeros(5, dtype=bool)))

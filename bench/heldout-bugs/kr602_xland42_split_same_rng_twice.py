# Source: https://github.com/dunnolab/xland-minigrid/issues/42 ("Bug in Jax keys")
# In the meta-task training script `rng` is split three ways and then `rng` itself is split
# twice more, so ruleset_rng and reset_rng are identical key arrays. Maintainer: "Good catch,
# this indeed a typo."
# Verbatim (the three quoted lines), inside a small stand-in of the script's setup.
import jax


class config:
    num_envs_per_device = 4


rng = jax.random.PRNGKey(0)
rng, _rng1, _rng2 = jax.random.split(rng, num=3)
ruleset_rng = jax.random.split(rng, num=config.num_envs_per_device)
reset_rng = jax.random.split(rng, num=config.num_envs_per_device)  # expect: JAX602

print("ruleset and reset keys identical:", bool((ruleset_rng == reset_rng).all()))

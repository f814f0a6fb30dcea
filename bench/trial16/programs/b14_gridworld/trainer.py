import jax
import jax.numpy as jnp

from envs import GridWorld


def rollout(env, key, n_envs=8, horizon=30):
    reset_keys = jax.random.split(key, n_envs + 1)
    key, reset_keys = reset_keys[0], reset_keys[1:]
    states = jax.vmap(env.reset)(reset_keys)
    step = jax.jit(jax.vmap(env.step))

    def body(carry, k):
        states = carry
        actions = jax.random.randint(k, (n_envs,), 0, 4)
        states, rewards, dones = step(states, actions)
        return states, rewards

    _, rewards = jax.lax.scan(body, states, jax.random.split(key, horizon))
    return rewards.sum(0)


if __name__ == "__main__":
    print(rollout(GridWorld(), jax.random.PRNGKey(0)))

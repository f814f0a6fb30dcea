import jax
import jax.numpy as jnp

from ac import create_train_states

actor_state, critic_state = create_train_states(jax.random.PRNGKey(0), 4, 2)
a = actor_state.params["params"]["Dense_0"]["kernel"]
c = critic_state.params["params"]["Dense_0"]["kernel"]
print("actor and critic first layers identical:", bool(jnp.allclose(a, c)))

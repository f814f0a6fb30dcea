# %% [1]
import jax
import jax.numpy as jnp
# %% [2]
def sir_step(i, s):
    beta, gamma, dt = 0.3, 0.1, 0.1
    new_inf = beta * s["S"] * s["I"] * dt
    new_rec = gamma * s["I"] * dt
    return {"S": s["S"] - new_inf, "I": s["I"] + new_inf - new_rec, "R": s["R"] + new_rec}
# %% [3]
state0 = {"S": jnp.array(0.99), "I": jnp.array(0.01), "R": jnp.array(0.0)}
final = jax.jit(lambda s: jax.lax.fori_loop(0, 1000, sir_step, s))(state0)
# %% [4]
print({k: float(v) for k, v in final.items()})

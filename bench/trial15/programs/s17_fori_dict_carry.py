# Velocity Verlet with a dict carry in fori_loop: positions, velocities, time.
import jax
import jax.numpy as jnp


def force(x):
    return -4.0 * x


@jax.jit
def run(x0, v0, dt):
    def body(i, s):
        v_half = s["v"] + 0.5 * dt * force(s["x"])
        x = s["x"] + dt * v_half
        v = v_half + 0.5 * dt * force(x)
        return {"x": x, "v": v, "t": s["t"] + dt}

    return jax.lax.fori_loop(0, 1000, body, {"x": x0, "v": v0, "t": 0.0})


state = run(jnp.ones(3), jnp.zeros(3), 0.001)
print(state["t"], state["x"])

# ok: the triangular schedule is written with jnp.where, so optax can trace it inside the
# jitted TrainState step.
import jax
import jax.numpy as jnp
import optax
from flax import linen as nn
from flax.training import train_state


def create_triangular_schedule(lr_min, lr_max, steps_per_cycle):
    top = (steps_per_cycle + 1) // 2

    def learning_rate_fn(step):
        cycle_step = step % steps_per_cycle
        rising = lr_min + cycle_step / top * (lr_max - lr_min)
        falling = lr_max - ((cycle_step - top) / top) * (lr_max - lr_min)
        return jnp.where(cycle_step < top, rising, falling)

    return learning_rate_fn


model = nn.Dense(1)
params = model.init(jax.random.PRNGKey(0), jnp.ones((1, 4)))["params"]
state = train_state.TrainState.create(
    apply_fn=model.apply, params=params, tx=optax.sgd(create_triangular_schedule(0.001, 0.1, 200))
)


@jax.jit
def train_step(state, batch):
    def loss_fn(params):
        pred = state.apply_fn({"params": params}, batch["x"])
        return jnp.mean((pred - batch["y"]) ** 2)

    grads = jax.grad(loss_fn)(state.params)
    return state.apply_gradients(grads=grads)


for _ in range(3):
    state = train_step(state, {"x": jnp.ones((8, 4)), "y": jnp.zeros((8, 1))})
print(state.step)

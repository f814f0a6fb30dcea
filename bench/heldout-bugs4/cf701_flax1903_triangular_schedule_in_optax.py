# Source: https://github.com/google/flax/pull/1903 ("Updates LR schedule HOWTO for optax")
# matthias-wright replaced the HOWTO's triangular scheduler "because the triangular scheduler
# did not play well with jit. I think jit cannot trace the create_triangular_schedule function
# because of the if else that depends on the input" (the step is traced inside the jitted
# train step). andsteing: "So it seems the former HOWTO didn't actually work?"
# Adapted: the HOWTO's schedule verbatim, used as an optax learning rate in a TrainState train
# step as the PR's new version does (a small flax.linen Dense model stands in for the CNN).
import jax
import jax.numpy as jnp
import optax
from flax import linen as nn
from flax.training import train_state


def create_triangular_schedule(lr_min, lr_max, steps_per_cycle):
    """Return fn from epoch to LR, linearly interpolating between `lr_min`->`lr_max`->`lr_min`."""
    top = (steps_per_cycle + 1) // 2

    def learning_rate_fn(step):
        cycle_step = step % steps_per_cycle
        if cycle_step < top:  # expect: JAX701
            lr = lr_min + cycle_step / top * (lr_max - lr_min)
        else:
            lr = lr_max - ((cycle_step - top) / top) * (lr_max - lr_min)
        return lr

    return learning_rate_fn


model = nn.Dense(1)
params = model.init(jax.random.PRNGKey(0), jnp.ones((1, 4)))["params"]
learning_rate_fn = create_triangular_schedule(0.001, 0.1, 200)
state = train_state.TrainState.create(
    apply_fn=model.apply, params=params, tx=optax.sgd(learning_rate_fn)
)


@jax.jit
def train_step(state, batch):
    def loss_fn(params):
        pred = state.apply_fn({"params": params}, batch["x"])
        return jnp.mean((pred - batch["y"]) ** 2)

    grads = jax.grad(loss_fn)(state.params)
    return state.apply_gradients(grads=grads)


try:
    state = train_step(state, {"x": jnp.ones((8, 4)), "y": jnp.zeros((8, 1))})
except jax.errors.TracerBoolConversionError as err:
    print(type(err).__name__)

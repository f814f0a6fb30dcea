# curve_fit replacement: fit an exponential decay with optax.adam.
import jax
import jax.numpy as jnp
import optax

t = jnp.linspace(0, 5, 50)
data = 2.0 * jnp.exp(-0.7 * t) + 0.01 * jax.random.normal(jax.random.PRNGKey(0), t.shape)


def loss(params):
    A, k = params["A"], params["k"]
    return jnp.mean((A * jnp.exp(-k * t) - data) ** 2)


params = {"A": jnp.array(1.0), "k": jnp.array(0.1)}
opt = optax.adam(0.05)
opt_state = opt.init(params)


@jax.jit
def step(params, opt_state):
    value, grads = jax.value_and_grad(loss)(params)
    updates, opt_state = opt.update(grads, opt_state)
    return optax.apply_updates(params, updates), opt_state, value


for i in range(500):
    params, opt_state, value = step(params, opt_state)
print(params["A"], params["k"], value)

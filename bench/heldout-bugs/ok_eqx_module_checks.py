# ok: an equinox module whose __check_init__ only inspects static facts (shapes, Python config),
# with value checks done by eqx.error_if; filter_jit training with optax.
import equinox as eqx
import jax
import jax.numpy as jnp
import optax


class Potential(eqx.Module):
    m: jax.Array
    r_s: jax.Array
    units: str = eqx.field(static=True, default="galactic")

    def __check_init__(self):
        if self.m.shape != () or self.r_s.shape != ():
            raise ValueError("scalar parameters expected")
        if not self.units or self.units not in ("galactic", "si"):
            raise ValueError("unknown units")

    def __call__(self, r):
        r_s = eqx.error_if(self.r_s, self.r_s <= 0, "r_s must be positive")
        return -self.m * jnp.log1p(r / r_s) / r


@eqx.filter_jit
def energy(pot, r):
    return pot(r)


pot = Potential(jnp.array(1.0), jnp.array(2.0))
print(energy(pot, 3.0))

model = eqx.nn.Linear(2, 1, key=jax.random.PRNGKey(0))
opt = optax.adam(1e-2)
opt_state = opt.init(eqx.filter(model, eqx.is_array))


@eqx.filter_jit
def step(model, opt_state, x, y):
    loss, grads = eqx.filter_value_and_grad(lambda m: jnp.mean((jax.vmap(m)(x) - y) ** 2))(model)
    updates, opt_state = opt.update(grads, opt_state, eqx.filter(model, eqx.is_array))
    return eqx.apply_updates(model, updates), opt_state, loss


x = jnp.ones((4, 2))
y = jnp.zeros((4, 1))
for _ in range(3):
    model, opt_state, loss = step(model, opt_state, x, y)
print(float(loss))

# linen BatchNorm with mutable batch_stats; correct.
import jax
import jax.numpy as jnp
import flax.linen as nn


class Net(nn.Module):
    @nn.compact
    def __call__(self, x, train):
        x = nn.Dense(4)(x)
        x = nn.BatchNorm(use_running_average=not train)(x)
        return x.sum(-1)


net = Net()
variables = net.init(jax.random.key(0), jnp.ones((2, 3)), train=False)
x = jax.random.normal(jax.random.key(1), (10, 3))


@jax.jit
def fwd(variables, x):
    out, updates = net.apply(variables, x, train=True, mutable=["batch_stats"])
    return out, updates


out, upd = fwd(variables, x)
variables = {"params": variables["params"], **upd}
print(out.shape, jax.tree_util.tree_map(jnp.shape, variables["batch_stats"]))

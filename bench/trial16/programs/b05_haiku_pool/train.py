import jax
import jax.numpy as jnp

from hknets import make_forward

net = make_forward(4)
tokens = jax.random.normal(jax.random.PRNGKey(0), (3, 10, 8))
lengths = jnp.array([3, 7, 10])
params = net.init(jax.random.PRNGKey(1), tokens, lengths)
apply = jax.jit(net.apply)
print(apply(params, tokens, lengths).shape)

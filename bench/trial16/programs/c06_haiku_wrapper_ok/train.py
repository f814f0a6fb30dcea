import jax
import jax.numpy as jnp

from hknets import compiled, make_forward

net = make_forward(4)
key = jax.random.PRNGKey(0)
k_tok, k_init, k_apply = jax.random.split(key, 3)
tokens = jax.random.normal(k_tok, (3, 10, 8))
lengths = jnp.array([3, 7, 10])
params = net.init(k_init, tokens, lengths, True)


@compiled(static=("is_training",))
def predict(params, rng, tokens, lengths, is_training):
    return net.apply(params, rng, tokens, lengths, is_training)


for i in range(2):
    print(predict(params, jax.random.fold_in(k_apply, i), tokens, lengths, is_training=True).sum())
print(predict(params, None, tokens, lengths, is_training=False).shape)

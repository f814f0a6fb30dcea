import jax

from clf import train

x = jax.random.normal(jax.random.PRNGKey(1), (64, 20))
y = jax.random.randint(jax.random.PRNGKey(2), (64,), 0, 10)
params, loss = train(x, y, n_steps=5)
print("loss", loss)

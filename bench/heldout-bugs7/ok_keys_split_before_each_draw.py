# ok: one fresh key per draw: keys split up front (the lecture's fix), and a key split
# per loop iteration before it is used.
import jax
import jax.numpy as jnp

n = 100
key = jax.random.key(1234)
key, x_key, eps_key = jax.random.split(key, 3)
x = jax.random.uniform(x_key, (n,))
α, β, σ = 0.5, 1.0, 0.1
ϵ = jax.random.normal(eps_key, (n,))
y = α * x + β + σ * ϵ
print(jnp.mean(y))

samples = []
for _ in range(3):
    key, subkey = jax.random.split(key)
    samples.append(jax.random.normal(subkey, ()))
print(jnp.stack(samples))

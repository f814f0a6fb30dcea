import jax.numpy as jnp

logits = jnp.arange(10.0)
last_class_logit = logits[10]  # expect: JAX301
print(last_class_logit)

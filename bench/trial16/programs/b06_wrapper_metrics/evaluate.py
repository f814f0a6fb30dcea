import jax
import jax.numpy as jnp

from research import metrics

logits = jax.random.normal(jax.random.PRNGKey(0), (100, 5))
labels = jax.random.randint(jax.random.PRNGKey(1), (100,), 0, 5)
print("ECE", metrics.expected_calibration_error(jax.nn.softmax(logits), labels))

import jax.numpy as jnp
import numpy as np

from research.compile import compiled


@compiled
def expected_calibration_error(probs, labels, n_bins=10):
    conf = probs.max(-1)
    correct = (probs.argmax(-1) == labels).astype(jnp.float32)
    edges = np.linspace(0.0, 1.0, n_bins + 1)
    bin_ids = np.digitize(np.asarray(conf), edges[1:-1])  # expect: JAX703
    ece = 0.0
    for b in range(n_bins):
        in_bin = bin_ids == b
        w = jnp.mean(in_bin)
        gap = jnp.abs(jnp.sum(jnp.where(in_bin, correct - conf, 0.0))) / jnp.maximum(in_bin.sum(), 1)
        ece = ece + w * gap
    return ece

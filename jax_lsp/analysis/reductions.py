"""The jax.numpy reductions a masked array may feed, and the identity element of each: what
masked-out elements hold so that the reduction ignores them."""

from __future__ import annotations

# Reduction -> identity element, written with `{np}` for the jax.numpy alias.
IDENTITIES = {
    "sum": "0",
    "prod": "1",
    "max": "-{np}.inf",
    "min": "{np}.inf",
    "any": "False",
    "all": "True",
    "mean": "0",
}
# The functions by qualified name, each the reduction it computes.
REDUCTION_FUNCTIONS = {f"jax.numpy.{name}": name for name in IDENTITIES} | {
    "jax.numpy.amax": "max",
    "jax.numpy.amin": "min",
}

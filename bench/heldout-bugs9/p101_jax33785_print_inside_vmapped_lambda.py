# Source: https://github.com/jax-ml/jax/pull/33785 ("improve tracer reprs to show a lil concrete
# info", mattjj, 2025-12-06): a user printed inside transformed functions and did not see values;
# the PR's examples are `jax.grad(lambda x: print(x) or x)(1.5)` and
# `jax.vmap(lambda x: print(x) or x)(jax.numpy.arange(5))`, which print a tracer (once, at trace
# time), never the five values. `jax.debug.print` prints each mapped value.
# Verbatim (the PR's vmap example; the evidence added).
import jax

show = lambda x: print(x) or x  # expect: JAX101

out = jax.vmap(show)(jax.numpy.arange(5))
print("returned:", out)

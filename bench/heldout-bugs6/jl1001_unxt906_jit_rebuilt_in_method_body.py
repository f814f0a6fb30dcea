# Source: https://github.com/GalacticDynamics/unxt/pull/906
# ("docs(perf): document the jax.jit closure-identity recompile trap")
# nstarman, porting a coordinax finding (pt_map): jax.jit caches on the identity of the
# wrapped function, so "a wrapper rebuilt inside a loop or method body recompiles on every
# call instead of hitting the cache" (~400x slower in unxt, ~4000x in coordinax).
# Reconstructed (the PR describes the pattern; a frame-transform class stands in).
import jax
import jax.numpy as jnp

traces = []


class FrameTransform:
    def __init__(self, rotation, offset):
        self.rotation = rotation
        self.offset = offset

    def point_map(self, points):
        def pt_map(p):
            traces.append(1)
            return self.rotation @ p + self.offset

        mapped = jax.jit(jax.vmap(pt_map))  # expect: JAX1001
        return mapped(points)


op = FrameTransform(jnp.eye(3), jnp.ones(3))
points = jnp.zeros((4, 3))
for _ in range(3):
    op.point_map(points)
print("traces for 3 calls:", len(traces))

# Source: https://github.com/GalacticDynamics/coordinax/pull/561
# ("fix(transforms): make Scale/Reflect constructors jit-safe")
# The PR's second constructor: Reflect.from_normal rejected a zero normal with
# `if bool(jnp.all(...)): raise ValueError(...)`, so building a reflection inside a jitted
# function (the PR's jit-construction test) fails with TracerBoolConversionError.
# Reconstructed (the PR text gives the check; the reflection matrix and the jitted caller
# that builds it from a traced normal are written for this file).
import equinox as eqx
import jax
import jax.numpy as jnp


class Reflect(eqx.Module):
    matrix: jax.Array

    @classmethod
    def from_normal(cls, normal):
        normal = jnp.asarray(normal)
        if bool(jnp.all(normal == 0)):  # expect: JAX701
            raise ValueError("The normal of a reflection must be non-zero.")
        n = normal / jnp.linalg.norm(normal)
        return cls(jnp.eye(n.shape[0]) - 2.0 * jnp.outer(n, n))


@jax.jit
def mirror(points, normal):
    op = Reflect.from_normal(normal)
    return points @ op.matrix.T


print(Reflect.from_normal(jnp.array([0.0, 0.0, 1.0])).matrix[2])
try:
    print(mirror(jnp.ones((2, 3)), jnp.array([0.0, 0.0, 1.0])))
except jax.errors.TracerBoolConversionError as err:
    print(type(err).__name__)

# Source: https://github.com/genjax-community/genjax/issues/1179 ("[BUG] jax.jit with a static
# argument of a `genjax.Pytree.const(list)` causes an error")
# Reduced by the reporter: "The following also fails": a list at a static position ->
# ValueError: Non-hashable static arguments are not supported.
# Verbatim (the reporter's reduction without genjax).
import jax


def foo(x):
    return x[0] + 1


jfoo = jax.jit(foo, static_argnums=(0,))

try:
    print(jfoo([2]))  # expect: JAX1002
except ValueError as err:
    print("ValueError:", str(err).splitlines()[0])

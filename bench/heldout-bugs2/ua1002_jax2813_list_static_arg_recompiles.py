# Source: https://github.com/jax-ml/jax/issues/2813 ("Remove object identity equality
# semantics from `static_argnums`.")
# "the following function recompiles every time it is called because lists are not
# hashable types": f(1, [2, 3]) with static_argnums=(1,). Today JAX raises
# ValueError: Non-hashable static arguments are not supported.
# Verbatim from the issue (REPL turned into a script); try/except added.
import jax


def g(x, y):
    print("recompiling")
    return x + y[0]


f = jax.jit(g, static_argnums=(1,))
try:
    print(f(1, [2, 3]))  # expect: JAX1002
except ValueError as e:
    print(type(e).__name__, str(e).splitlines()[0][:60])

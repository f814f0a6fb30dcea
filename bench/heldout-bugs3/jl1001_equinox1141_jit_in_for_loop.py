# Source: https://github.com/patrick-kidger/equinox/issues/1141 ("jax loops use")
# The user asked whether `for _ in range(..): ... = jax.jit(fun_name)` is the same as a lax loop;
# johannahaffner: "No, it will recompile if you put the jit inside the for-loop."
# Adapted: the user's sketch filled with a small equinox model step; the jitted function is a
# lambda built in the loop body, so every iteration compiles anew (the print shows it).
import equinox as eqx
import jax
import jax.numpy as jnp

model = eqx.nn.Linear(3, 3, key=jax.random.PRNGKey(0))
x = jnp.ones(3)


def fun_name(model, x):
    print("compiling")
    return model(x)


for _ in range(3):
    y = jax.jit(lambda m, v: fun_name(m, v))(model, x)  # expect: JAX1001
print(y)

# Source: https://taourl.com/read-2425218.html (retelling of a Stack Overflow question:
# "Difference in variable values in jax non-jit runtime and jit transformed runtime")
# The second difference the answer shows: Python control flow on the argument works
# eagerly for 3 and -1, and fails under jit (TracerBoolConversionError): use lax.cond or
# jnp.where.
# Adapted (the answer's example; `x 2` in the page read as `x * 2`; try/except added).
import jax


def dynamic_control_flow(x):
    if x > 0:  # expect: JAX701
        return x * 2
    else:
        return x + 2


jit_dynamic = jax.jit(dynamic_control_flow)

print("Non-JIT dynamic:", dynamic_control_flow(3))  # Works
print("Non-JIT dynamic:", dynamic_control_flow(-1))  # Works
try:
    print("JIT dynamic:", jit_dynamic(3))
except jax.errors.TracerBoolConversionError as err:
    print(type(err).__name__)

# Source: https://github.com/HajimeKawahara/exojax/issues/122 ("INCF new implementation")
# The author of exojax explains why the old INCF code computed every line directly: "the direct
# index assignment of the array is not allowed in JAX. i.e. you cannot do such as"
#   a[indx]=val #error
# and moved to jax.ops.index_update / index_add (today `a.at[indx].set(val)`).
# Verbatim: the snippet from the issue; the try/except and the print were added.
import jax.numpy as jnp

a=jnp.zeros(5)
indx=jnp.array([1,2])
val=jnp.array([10.0,3.0])
try:
    a[indx]=val #error  # expect: JAX201
except TypeError as err:
    print("TypeError:", str(err)[:60])
print(a.at[indx].set(val))

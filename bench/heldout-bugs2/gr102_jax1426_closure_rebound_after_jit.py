# Source: https://github.com/jax-ml/jax/issues/1426 ("JIT loses access to local variables")
# loss_sum reads `a` from the enclosing function; without jit, changing `a` changes the
# gradient; with jax.jit(jax.grad(loss_sum)) the value at the first trace is baked in and
# the second assert fails.
# Verbatim (the jitted version); the asserts are turned into prints.
import jax
import jax.numpy as np


def test_retain():
    a = 10
    def loss_sum(val):
        loss = np.sum(val[:2]**2 + val[2:]**3) * a  # expect: JAX102
        return loss
    grad = jax.jit(jax.grad(loss_sum))     # added JIT
    gs = grad(np.array([2, 3, 4, 5], dtype=float))
    print(np.allclose(gs, np.array([  40.,  60.,  480., 750.])))
    a = 20
    gs = grad(np.array([2, 3, 4, 5], dtype=float))
    print(np.allclose(gs, np.array([  80.,  120.,  960., 1500.])), gs)  # False: stale a


test_retain()

"""Writes the trial's notebooks from the cells below (kept as text so they diff well).

Each notebook is one text; a line `# %%` starts a new cell. Run from anywhere.
"""

import json
from pathlib import Path

NOTEBOOKS: dict[str, str] = {
    "n01_mnist_style.ipynb": """\
import jax
import jax.numpy as jnp
import optax
# %%
key = jax.random.key(0)
X = jax.random.normal(key, (256, 10))
y = (X.sum(1) > 0).astype(jnp.int32)
# %%
def init(key):
    k1, k2 = jax.random.split(key)
    return {'w1': jax.random.normal(k1, (10, 32)) * 0.1, 'w2': jax.random.normal(k2, (32, 2)) * 0.1}

params = init(key)  # expect: JAX602
# %%
def loss_fn(params, X, y):
    h = jax.nn.relu(X @ params['w1'])
    logits = h @ params['w2']
    return optax.softmax_cross_entropy_with_integer_labels(logits, y).mean()
# %%
opt = optax.adam(1e-2)
opt_state = opt.init(params)

@jax.jit
def step(params, opt_state):
    loss, g = jax.value_and_grad(loss_fn)(params, X, y)
    u, opt_state = opt.update(g, opt_state)
    return optax.apply_updates(params, u), opt_state, loss
# %%
for i in range(100):
    params, opt_state, loss = step(params, opt_state)
print(loss)
""",
    "n02_redefine_loss.ipynb": """\
import jax
import jax.numpy as jnp
# %%
def loss(w, x):
    return jnp.sum((w * x) ** 2)
# %%
x = jnp.arange(4.0)
w = jnp.ones(4)
grad_loss = jax.jit(jax.grad(loss))
print(grad_loss(w, x))
# %%
# redefine the loss with a debug print, as one does in a notebook
def loss(w, x):
    print('w is', w)  # expect: JAX101
    return jnp.sum(jnp.abs(w * x))
# %%
grad_loss = jax.jit(jax.grad(loss))
print(grad_loss(w, x))
""",
    "n03_inplace_cells.ipynb": """\
import jax.numpy as jnp
import numpy as np
# %%
grid = np.zeros((3, 3))
grid[1, 1] = 5
# %%
grid = jnp.asarray(grid)
# %%
grid[0, 0] = 1  # expect: JAX201
# %%
print(grid)
""",
    "n04_key_cells.ipynb": """\
import jax
import jax.numpy as jnp
# %%
key = jax.random.key(0)
# %%
a = jax.random.normal(key, (3,))
# %%
b = jax.random.normal(key, (3,))  # expect: JAX602
print(a - b)
""",
    "n05_x64_midway.ipynb": """\
import jax
import jax.numpy as jnp
# %%
x = jnp.arange(5.0)
print(x.dtype)
# %%
jax.config.update('jax_enable_x64', True)  # expect: JAX902
# %%
y = jnp.arange(5.0)
print(x.dtype, y.dtype)
""",
    "n06_scan_explore_ok.ipynb": """\
import jax
import jax.numpy as jnp
from jax import lax
# %%
def cumsum_scan(xs):
    def body(c, x):
        c = c + x
        return c, c
    return lax.scan(body, 0.0, xs)[1]
# %%
xs = jnp.arange(6.0)
print(cumsum_scan(xs))
print(jnp.cumsum(xs))
# %%
fast = jax.jit(cumsum_scan)
print(fast(xs))
# %%
jax.make_jaxpr(cumsum_scan)(xs)
""",
    "n07_vmap_debug.ipynb": """\
import jax
import jax.numpy as jnp
# %%
def distance(a, b):
    d = jnp.sqrt(jnp.sum((a - b) ** 2))
    if d < 1e-6:  # expect: JAX701
        return 0.0
    return d
# %%
pts = jnp.array([[0.0, 0.0], [3.0, 4.0]])
print(distance(pts[0], pts[1]))
# %%
pairwise = jax.vmap(jax.vmap(distance, (None, 0)), (0, None))
print(pairwise(pts, pts))
""",
    "n08_eqx_notebook_ok.ipynb": """\
import equinox as eqx
import jax
import jax.numpy as jnp
# %%
class Poly(eqx.Module):
    coeffs: jax.Array

    def __call__(self, x):
        return jnp.polyval(self.coeffs, x)
# %%
p = Poly(jnp.array([1.0, 0.0, -1.0]))
xs = jnp.linspace(-1, 1, 5)
print(eqx.filter_jit(eqx.filter_vmap(p))(xs))
# %%
grads = eqx.filter_grad(lambda m: jnp.sum(m(xs) ** 2))(p)
print(grads.coeffs)
""",
}


def write_notebook(path: Path, text: str) -> None:
    cells = text.split("# %%\n")
    nb = {
        "cells": [
            {
                "cell_type": "code",
                "execution_count": None,
                "metadata": {},
                "outputs": [],
                "source": src.splitlines(keepends=True),
            }
            for src in cells
        ],
        "metadata": {
            "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}
        },
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    path.write_text(json.dumps(nb, indent=1) + "\n")


if __name__ == "__main__":
    out = Path(__file__).resolve().parent.parent / "programs"
    for name, text in NOTEBOOKS.items():
        write_notebook(out / name, text)

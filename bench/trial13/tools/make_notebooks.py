"""Writes the trial's notebooks from the cell sources below (kept as code so they diff well)."""

import json
from pathlib import Path

NOTEBOOKS: dict[str, list[str]] = {
    "n01_mnist_style.ipynb": [
        "import jax\nimport jax.numpy as jnp\nimport optax\n",
        "key = jax.random.key(0)\nX = jax.random.normal(key, (256, 10))\ny = (X.sum(1) > 0).astype(jnp.int32)\n",
        "def init(key):\n    k1, k2 = jax.random.split(key)\n    return {'w1': jax.random.normal(k1, (10, 32)) * 0.1, 'w2': jax.random.normal(k2, (32, 2)) * 0.1}\n\nparams = init(key)\n",
        "def loss_fn(params, X, y):\n    h = jax.nn.relu(X @ params['w1'])\n    logits = h @ params['w2']\n    return optax.softmax_cross_entropy_with_integer_labels(logits, y).mean()\n",
        "opt = optax.adam(1e-2)\nopt_state = opt.init(params)\n\n@jax.jit\ndef step(params, opt_state):\n    loss, g = jax.value_and_grad(loss_fn)(params, X, y)\n    u, opt_state = opt.update(g, opt_state)\n    return optax.apply_updates(params, u), opt_state, loss\n",
        "for i in range(100):\n    params, opt_state, loss = step(params, opt_state)\nprint(loss)\n",
    ],
    "n02_redefine_loss.ipynb": [
        "import jax\nimport jax.numpy as jnp\n",
        "def loss(w, x):\n    return jnp.sum((w * x) ** 2)\n",
        "x = jnp.arange(4.0)\nw = jnp.ones(4)\ngrad_loss = jax.jit(jax.grad(loss))\nprint(grad_loss(w, x))\n",
        "# redefine the loss with a debug print, as one does in a notebook\ndef loss(w, x):\n    print('w is', w)  # expect: JAX101\n    return jnp.sum(jnp.abs(w * x))\n",
        "grad_loss = jax.jit(jax.grad(loss))\nprint(grad_loss(w, x))\n",
    ],
    "n03_inplace_cells.ipynb": [
        "import jax.numpy as jnp\nimport numpy as np\n",
        "grid = np.zeros((3, 3))\ngrid[1, 1] = 5\n",
        "grid = jnp.asarray(grid)\n",
        "grid[0, 0] = 1  # expect: JAX201\n",
        "print(grid)\n",
    ],
    "n04_key_cells.ipynb": [
        "import jax\nimport jax.numpy as jnp\n",
        "key = jax.random.key(0)\n",
        "a = jax.random.normal(key, (3,))\n",
        "b = jax.random.normal(key, (3,))  # expect: JAX602\nprint(a - b)\n",
    ],
    "n05_x64_midway.ipynb": [
        "import jax\nimport jax.numpy as jnp\n",
        "x = jnp.arange(5.0)\nprint(x.dtype)\n",
        "jax.config.update('jax_enable_x64', True)  # expect: JAX902\n",
        "y = jnp.arange(5.0)\nprint(x.dtype, y.dtype)\n",
    ],
    "n06_scan_explore_ok.ipynb": [
        "import jax\nimport jax.numpy as jnp\nfrom jax import lax\n",
        "def cumsum_scan(xs):\n    def body(c, x):\n        c = c + x\n        return c, c\n    return lax.scan(body, 0.0, xs)[1]\n",
        "xs = jnp.arange(6.0)\nprint(cumsum_scan(xs))\nprint(jnp.cumsum(xs))\n",
        "fast = jax.jit(cumsum_scan)\nprint(fast(xs))\n",
        "jax.make_jaxpr(cumsum_scan)(xs)\n",
    ],
    "n07_vmap_debug.ipynb": [
        "import jax\nimport jax.numpy as jnp\n",
        "def distance(a, b):\n    d = jnp.sqrt(jnp.sum((a - b) ** 2))\n    if d < 1e-6:  # expect: JAX701\n        return 0.0\n    return d\n",
        "pts = jnp.array([[0.0, 0.0], [3.0, 4.0]])\nprint(distance(pts[0], pts[1]))\n",
        "pairwise = jax.vmap(jax.vmap(distance, (None, 0)), (0, None))\nprint(pairwise(pts, pts))\n",
    ],
    "n08_eqx_notebook_ok.ipynb": [
        "import equinox as eqx\nimport jax\nimport jax.numpy as jnp\n",
        "class Poly(eqx.Module):\n    coeffs: jax.Array\n\n    def __call__(self, x):\n        return jnp.polyval(self.coeffs, x)\n",
        "p = Poly(jnp.array([1.0, 0.0, -1.0]))\nxs = jnp.linspace(-1, 1, 5)\nprint(eqx.filter_jit(eqx.filter_vmap(p))(xs))\n",
        "grads = eqx.filter_grad(lambda m: jnp.sum(m(xs) ** 2))(p)\nprint(grads.coeffs)\n",
    ],
}


def write_notebook(path: Path, cells: list[str]) -> None:
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
        "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    path.write_text(json.dumps(nb, indent=1) + "\n")


if __name__ == "__main__":
    out = Path(__file__).resolve().parent.parent / "programs"
    for name, cells in NOTEBOOKS.items():
        write_notebook(out / name, cells)

"""Latency of computing one code action's edits on a 2,000-line module (target: 50 ms).

Run: PYTHONPATH=$PWD python bench/codeaction_latency.py
"Cold" is a text never seen before (every unit parsed by `ast`); "warm" is the same text again,
as in the server, where the document was already analyzed for its diagnostics.
"""

from __future__ import annotations

import itertools
import statistics
import time

from jax_lsp.codeactions.pytree import pytree_fixes
from jax_lsp.codeactions.where_mask import mask_reduction_fixes

_BLOCK = '''

def helper_{i}(x, scale=2.0):
    """Scale and shift a batch ({i})."""
    y = jnp.asarray(x) * scale
    for k in range(3):
        y = y + k  # shift
    return jnp.where(y > 0, y, 0.0).sum()


class Layer{i}:
    def __init__(self, w, b, activate: bool):
        self.w = w
        self.b = b
        self.activate = activate

    def __call__(self, x):
        out = x @ self.w + self.b
        return jax.nn.relu(out) if self.activate else out
'''
_TARGET = """

class CustomClass:
    def __init__(self, x: jnp.ndarray, mul: bool):
        self.x = x
        self.mul = mul

    @jax.jit
    def calc(self, y):
        if self.mul:
            return self.x * y
        return y


@jax.jit
def masked_total(x):
    return x[x > 0].sum()
"""


def module_text(lines: int = 2000, salt: str = "") -> str:
    head = f"# {salt}\nimport jax\nimport jax.numpy as jnp\n"
    blocks = [head]
    i = 0
    while sum(b.count("\n") for b in blocks) < lines:
        blocks.append(_BLOCK.format(i=i))
        if i == 40:
            blocks.append(_TARGET)
        i += 1
    return "".join(blocks)


_SALTS = itertools.count(3)


def measure(action, text: str, needle: str, salted: bool, runs: int = 7) -> list[float]:
    times = []
    for _ in range(runs):
        # A salted text changes every unit, so none of them is in the parse cache.
        body = text.replace("scale=2.0", f"scale={next(_SALTS)}.0") if salted else text
        index = body.index(needle)
        line = body.count("\n", 0, index)
        column = index - body.rfind("\n", 0, index) - 1
        start = time.perf_counter()
        fixes = action(body, line, column)
        times.append((time.perf_counter() - start) * 1000)
        assert fixes, "no fix computed"
    return times


def main() -> None:
    text = module_text()
    print(f"module: {text.count(chr(10))} lines")
    for label, action, needle in (
        ("pytree (3 fixes)", pytree_fixes, "class CustomClass"),
        ("where-mask (2 fixes)", mask_reduction_fixes, "x[x > 0].sum()"),
    ):
        action(text, 0, 0)  # imports warmed
        for mode, salted in (("cold", True), ("warm", False)):
            times = measure(action, text, needle, salted)
            print(
                f"{label:22} {mode}: median {statistics.median(times):6.1f} ms, "
                f"max {max(times):6.1f} ms"
            )


if __name__ == "__main__":
    main()

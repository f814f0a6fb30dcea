"""Property: a random program of in-place updates on a `jnp` array, once fixed by `fix_text`
(safe fixes only), computes exactly what the same program computes on a NumPy array."""

from __future__ import annotations

import ast

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jax_lsp.analysis.document import Document
from jax_lsp.codeactions.apply import fix_text
from jax_lsp.diagnostics.inplace import RULES as INPLACE_RULES
from jax_lsp.engine import analyze
from tests.runtime import run_snippet

pytest.importorskip("jax")

SIZE = 6
_AUGMENTED = ["+=", "-=", "*=", "/=", "**="]
# Dyadic values: exact in float32 and float64 alike.
_VALUES = [0.25, 0.5, 1.0, 1.5, 2.0, 3.0]
_EXPONENTS = [0.5, 1.0, 2.0]


@st.composite
def indices(draw) -> tuple[str, slice | int]:
    """An index as source text, and the same index as a Python value."""
    if draw(st.booleans()):
        i = draw(st.integers(-SIZE, SIZE - 1))
        return str(i), i
    start = draw(st.integers(0, SIZE - 1))
    stop = draw(st.integers(start + 1, SIZE))
    step = draw(st.sampled_from([None, 1, 2]))
    text = f"{start}:{stop}" + (f":{step}" if step else "")
    return text, slice(start, stop, step)


@st.composite
def programs(draw) -> str:
    """A program updating `x` in place; drawn while simulating it so that every base of `**`
    is non-negative, every divisor non-zero and values stay small."""
    start = draw(st.lists(st.sampled_from([0.0, *_VALUES]), min_size=SIZE, max_size=SIZE))
    x = np.array(start)
    lines = ["import jax.numpy as jnp", "", f"x = jnp.array({start!r})"]
    for _ in range(draw(st.integers(1, 8))):
        text, index = draw(indices())
        form = draw(st.sampled_from([*_AUGMENTED, "minimum", "maximum", "="]))
        value = draw(st.sampled_from(_EXPONENTS if form == "**=" else _VALUES))
        if form == "**=" and (x[index] < 0).any():
            form = "+="
        if form in _AUGMENTED:
            lines.append(f"x[{text}] {form} {value}")
            x[index] = {
                "+=": np.add,
                "-=": np.subtract,
                "*=": np.multiply,
                "/=": np.divide,
                "**=": np.power,
            }[form](x[index], value)
        elif form == "=":
            lines.append(f"x[{text}] = {value}")
            x[index] = value
        else:
            lines.append(f"x[{text}] = jnp.{form}(x[{text}], {value})")
            x[index] = getattr(np, form)(x[index], value)
        if np.abs(x).max() > 1e3:
            break
    return "\n".join(lines) + "\n"


def _analyze(text: str):
    return analyze(Document(text), INPLACE_RULES).findings


@settings(max_examples=30, deadline=None)
@given(programs())
def test_fixed_program_computes_what_numpy_computes(program):
    fixed, applied = fix_text(program, _analyze)
    assert applied >= 1
    tree = ast.parse(fixed)
    assert not [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Store)
    ], fixed
    jax_run = run_snippet(fixed)
    numpy_run = run_snippet(program.replace("import jax.numpy as jnp", "import numpy as jnp"))
    assert jax_run.error is None and numpy_run.error is None, (jax_run.error, numpy_run.error)
    np.testing.assert_allclose(
        np.asarray(jax_run.namespace["x"]), numpy_run.namespace["x"], rtol=1e-5, err_msg=fixed
    )


def _divide_fix(program: str):
    (finding,) = _analyze(program)
    return finding.fix


def test_dividing_an_item_keeps_the_fix_safe_only_for_a_float_array():
    floats = "import jax.numpy as jnp\n\nx = jnp.zeros(3)\nx[1] /= 2\n"
    ints = "import jax.numpy as jnp\n\ncounts = jnp.array([4, 7, 8])\ncounts[1] /= 2\n"
    in_function = "import jax\n\n@jax.jit\ndef f(x):\n    x[0] /= 2\n    return x\n"

    assert _divide_fix(floats).is_safe
    # NumPy keeps [4, 3, 8] integer; `.at[1].divide(2)` gives the float array [4., 3.5, 8.].
    assert not _divide_fix(ints).is_safe
    assert not _divide_fix(in_function).is_safe  # the dtype of a parameter is not known
    numpy_counts = run_snippet(ints.replace("import jax.numpy as jnp", "import numpy as jnp"))
    fixed, _ = fix_text(ints, _analyze, unsafe=True)
    jax_counts = run_snippet(fixed)
    assert numpy_counts.namespace["counts"].dtype.kind == "i"
    assert jax_counts.namespace["counts"].dtype.kind == "f"  # why the fix is unsafe there

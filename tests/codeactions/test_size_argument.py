"""JAX802's fix under real JAX: where it is offered, the fixed program computes what its author
meant (the padding `size=` brings never reaches the answer: a length taken of the result becomes
the true count); where the padding would reach it (the result read as an index, reduced, its
shape taken, returned to a caller that counts it), no fix is offered."""

from __future__ import annotations

from pathlib import Path

import pytest

from jax_lsp.analysis.document import Document
from jax_lsp.diagnostics.shapes import RULES as SHAPE_RULES
from jax_lsp.engine import analyze
from tests.codeactions.helpers import fixed_and_run, source

pytest.importorskip("jax")

TRIALS = Path(__file__).parent.parent / "fixtures" / "trials"


def _findings(text: str):
    return [f for f in analyze(Document(text), SHAPE_RULES).findings if f.code == "JAX802"]


# (id, program, text the fixed program holds, check of the fixed program's result)
FIXED = [
    (
        "first-index",  # the first active index, as the tester meant
        (TRIALS / "p13_nonzero.py").read_text(),
        "size=spikes.size, fill_value=spikes.size",
        "assert _stdout.strip() == '1'",
    ),
    (
        "unique-count",  # the number of distinct values per row, as the tester meant
        (TRIALS / "q09_unique_in_vmap.py").read_text(),
        "jnp.count_nonzero(jnp.unique_counts(row, size=row.size).counts)",
        "assert _stdout.strip() == '[2 3]'",
    ),
    (
        "scatter-drops-padding",  # -1 padding would have zeroed the last element
        """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def zero_negatives(x):
            idx = jnp.nonzero(x < 0)[0]
            return x.at[idx].set(0.0)

        out = zero_negatives(jnp.array([-1.0, 2.0, 3.0]))
        """,
        "fill_value=x.size",
        "assert out.tolist() == [0.0, 2.0, 3.0]",
    ),
    (
        "argwhere-scatter-add",
        """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def bump(grid):
            cells = jnp.argwhere(grid > 0)
            return grid.at[cells[:, 0], cells[:, 1]].add(10)

        out = bump(jnp.array([[0, 1], [0, 0]]))
        """,
        "fill_value=grid.size",
        "assert out.tolist() == [[0, 11], [0, 0]]",
    ),
    (
        "count-of-nonzero",
        """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def active(x):
            return len(jnp.nonzero(x > 0)[0])

        out = active(jnp.array([1.0, -2.0, 3.0]))
        """,
        "return jnp.count_nonzero(x > 0)",
        "assert int(out) == 2",
    ),
    (
        "length-of-bound-result",  # len(u) counts the distinct values, not the padding
        """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def distinct(x):
            u = jnp.unique(x)
            return len(u)

        out = distinct(jnp.array([1, 2, 2]))
        """,
        "return jnp.count_nonzero(jnp.unique_counts(x, size=x.size).counts)",
        "assert int(out) == 2",
    ),
    (
        "neighbours-counted-in-the-function",
        """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def neighbour_count(positions, i, cutoff):
            distances = jnp.linalg.norm(positions - positions[i], axis=1)
            close = (distances < cutoff) & (distances > 0)
            (found,) = jnp.nonzero(close)
            return found.shape[0], found.size

        positions = jnp.array([[0.0, 0.0], [0.5, 0.0], [0.0, 0.5], [3.0, 3.0]])
        counts = [neighbour_count(positions, i, 1.0) for i in range(4)]
        """,
        "return jnp.count_nonzero(close), jnp.count_nonzero(close)",
        "assert [(int(a), int(b)) for a, b in counts] == [(2, 2), (2, 2), (2, 2), (0, 0)]",
    ),
]


@pytest.mark.parametrize(
    ("program", "expected", "check"), [c[1:] for c in FIXED], ids=[c[0] for c in FIXED]
)
def test_fixed_program_gives_the_intended_result(program, expected, check):
    text = source(program)
    assert _findings(text), "JAX802 should flag the call"
    fixed = fixed_and_run(text, _findings, expected, check)
    assert not _findings(fixed)


UNFIXABLE = [
    # The padded index is read: any padding reads a real element (the last, the first).
    ("read-as-index", (TRIALS / "p12_nonzero_in_jit.py").read_text()),
    (
        "read-inline",
        """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def picked(x):
            return x[jnp.flatnonzero(x > 0)].mean()
        """,
    ),
    (
        "returned-to-a-counting-caller",  # len() of the padded result is the size: 50.0
        """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def neighbours(positions, i, cutoff):
            distances = jnp.linalg.norm(positions - positions[i], axis=1)
            close = (distances < cutoff) & (distances > 0)
            return jnp.nonzero(close)[0]

        positions = jax.random.uniform(jax.random.key(0), (50, 2)) * 5.0
        counts = [len(neighbours(positions, i, 1.0)) for i in range(50)]
        print(sum(counts) / len(counts))
        """,
    ),
    (
        "bound-then-returned-to-a-mean",
        """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def labels(x):
            found = jnp.unique(x)
            return found

        spread = labels(jnp.array([3, 1, 1])).mean()
        """,
    ),
    (
        "reduced-result",  # padded with the smallest value: the mean changes
        """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def mean_label(x):
            return jnp.unique(x).mean()
        """,
    ),
    (
        "whole-shape-of-bound-result",
        """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def shape_of_hits(x):
            idx = jnp.flatnonzero(x > 0)
            return idx.shape
        """,
    ),
    (
        "count-argument-rebound",  # the count would read the new `mask`
        """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def active(x):
            mask = x > 0
            idx = jnp.flatnonzero(mask)
            mask = x > 1
            return len(idx) + mask.sum()
        """,
    ),
]


@pytest.mark.parametrize("program", [c[1] for c in UNFIXABLE], ids=[c[0] for c in UNFIXABLE])
def test_no_fix_where_the_padding_reaches_the_answer(program):
    findings = _findings(source(program))
    assert findings, "JAX802 should flag the call"
    assert all(f.fix is None and not f.alternatives for f in findings)


def test_padding_title_says_what_changes():
    text = source(
        """
        import jax
        import jax.numpy as jnp

        @jax.jit
        def labels(x):
            return jnp.unique(x)
        """
    )
    (finding,) = _findings(text)
    assert finding.fix.title == (
        "Pass `size=x.size` (always x.size entries, padded with the smallest value found)"
    )

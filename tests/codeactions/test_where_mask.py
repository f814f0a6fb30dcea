"""Boolean mask to `jnp.where`: exact in/out pairs, and the fixed code run under `jax.jit`."""

from __future__ import annotations

import ast

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from jax_lsp.analysis.reductions import IDENTITIES
from jax_lsp.codeactions.where_mask import mask_reduction_fixes, where_mask_fix
from jax_lsp.findings import Applicability
from tests.codeactions.helpers import applied, position_of, source
from tests.runtime import run_snippet

GUIDE_NANSUM = source(
    """
    import jax
    import jax.numpy as jnp


    def nansum(x):
        mask = ~jnp.isnan(x)  # boolean mask selecting non-nans
        x_without_nans = x[mask]
        return x_without_nans.sum()
    """
)

# (name, input, needle of the reduction call, fix index, expected output, applicability)
PAIRS = [
    (
        "method form, comment kept",
        """
        import jax.numpy as jnp

        total = x[x > 0].sum()  # positives only
        """,
        "x[x > 0]",
        0,
        """
        import jax.numpy as jnp

        total = jnp.where(x > 0, x, 0).sum()  # positives only
        """,
        Applicability.SAFE,
    ),
    (
        "function form",
        """
        import jax.numpy as jnp

        total = jnp.prod(x[~jnp.isnan(x)])
        """,
        "jnp.prod",
        0,
        """
        import jax.numpy as jnp

        total = jnp.prod(jnp.where(~jnp.isnan(x), x, 1))
        """,
        Applicability.SAFE,
    ),
    (
        "max is unsafe (dtype, empty mask)",
        """
        import jax.numpy as jnp

        top = x[mask].max()
        """,
        "x[mask]",
        0,
        """
        import jax.numpy as jnp

        top = jnp.where(mask, x, -jnp.inf).max()
        """,
        Applicability.UNSAFE,
    ),
    (
        "where= keyword form, with initial for min",
        """
        from jax import numpy as np

        low = np.min(x[x > 0])
        """,
        "np.min",
        1,
        """
        from jax import numpy as np

        low = np.min(x, where=x > 0, initial=np.inf)
        """,
        Applicability.UNSAFE,
    ),
    (
        "mean inside an expression is parenthesised",
        """
        import jax.numpy as jnp

        y = 2 * x[x != 0].mean() + 1
        """,
        "x[x != 0]",
        0,
        """
        import jax.numpy as jnp

        y = 2 * (jnp.where(x != 0, x, 0).sum() / (x != 0).sum()) + 1
        """,
        Applicability.SAFE,
    ),
    (
        "mean, function form, as a return value",
        """
        import jax.numpy as jnp

        def f(x, valid):
            return jnp.mean(x[valid])
        """,
        "jnp.mean",
        0,
        """
        import jax.numpy as jnp

        def f(x, valid):
            return jnp.sum(jnp.where(valid, x, 0)) / jnp.sum(valid)
        """,
        Applicability.UNSAFE,
    ),
    (
        "any; the import is added once, after the last import",
        """
        import jax
        from functools import partial

        flag = values[values > limit].any()
        """,
        "values[",
        0,
        """
        import jax
        from functools import partial

        flag = jax.numpy.where(values > limit, values, False).any()
        """,
        Applicability.SAFE,
    ),
    (
        "no jax import at all",
        """
        import numpy as np

        ok = x[x > 0].all()
        """,
        "x[x > 0]",
        0,
        """
        import numpy as np
        import jax.numpy as jnp

        ok = jnp.where(x > 0, x, True).all()
        """,
        Applicability.SAFE,
    ),
    (
        "guide nansum: the binding goes, the reduction reads x and mask",
        GUIDE_NANSUM,
        "x_without_nans.sum()",
        0,
        """
        import jax
        import jax.numpy as jnp


        def nansum(x):
            mask = ~jnp.isnan(x)  # boolean mask selecting non-nans
            return jnp.where(mask, x, 0).sum()
        """,
        Applicability.SAFE,
    ),
    (
        "code-point columns after non-ASCII text; import after the module docstring",
        '''
        """Totals."""

        总和 = x[x > 0].sum()  # 求和 😀
        ''',
        "x[x > 0]",
        0,
        '''
        """Totals."""

        import jax.numpy as jnp

        总和 = jnp.where(x > 0, x, 0).sum()  # 求和 😀
        ''',
        Applicability.SAFE,
    ),
    (
        "multi-line subscript keeps its inner layout",
        """
        import jax.numpy as jnp

        s = jnp.sum(
            x[x > 0]  # inner comment
        )
        """,
        "jnp.sum",
        0,
        """
        import jax.numpy as jnp

        s = jnp.sum(
            jnp.where(x > 0, x, 0)  # inner comment
        )
        """,
        Applicability.SAFE,
    ),
]


@pytest.mark.parametrize(
    ("name", "before", "needle", "index", "after", "safety"), PAIRS, ids=[p[0] for p in PAIRS]
)
def test_in_out_pairs(name, before, needle, index, after, safety):
    text = source(before)
    fixes = mask_reduction_fixes(text, *position_of(text, needle))
    assert applied(text, fixes[index]) == source(after)
    assert fixes[index].applicability is safety
    ast.parse(applied(text, fixes[index]))


@pytest.mark.parametrize(
    ("call", "written"),
    [
        ("arr[m].sum()", "jnp.where(m, arr, 0)"),
        ("jnp.prod(arr[arr > 0])", "jnp.where(arr > 0, arr, 1)"),
        ("arr[~jnp.isnan(arr)].max()", "jnp.where(~jnp.isnan(arr), arr, -jnp.inf)"),
        ("arr[m].mean()", "jnp.where(m, arr, 0).sum() / m.sum()"),
    ],
)
def test_the_title_names_what_the_fix_writes(call: str, written: str):
    text = f"import jax.numpy as jnp\n\ntotal = {call}\n"
    fix = mask_reduction_fixes(text, *position_of(text, call))[0]
    assert fix.title == f"Replace the boolean mask with `{written}`"
    assert written in applied(text, fix)


@pytest.mark.parametrize(
    "text",
    [
        "import jax.numpy as jnp\n\ny = x[mask]\n",  # bare boolean index: advice only
        "import jax.numpy as jnp\n\ny = x[mask].sum(axis=0)\n",  # extra arguments
        "import jax.numpy as jnp\n\ny = x[1:3].sum()\n",  # a slice, not a mask
        "import numpy as np\n\ny = np.sum(x[mask])\n",  # NumPy is not jnp
    ],
)
def test_no_rewrite(text):
    line = text.count("\n", 0, text.index("y = ")) if "y = " in text else 0
    assert mask_reduction_fixes(text, line, 4) == ()


def test_binding_used_twice_is_not_inlined():
    text = source(
        """
        def f(x, mask):
            kept = x[mask]
            return kept.sum() / kept.size
        """
    )
    assert where_mask_fix(text, *position_of(text, "kept.sum()")) is None


def test_guide_nansum_fixed_runs_under_jit():
    buggy = run_snippet(GUIDE_NANSUM + "jax.jit(nansum)(jnp.array([1, 2, jnp.nan, 3, 4]))\n")
    assert isinstance(buggy.error, jax.errors.NonConcreteBooleanIndexError)
    for fix in mask_reduction_fixes(GUIDE_NANSUM, *position_of(GUIDE_NANSUM, "x_without_nans.sum")):
        fixed = applied(GUIDE_NANSUM, fix)
        outcome = run_snippet(
            fixed, "assert float(jax.jit(nansum)(jnp.array([1, 2, jnp.nan, 3, 4]))) == 10.0"
        )
        assert outcome.error is None, (fix.title, outcome.error)


def _compiled_fixes(reduction: str, form: str) -> list:
    """The eager buggy function and each fix of it, jitted."""
    call = f"x[mask].{reduction}()" if form == "method" else f"jnp.{reduction}(x[mask])"
    text = f"import jax.numpy as jnp\n\n\ndef reduce(x, mask):\n    return {call}\n"
    functions = []
    for fix in mask_reduction_fixes(text, *position_of(text, call)):
        outcome = run_snippet(applied(text, fix))
        assert outcome.error is None
        functions.append(jax.jit(outcome.namespace["reduce"]))
    assert len(functions) == 2
    return [run_snippet(text).namespace["reduce"], *functions]


COMPILED = {
    (reduction, form): _compiled_fixes(reduction, form)
    for reduction in IDENTITIES
    for form in ("method", "function")
}
# One shape, so each jitted function compiles once.
_SIZE = 8
_floats = hnp.arrays(
    np.float32,
    _SIZE,
    elements=st.floats(-1e3, 1e3, allow_nan=False, width=32),
)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(values=_floats, data=st.data())
def test_fixed_reductions_equal_eager_boolean_index(values, data):
    mask = data.draw(hnp.arrays(np.bool_, values.shape))
    x, m = jnp.asarray(values), jnp.asarray(mask)
    for (reduction, _), (eager, *fixed) in COMPILED.items():
        for function in fixed:
            if reduction in ("max", "min") and not mask.any():
                # Documented difference: eager raises on an empty selection, the fix gives the
                # identity (-inf for max, inf for min).
                with pytest.raises(ValueError):
                    eager(x, m)
                assert float(function(x, m)) == (-np.inf if reduction == "max" else np.inf)
                continue
            expected, actual = eager(x, m), function(x, m)
            if reduction == "mean" and not mask.any():
                assert np.isnan(expected) and np.isnan(actual)
                continue
            np.testing.assert_allclose(actual, expected, rtol=1e-5, atol=1e-3)
            assert actual.dtype == expected.dtype


@given(values=hnp.arrays(np.int32, _SIZE, elements=st.integers(-50, 50)))
@settings(max_examples=30, deadline=None)
def test_integer_sums_are_exact(values):
    eager, where_fix, keyword_fix = COMPILED[("sum", "method")]
    x = jnp.asarray(values)
    m = x > 0
    assert int(where_fix(x, m)) == int(keyword_fix(x, m)) == int(eager(x, m))

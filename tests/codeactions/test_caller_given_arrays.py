"""A helper traced only because a jitted caller passes it a JAX array (`step` calls
`zero_first(params)`) may be called by untraced code too, with a NumPy array: rewriting its
in-place update to `.at[...]` (or `jnp.where`) would break those callers, so the fix is unsafe
(shown, left out of `--fix`). An array the helper makes itself with `jnp`, or a parameter of
the jitted function itself, is a JAX array whoever calls: the fix stays safe. The same holds
for JAX701's `jnp.where` and JAX702's `jnp.logical_*` rewrites, which turn a NumPy caller's
values into JAX arrays. Run under JAX."""

from __future__ import annotations

from pathlib import Path

import jax
import numpy as np
import pytest

from jax_lsp.codeactions import with_deferred_fixes
from jax_lsp.codeactions.apply import apply_edits
from jax_lsp.config import Settings
from jax_lsp.engine import check_source, fix_source
from jax_lsp.lsp.conversion import deferred_of, to_diagnostic
from jax_lsp.workspace import Workspace
from tests.codeactions.helpers import source
from tests.runtime import run_snippet

REPORTED = source(
    """
    import jax
    import numpy as np

    def zero_first(x):
        x[0] = 0.0
        return x

    @jax.jit
    def step(params):
        return zero_first(params)

    def preprocess(batch):
        return zero_first(np.asarray(batch, dtype=np.float32).copy())
    """
)


def _fixes(text: str, path: str = "m.py", workspace: Workspace | None = None) -> dict:
    analysis = check_source(text, path, Settings(), workspace)
    return {(f.span.start.line + 1, f.code): f.fix for f in analysis.findings if f.fix}


def test_the_reported_helper_keeps_its_finding_and_gets_an_unsafe_fix():
    ((place, fix),) = _fixes(REPORTED).items()
    assert place == (5, "JAX201") and not fix.is_safe
    assert fix_source(REPORTED, "m.py", Settings()) == (REPORTED, 0)


def test_the_rewrite_would_break_the_numpy_caller():
    """Why it is unsafe: the original serves NumPy callers, the rewrite raises for them."""
    check = "out = preprocess([1.0, 2.0]).tolist()"
    assert run_snippet(REPORTED, check).namespace["out"] == [0.0, 2.0]
    fixed, applied = fix_source(REPORTED, "m.py", Settings(), unsafe=True)
    assert applied == 1 and "x = x.at[0].set(0.0)" in fixed
    assert isinstance(run_snippet(fixed, check).error, AttributeError)
    traced = run_snippet(fixed, "import jax.numpy as jnp\nout = step(jnp.ones(2)).tolist()")
    assert traced.error is None and traced.namespace["out"] == [0.0, 1.0]


HEADER = "import jax\nimport jax.numpy as jnp\n\n\n"
CALLER = "\n\n@jax.jit\ndef step(params):\n    return helper(params)\n"

# (the helper called from a jitted function, whether its one fix is safe)
CASES = {
    "item assignment of a parameter": ("def helper(x):\n    x[0] = 0.0\n    return x\n", False),
    "augmented update of a parameter": ("def helper(x):\n    x[0] += 1.0\n    return x\n", False),
    "masked assignment of a parameter": (
        "def helper(x):\n    x[x > 0] = 0.0\n    return x\n",
        False,
    ),
    "a value computed from a parameter": (
        "def helper(x):\n    y = x * 2\n    y[0] = 0.0\n    return y\n",
        False,
    ),
    "the parameter made a JAX array": (
        "def helper(x):\n    y = jnp.asarray(x)\n    y[0] = 0.0\n    return y\n",
        True,
    ),
    "an array the helper makes": (
        "def helper(x):\n    y = jnp.zeros(3)\n    y[0] += 1.0\n    return x + y\n",
        True,
    ),
}


@pytest.mark.parametrize(("helper", "safe"), CASES.values(), ids=CASES.keys())
def test_a_fix_is_safe_only_for_an_array_that_is_jax_whoever_calls(helper, safe):
    ((_, fix),) = _fixes(HEADER + helper + CALLER).items()
    assert fix.is_safe is safe, fix.title


def test_the_parameters_of_the_jitted_function_itself_keep_their_safe_fix():
    text = HEADER + "@jax.jit\ndef step(x):\n    x[0] = 0.0\n    x[x > 0] = 0.0\n    return x\n"
    fixes = _fixes(text)
    assert sorted(fixes) == [(7, "JAX201"), (8, "JAX201")]
    assert all(fix.is_safe for fix in fixes.values())


def _project(root: Path, train: str) -> dict:
    (root / "pkg").mkdir()
    (root / "pkg" / "__init__.py").write_text("")
    utils = "def zero_first(x):\n    x[0] = 0.0\n    return x\n"
    (root / "pkg" / "utils.py").write_text(utils)
    (root / "pkg" / "train.py").write_text(source(train))
    return _fixes(utils, str(root / "pkg" / "utils.py"), Workspace(str(root)))


def test_a_helper_of_another_module_called_from_a_jitted_function_gets_an_unsafe_fix(tmp_path):
    fixes = _project(
        tmp_path,
        """
        import jax
        import numpy as np

        from pkg.utils import zero_first

        @jax.jit
        def step(params):
            return zero_first(params)

        def preprocess(batch):
            return zero_first(np.asarray(batch, dtype=np.float32).copy())
        """,
    )
    assert [(place, fix.is_safe) for place, fix in fixes.items()] == [((2, "JAX201"), False)]


def test_a_helper_of_another_module_jitted_itself_keeps_its_safe_fix(tmp_path):
    fixes = _project(
        tmp_path,
        """
        import jax

        from pkg.utils import zero_first

        step = jax.jit(zero_first)
        """,
    )
    assert [(place, fix.is_safe) for place, fix in fixes.items()] == [((2, "JAX201"), True)]


def test_the_unsafe_fix_still_rewrites_when_asked():
    (fix,) = _fixes(REPORTED).values()
    assert "x = x.at[0].set(0.0)" in apply_edits(REPORTED, fix.edits)


MASKED = HEADER + source(
    """
    def positive_sum(x):
        return x[x > 0].sum()

    @jax.jit
    def step(params):
        return positive_sum(params)

    @jax.jit
    def direct(x):
        return x[x > 0].sum()
    """
)


def _mask_fixes(text: str) -> dict[int, tuple[bool, ...]]:
    """The safety of each JAX801 finding's reduction rewrites, by line."""
    analysis = check_source(text, "m.py", Settings())
    found = {}
    for finding in analysis.findings:
        built = with_deferred_fixes(finding, text)
        fixes = (built.fix, *built.alternatives)
        found[finding.span.start.line + 1] = tuple(fix.is_safe for fix in fixes if fix)
    return found


def test_a_masked_reduction_of_a_callers_array_is_rewritten_unsafely_only():
    """JAX801's `jnp.where` rewrite would give an untraced caller's NumPy array back as a
    JAX array (in 32 bits): unsafe in the helper, safe in the jitted function itself."""
    assert _mask_fixes(MASKED) == {6: (False, False), 14: (True, True)}


def test_the_unsafe_codemod_keeps_its_safety_through_the_servers_diagnostic_data():
    """The server builds a deferred codemod from the diagnostic's data when asked: the
    rule's word that its fixes are unsafe must come back with it."""
    analysis = check_source(MASKED, "m.py", Settings())
    lines = MASKED.splitlines()
    for finding in analysis.findings:
        diagnostic = to_diagnostic(finding, lines, "utf-16", 1)
        assert deferred_of(diagnostic) == list(finding.deferred)
    assert [d.unsafe for f in analysis.findings for d in f.deferred] == [True, False]


SELECTED = source(
    """
    import jax
    import jax.numpy as jnp
    import numpy as np

    def relu(x):
        if x > 0:
            return x
        return 0.0 * x

    @jax.jit
    def step(params):
        return relu(params)

    def preprocess(value):
        return relu(np.float32(value))
    """
)


def test_a_branch_on_a_callers_array_is_rewritten_unsafely_only():
    """JAX701's `jnp.where` rewrite in the helper gives its NumPy caller a JAX array where the
    `if` gave the NumPy scalar back: unsafe, left out of `--fix`."""
    ((place, fix),) = _fixes(SELECTED).items()
    assert place == (6, "JAX701") and not fix.is_safe
    check = "out = preprocess(2.0)"
    assert isinstance(run_snippet(SELECTED, check).namespace["out"], np.float32)
    fixed, applied = fix_source(SELECTED, "m.py", Settings(), unsafe=True)
    assert applied == 1 and "jnp.where(" in fixed
    assert isinstance(run_snippet(fixed, check).namespace["out"], jax.Array)


# (the helper called from a jitted function, whether its one fix is safe)
LOGIC_CASES = {
    "`if` on a parameter": (
        "def helper(x):\n    if x > 0:\n        return x\n    return -x\n",
        False,
    ),
    "`if` on an array the helper makes": (
        "def helper(x):\n    y = jnp.asarray(x)\n    if y > 0:\n        return y\n    return -y\n",
        True,
    ),
    "`and` of a parameter's comparisons": (
        "def helper(x):\n    return x > 0 and x < 1\n",
        False,
    ),
    "`and` of comparisons of an array the helper makes": (
        "def helper(x):\n    y = jnp.asarray(x)\n    return y > 0 and y < 1\n",
        True,
    ),
}


@pytest.mark.parametrize(("helper", "safe"), LOGIC_CASES.values(), ids=LOGIC_CASES.keys())
def test_a_branch_or_logic_fix_is_safe_only_for_values_jax_whoever_calls(helper, safe):
    ((_, fix),) = _fixes(HEADER + helper + CALLER).items()
    assert fix.is_safe is safe, fix.title


def test_a_branch_in_the_jitted_function_itself_keeps_its_safe_fix():
    text = HEADER + "@jax.jit\ndef step(x):\n    if x > 0:\n        return x\n    return -x\n"
    ((_, fix),) = _fixes(text).items()
    assert fix.is_safe

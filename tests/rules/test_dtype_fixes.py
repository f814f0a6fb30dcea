"""JAX901's fixes: the 32-bit dtype (main) and enabling x64 for the program (alternative), both
unsafe: one drops the request for 64 bits, the other changes every default dtype."""

from __future__ import annotations

import pytest

from jax_lsp.codeactions.apply import apply_edits, fix_text
from jax_lsp.findings import Applicability
from tests.codeactions.helpers import source
from tests.conftest import findings_of
from tests.runtime import run_snippet

PROGRAM = source(
    """
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax.numpy import float64

    def make(key, x):
        a = jnp.zeros(3, dtype=jnp.float64)  # zeros
        b = jax.random.uniform(key, (3,), dtype=np.double)
        c = jnp.asarray(x).astype('f8')
        d = jnp.ones(2, dtype=float64)
        e = jnp.float64(1.5)
        f = jnp.arange(3, dtype="int64")
        return a, b, c, d, e, f

    out = make(jax.random.key(0), [1.0])
    """
)
# `float32` is not imported beside `float64`: that one keeps only the unsafe fix.
NARROWINGS = [
    ("dtype=jnp.float64", "dtype=jnp.float32"),
    ("dtype=np.double", "dtype=np.float32"),
    ("astype('f8')", "astype('f4')"),
    ("jnp.float64(1.5)", "jnp.float32(1.5)"),
    ('dtype="int64"', 'dtype="int32"'),
]
NARROWED = PROGRAM
for wide, narrow in NARROWINGS:
    NARROWED = NARROWED.replace(wide, narrow)


def test_main_fix_asks_for_the_32_bit_dtype_and_is_unsafe():
    findings = findings_of(PROGRAM, ("JAX901",))
    assert len(findings) == 6
    assert all(not fix.is_safe for f in findings for fix in (f.fix, *f.alternatives))
    fixes = [f.fix for f in findings if "what JAX computes in now" in f.fix.title]
    assert len(fixes) == 5
    assert fixes[0].title == (
        "Use `jnp.float32` (what JAX computes in now; drops the request for 64 bits)"
    )
    fixed = apply_edits(PROGRAM, [edit for fix in fixes for edit in fix.edits])
    assert fixed == NARROWED and fixed != PROGRAM
    (unnarrowed,) = [f for f in findings if f.fix not in fixes]
    assert "64-bit mode" in unnarrowed.fix.title and not unnarrowed.alternatives


def test_safe_fixes_leave_the_requested_dtype_alone():
    """`--fix` without `--unsafe-fixes` must not erase a request for float64."""
    text = source(
        """
        import jax.numpy as jnp

        a = jnp.zeros(3, dtype="float64")
        """
    )
    fixed, applied = fix_text(text, lambda t: findings_of(t, ("JAX901",)), False)
    assert applied == 0 and fixed == text


def test_enable_x64_is_offered_when_only_jax_numpy_is_imported():
    text = source(
        """
        import jax.numpy as jnp
        import numpy as np

        a = jnp.zeros(3, dtype="float64")
        c = jnp.float64(1.0) + 1e-10
        """
    )
    findings = findings_of(text, ("JAX901",))
    assert len(findings) == 2
    for finding in findings:
        (enable,) = [fix for fix in finding.alternatives if "64-bit mode" in fix.title]
        fixed = apply_edits(text, list(enable.edits))
        assert fixed == text.replace(
            "import numpy as np\n",
            'import numpy as np\nimport jax\njax.config.update("jax_enable_x64", True)\n',
        )
        assert findings_of(fixed, ("JAX901",)) == []


def test_enabling_x64_is_the_unsafe_alternative_and_says_so():
    for finding in findings_of(PROGRAM, ("JAX901",)):
        enable = [fix for fix in (finding.fix, *finding.alternatives) if "64-bit" in fix.title]
        assert len(enable) == 1 and enable[0].applicability is Applicability.UNSAFE
        assert "whole program" in enable[0].title
        assert 'jax.config.update("jax_enable_x64", True)' in enable[0].edits[0].content


def test_narrowed_program_computes_what_it_did():
    pytest.importorskip("jax")
    check = "assert [v.dtype.name for v in out] == ['float32'] * 5 + ['int32']"
    before = run_snippet(PROGRAM, check)
    after = run_snippet(NARROWED, check)
    assert before.error is None and after.error is None, (before.error, after.error)
    for old, new in zip(before.namespace["out"], after.namespace["out"], strict=True):
        assert old.tolist() == new.tolist()

"""JAX901's fixes: enabling x64 for the program (main, the JAX guide's advice: the author asked
for 64 bits) and the 32-bit dtype (alternative), both unsafe: one changes every default dtype,
the other drops the request for 64 bits."""

from __future__ import annotations

import subprocess
import sys

import pytest

from jax_lsp.codeactions.apply import apply_edits, fix_text
from jax_lsp.findings import Applicability
from tests.codeactions.helpers import main_fixes_only, source
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


def test_main_fix_enables_x64_and_the_alternative_asks_for_the_32_bit_dtype():
    findings = findings_of(PROGRAM, ("JAX901",))
    assert len(findings) == 6
    assert all(not fix.is_safe for f in findings for fix in (f.fix, *f.alternatives))
    assert all("64-bit mode" in f.fix.title for f in findings)
    narrowings = [fix for f in findings for fix in f.alternatives]
    assert all("what JAX computes in now" in fix.title for fix in narrowings)
    assert len(narrowings) == 5
    assert narrowings[0].title == (
        "Use `jnp.float32` (what JAX computes in now; drops the request for 64 bits)"
    )
    fixed = apply_edits(PROGRAM, [edit for fix in narrowings for edit in fix.edits])
    assert fixed == NARROWED and fixed != PROGRAM
    (unnarrowed,) = [f for f in findings if not f.alternatives]
    assert "64-bit mode" in unnarrowed.fix.title


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
        enable = finding.fix
        assert "64-bit mode" in enable.title
        fixed = apply_edits(text, list(enable.edits))
        assert fixed == text.replace(
            "import numpy as np\n",
            'import numpy as np\nimport jax\njax.config.update("jax_enable_x64", True)\n',
        )
        assert findings_of(fixed, ("JAX901",)) == []


def test_enabling_x64_is_the_unsafe_main_fix_and_says_so():
    for finding in findings_of(PROGRAM, ("JAX901",)):
        enable = [fix for fix in (finding.fix, *finding.alternatives) if "64-bit" in fix.title]
        assert enable == [finding.fix] and finding.fix.applicability is Applicability.UNSAFE
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


@pytest.mark.slow  # the fixed program runs in a subprocess: x64 is switched for good
def test_enabled_program_computes_in_64_bits():
    """The main fix in place, the dtype asked for is the one JAX computes in (and the 64-bit
    warning is gone): run apart, since the switch holds for the whole process."""
    pytest.importorskip("jax")
    text = source(
        """
        import jax.numpy as jnp
        import warnings

        warnings.simplefilter("error")  # the truncation warning would fail the run
        x = jnp.zeros(3, dtype=jnp.float64) + 1e-10
        n = jnp.arange(3, dtype="int64")
        print(x.dtype, n.dtype, float(x[0]) == 1e-10)
        """
    )
    for finding in findings_of(text, ("JAX901",)):
        assert "64-bit mode" in finding.fix.title
    fixed, applied = fix_text(text, main_fixes_only(lambda t: findings_of(t, ("JAX901",))), True)
    assert applied == 2 and fixed.count("jax_enable_x64") == 1
    assert fixed.index("jax_enable_x64") < fixed.index("jnp.zeros")
    run = subprocess.run([sys.executable, "-c", fixed], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == ["float64", "int64", "True"]
    before = subprocess.run(
        [sys.executable, "-c", text.replace('"error"', '"ignore"')],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert before.stdout.split() == ["float32", "int32", "False"], before.stderr

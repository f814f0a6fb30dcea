"""`static_argnames` added to a `f = jax.jit(f, ...)` statement of its own: the on-demand fix
JAX701/703/803 name when the function is jitted outside its `def`."""

from __future__ import annotations

from jax_lsp.analysis.document import Document
from jax_lsp.codeactions import with_deferred_fixes
from jax_lsp.codeactions.apply import fix_text
from jax_lsp.codeactions.static_argnames import static_jit_fixes
from jax_lsp.diagnostics import RULES_BY_CODE
from jax_lsp.engine import analyze
from jax_lsp.findings import Applicability
from tests.codeactions.helpers import applied, position_of, source
from tests.runtime import run_snippet

PROGRAM = source(
    """
    import jax
    import jax.numpy as jnp


    def padded(x, n):
        return jnp.concatenate([x, jnp.zeros(n)])  # pad


    def window(x, start: int, width: int):
        if width > 3:
            return x
        return x[start : start + 2]


    padded_jit = jax.jit(padded)
    window_jit = jax.jit(
        window,
        static_argnames='width',  # a setting
    )
    out = padded_jit(jnp.ones(3), 2), window_jit(jnp.arange(6.0), 1, 2)
    """
)


def test_keyword_added_to_the_jit_call():
    fixes = static_jit_fixes(PROGRAM, *position_of(PROGRAM, "n)])"))
    assert [fix.applicability for fix in fixes] == [Applicability.UNSAFE]
    assert applied(PROGRAM, fixes[0]) == PROGRAM.replace(
        "jax.jit(padded)", 'jax.jit(padded, static_argnames=("n",))'
    )


def test_existing_string_extended_in_its_quotes():
    fixes = static_jit_fixes(PROGRAM, *position_of(PROGRAM, "start :"))
    assert applied(PROGRAM, fixes[0]) == PROGRAM.replace(
        "static_argnames='width',", "static_argnames=('width', 'start'),"
    )


def test_no_fix_for_arrays_several_jits_or_argnums():
    text = source(
        """
        import jax
        import jax.numpy as jnp

        def f(x, n):
            return jnp.zeros(n) + x[0]

        def g(x, n):
            return jnp.zeros(x) * x.sum()

        def h(x, n):
            return jnp.zeros(n)

        f_jit = jax.jit(f)
        g_jit = jax.jit(g)
        h1 = jax.jit(h)
        h2 = jax.jit(h, static_argnums=0)
        """
    )
    assert static_jit_fixes(text, *position_of(text, "x[0]")) == ()
    assert static_jit_fixes(text, *position_of(text, "x) *")) == ()
    assert static_jit_fixes(text, *position_of(text, "n)\n")) == ()


def test_findings_name_the_codemod_and_the_fixed_program_runs():
    rules = (RULES_BY_CODE["JAX803"],)
    findings = analyze(Document(PROGRAM), rules).findings
    assert [f.deferred[0].codemod for f in findings] == ["static_jit", "static_jit"]
    built = with_deferred_fixes(findings[0], PROGRAM)
    assert built.fix is not None and "static_argnames" in built.fix.title
    assert isinstance(run_snippet(PROGRAM).error, TypeError)
    fixed, count = fix_text(PROGRAM, lambda t: analyze(Document(t), rules).findings, True)
    assert count == 2
    outcome = run_snippet(fixed, "assert out[0].shape == (5,) and out[1].tolist() == [1.0, 2.0]")
    assert outcome.error is None, outcome.error


def test_no_static_fix_when_the_condition_reads_a_traced_local():
    """`if norm > max_norm` with `norm` computed from traced arguments: making `max_norm`
    static leaves `norm` traced and the error where it was, so no such fix is offered."""
    text = source(
        """
        import jax
        import jax.numpy as jnp


        @jax.jit
        def clipped(grads, max_norm):
            norm = jnp.sqrt(jnp.sum(grads**2))
            return grads * (max_norm / norm) if norm > max_norm else grads
        """
    )
    findings = analyze(Document(text), [RULES_BY_CODE["JAX701"]]).findings
    (finding,) = [f for f in findings if f.code == "JAX701"]
    offered = [f for f in (finding.fix, *finding.alternatives) if f is not None]
    assert offered, "the (unsafe: a division) jnp.where rewrite is still offered"
    assert not [fix for fix in offered if "static" in fix.title]
    fixed, _ = fix_text(
        text, lambda t: analyze(Document(t), [RULES_BY_CODE["JAX701"]]).findings, unsafe=True
    )
    outcome = run_snippet(fixed, "out = clipped(jnp.array([3.0, 4.0]), 1.0)")
    assert outcome.error is None, f"{outcome.error!r}\n{fixed}"
    assert abs(float(outcome.namespace["out"][0]) - 0.6) < 1e-6

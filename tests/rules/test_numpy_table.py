"""JAX703's table of NumPy (and SciPy) functions that fail on a tracer, checked against the
installed NumPy, SciPy and JAX, and each of its positions reported in a jitted function."""

from __future__ import annotations

import pytest

from jax_lsp.analysis.document import Document
from jax_lsp.analysis.numpy_tracers import RETURNS_TRACERS
from jax_lsp.codeactions.numpy_to_jnp import jnp_name
from jax_lsp.diagnostics import ALL_RULES
from jax_lsp.diagnostics.numpy_table import CONVERTS_TRACERS, FAILS_TO_COMPILE
from jax_lsp.engine import analyze
from tests.rules import numpy_probe, numpy_tracer_probe
from tests.runtime import run_snippet

pytestmark = pytest.mark.slow  # the table checked call by call against the installed NumPy and JAX

pytest.importorskip("jax")

CANDIDATES = numpy_probe.candidates()


@pytest.mark.parametrize(("qualname", "target"), CANDIDATES, ids=[q for q, _ in CANDIDATES])
def test_table_matches_installed_numpy_and_jax(qualname, target):
    """(Regenerate with `python -m tests.rules.numpy_probe --write` when this fails after
    an upgrade.)"""
    assert numpy_probe.converting_positions(target) == CONVERTS_TRACERS.get(qualname, ())


# The probed modules (the tables name `scipy.special.erf` as written after these imports).
_IMPORTS = "import jax\nimport numpy as np\nimport scipy.integrate, scipy.special\n"
ENTRIES = [(q, p) for q, positions in sorted(CONVERTS_TRACERS.items()) for p in positions]


@pytest.mark.parametrize(("qualname", "position"), ENTRIES, ids=[f"{q}-{p}" for q, p in ENTRIES])
def test_traced_argument_is_reported(qualname: str, position: int):
    args = ", ".join("x" if index == position else "HOST" for index in range(position + 1))
    source = (
        f"{_IMPORTS}\nHOST = np.ones(2)\n\n\n@jax.jit\ndef probe(x):\n"
        f"    return {qualname.replace('numpy.', 'np.', 1)}({args})\n"
    )
    findings = analyze(Document(source), ALL_RULES).findings
    assert "JAX703" in {f.code for f in findings if f.span.start.line == 9}, source


def test_host_values_are_not_reported():
    calls = "\n".join(
        f"    {q.replace('numpy.', 'np.', 1)}(HOST, x.shape[0])" for q in sorted(CONVERTS_TRACERS)
    )
    source = f"{_IMPORTS}\nHOST = np.ones(2)\n\n\n@jax.jit\ndef probe(x):\n{calls}\n    return x\n"
    findings = analyze(Document(source), ALL_RULES).findings
    assert [f for f in findings if f.code == "JAX703"] == []


def test_compile_table_matches_installed_numpy_and_jax():
    """The calls that trace but fail when jit compiles them (`np.argsort`: NumPy passes
    `stable=None` to the array's method); `jax.eval_shape` alone never sees them."""
    assert numpy_probe.measure_compiled() == FAILS_TO_COMPILE
    assert "numpy.argsort" in FAILS_TO_COMPILE


COMPILED = [(q, p) for q, positions in sorted(FAILS_TO_COMPILE.items()) for p in positions]


@pytest.mark.parametrize(("qualname", "position"), COMPILED, ids=[f"{q}-{p}" for q, p in COMPILED])
def test_traced_argument_that_fails_to_compile_is_reported_and_fails(qualname, position):
    args = ", ".join("x" if index == position else "HOST" for index in range(position + 1))
    call = f"{qualname.replace('numpy.', 'np.', 1)}({args})"
    source = (
        "import jax\nimport jax.numpy as jnp\nimport numpy as np\n\nHOST = np.ones(2)\n\n\n"
        f"@jax.jit\ndef probe(x):\n    return {call}\n"
    )
    findings = analyze(Document(source), ALL_RULES).findings
    assert "JAX703" in {f.code for f in findings if f.span.start.line == 9}, source
    outcome = run_snippet(source + "\nprobe(jnp.array([0.5, 0.25]))\n")
    assert isinstance(outcome.error, TypeError), outcome.error


@pytest.mark.parametrize(("qualname", "target"), CANDIDATES, ids=[q for q, _ in CANDIDATES])
def test_tracer_table_matches_installed_numpy_and_jax(qualname, target):
    """The NumPy functions that hand a tracer back (`np.all(x)` calls `x.all()`): the value
    model's table. (Regenerate with `python -m tests.rules.numpy_tracer_probe --write`.)"""
    assert numpy_tracer_probe.tracer_positions(target) == RETURNS_TRACERS.get(qualname, ())


RETURNING = [(q, p) for q, positions in sorted(RETURNS_TRACERS.items()) for p in positions]


@pytest.mark.parametrize(
    ("qualname", "position"), RETURNING, ids=[f"{q}-{p}" for q, p in RETURNING]
)
def test_result_of_a_traced_argument_is_traced(qualname: str, position: int):
    """What comes back is a tracer: a Python branch on it is reported, and NumPy's own
    result (of host arrays) is not."""
    traced = ", ".join("x" if index == position else "HOST" for index in range(position + 1))
    host = ", ".join("HOST" for _ in range(position + 1))
    call = qualname.replace("numpy.", "np.", 1)
    source = (
        "import jax\nimport numpy as np\n\nHOST = np.ones(2)\n\n\n@jax.jit\ndef probe(x):\n"
        f"    if {call}({traced}):\n        return x\n"
        f"    if {call}({host}):\n        return x\n    return x\n"
    )
    findings = analyze(Document(source), ALL_RULES).findings
    assert {(f.span.start.line, f.code) for f in findings if f.code == "JAX701"} == {
        (8, "JAX701")
    }, source


@pytest.mark.parametrize("qualname", sorted(q for q in CONVERTS_TRACERS if q.startswith("numpy.")))
def test_fix_names_a_jax_numpy_function(qualname: str):
    """JAX703's fix turns `np.name(...)` into `jnp.name(...)` only where `jax.numpy` has that
    name (`np.fft.fft` -> `jnp.fft.fft`; nothing for `np.ma.masked_array`)."""
    import jax.numpy as jnp

    target: object = jnp
    for part in qualname.removeprefix("numpy.").split("."):
        target = getattr(target, part, None)
    name = jnp_name(qualname)
    assert (name is not None) == callable(target), (qualname, name)

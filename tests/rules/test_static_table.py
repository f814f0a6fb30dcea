"""The table of parameters that must be static (JAX703/JAX803), checked against the installed
JAX, and every entry of it detected by the rules in a jitted function."""

from __future__ import annotations

import inspect

import pytest

from jax_lsp.analysis.document import Document
from jax_lsp.diagnostics import ALL_RULES
from jax_lsp.diagnostics.static_arguments import UNLESS_KEYWORD
from jax_lsp.diagnostics.static_parameters import METHOD_PARAMETERS, STATIC_PARAMETERS
from jax_lsp.engine import analyze
from tests.rules import static_probe
from tests.rules.static_probe import CALLS, Array, Code

pytestmark = pytest.mark.slow  # the table checked call by call against the installed JAX

pytest.importorskip("jax")


@pytest.mark.parametrize("qualname", sorted(CALLS))
def test_table_matches_installed_jax(qualname: str):
    """Each function's static parameters as JAX raises today (regenerate the table with
    `python -m tests.rules.static_probe --write` when this fails after an upgrade)."""
    measured = static_probe.measure_one(qualname)
    assert STATIC_PARAMETERS.get(qualname, ()) == measured


def test_method_table_matches_installed_jax():
    assert static_probe.measure_methods() == METHOD_PARAMETERS


def test_every_entry_was_measured():
    assert set(STATIC_PARAMETERS) <= set(CALLS)
    assert all(f"jax.numpy.{method}" in CALLS for method in METHOD_PARAMETERS)


@pytest.mark.parametrize(("qualname", "parameter"), sorted(UNLESS_KEYWORD))
def test_unless_keyword_lets_the_parameter_be_traced(qualname: str, parameter: str):
    import jax

    keyword = UNLESS_KEYWORD[(qualname, parameter)]
    target = static_probe.function(qualname)
    sample = jax.numpy.arange(3.0)
    out = jax.jit(lambda r: target(sample, **{parameter: r, keyword: 6}))(2)
    assert out.shape == (6,)


# -- detection: every entry, in a jitted function, passed by keyword and by position --------
def _source(value, traced: str | None = None) -> str:
    """`value` as source text; the first int replaced by `traced` when given."""
    text, _ = _render(value, traced)
    return text


def _render(value, traced: str | None) -> tuple[str, bool]:
    if isinstance(value, Code):
        return value.text, False
    if isinstance(value, Array):
        if value.key:
            return "jax.random.key(0)", False
        return f"jnp.ones({value.shape!r}, {value.dtype!r})", False
    if isinstance(value, bool):
        return (traced, True) if traced else (repr(value), False)
    if isinstance(value, int):
        return (traced, True) if traced else (repr(value), False)
    if isinstance(value, tuple):
        parts, done = [], False
        for item in value:
            text, replaced = _render(item, None if done else traced)
            done = done or replaced
            parts.append(text)
        return "(" + ", ".join(parts) + ("," if len(parts) == 1 else "") + ")", done
    return repr(value), False


def _snippet(qualname: str, parameter: str, positional: bool) -> str:
    """A jitted function giving `parameter` of `qualname` its traced argument `t`."""
    module, _, name = qualname.rpartition(".")
    signature = inspect.signature(static_probe.function(qualname))
    arguments = CALLS[qualname]
    texts = {
        key: _source(value, "t" if key == parameter else None) for key, value in arguments.items()
    }
    kinds = {key: signature.parameters[key].kind for key in arguments}
    positional_names = [k for k in arguments if kinds[k] is inspect.Parameter.POSITIONAL_ONLY]
    if positional:
        order = list(signature.parameters)
        upto = order.index(parameter) + 1
        positional_names = [k for k in order[:upto] if k in arguments]
    args = [texts[k] for k in positional_names]
    args += [f"{k}={texts[k]}" for k in arguments if k not in positional_names]
    return (
        "import jax\nimport jax.numpy as jnp\nimport jax.numpy.fft\nimport jax.numpy.linalg\n"
        "import jax.random\nimport jax.lax\nimport jax.nn\n\n\n"
        f"@jax.jit\ndef probe(t):\n    return {module}.{name}({', '.join(args)})\n"
    )


def _positional_possible(qualname: str, parameter: str) -> bool:
    signature = inspect.signature(static_probe.function(qualname))
    order = list(signature.parameters)
    before = order[: order.index(parameter) + 1]
    kinds = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    return all(signature.parameters[k].kind in kinds for k in before) and all(
        k in CALLS[qualname] for k in before
    )


DETECTION = [
    (qualname, parameter, code, positional)
    for qualname, entries in sorted(STATIC_PARAMETERS.items())
    for parameter, _, code, _ in entries
    for positional in (False, True)
    if not positional or _positional_possible(qualname, parameter)
]


@pytest.mark.parametrize(
    ("qualname", "parameter", "code", "positional"),
    DETECTION,
    ids=[f"{q}-{p}-{'pos' if pos else 'kw'}" for q, p, _, pos in DETECTION],
)
def test_traced_static_parameter_is_reported(qualname, parameter, code, positional):
    source = _snippet(qualname, parameter, positional)
    findings = analyze(Document(source), ALL_RULES).findings
    assert code in {finding.code for finding in findings if finding.span.start.line == 11}, source


METHODS = [
    (method, parameter, code)
    for method, entries in sorted(METHOD_PARAMETERS.items())
    for parameter, _, code, _ in entries
]


@pytest.mark.parametrize(("method", "parameter", "code"), METHODS)
def test_traced_static_method_parameter_is_reported(method, parameter, code):
    arguments = dict(CALLS[f"jax.numpy.{method}"])
    del arguments[next(iter(arguments))]  # the array: the receiver `x`
    texts = [f"{k}={_source(v, 't' if k == parameter else None)}" for k, v in arguments.items()]
    source = (
        "import jax\nimport jax.numpy as jnp\n\n\n@jax.jit\ndef probe(x, t):\n"
        f"    return x.{method}({', '.join(texts)})\n"
    )
    findings = analyze(Document(source), ALL_RULES).findings
    assert code in {finding.code for finding in findings if finding.span.start.line == 6}, source


def test_static_values_are_not_reported():
    """The same calls with Python values (and shapes read from `x.shape`) stay clean."""
    lines = []
    for qualname in sorted(STATIC_PARAMETERS):
        module, _, name = qualname.rpartition(".")
        args = ", ".join(f"{k}={_source(v)}" for k, v in CALLS[qualname].items())
        lines.append(f"    {module}.{name}({args})")
    source = (
        "import jax\nimport jax.numpy as jnp\nimport jax.lax\nimport jax.nn\n\n\n"
        "@jax.jit\ndef probe(x):\n" + "\n".join(lines) + "\n    return x.sum(axis=0)\n"
    )
    findings = analyze(Document(source), ALL_RULES).findings
    assert [f for f in findings if f.code in ("JAX703", "JAX803")] == []

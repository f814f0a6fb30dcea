"""Parameter kinds from the module's own call sites (`ModuleModel.call_site_kinds`), and the
NumPy arguments of single calls (`ModuleModel.numpy_passed`): real parses, real models."""

from __future__ import annotations

import textwrap

from jax_lsp.analysis.document import Document
from jax_lsp.analysis.kinds import Kind
from jax_lsp.analysis.model import ModuleModel
from jax_lsp.engine import analyze


def _model(text: str) -> ModuleModel:
    return ModuleModel(Document(textwrap.dedent(text)))


def _kinds(text: str, path: str) -> dict[str, Kind]:
    model = _model(text)
    return dict(model.call_site_kinds(model.functions[path].node))


def _codes(text: str) -> list[str]:
    return [finding.code for finding in analyze(Document(textwrap.dedent(text))).findings]


HEADER = "import jax\nimport jax.numpy as jnp\nimport numpy as np\n"


def test_every_top_level_call_passing_a_jax_array_gives_the_parameter_its_kind():
    text = (
        HEADER
        + "def f(x, scale):\n    return x / scale\n\nf(jnp.ones(3), 2.0)\nf(jnp.zeros(2), 1.0)\n"
    )
    assert _kinds(text, "f") == {"x": Kind.ARRAY}


def test_numpy_at_every_site_is_numpy_and_mixed_sites_give_nothing():
    numpy_only = HEADER + "def f(x):\n    return x\n\nf(np.ones(3))\nf(np.zeros(2))\n"
    assert _kinds(numpy_only, "f") == {"x": Kind.NUMPY}
    mixed = HEADER + "def f(x):\n    return x\n\nf(np.ones(3))\nf(jnp.zeros(2))\n"
    assert _kinds(mixed, "f") == {}
    unknown = HEADER + "def f(x):\n    return x\n\nf(jnp.ones(3))\nf(load())\n"
    assert _kinds(unknown, "f") == {}


def test_keywords_and_defaults_count_and_unpacking_leaves_parameters_unknown():
    text = (
        HEADER
        + "def f(x, y=None):\n    return x\n\nf(y=jnp.ones(3), x=jnp.ones(2))\nf(jnp.ones(2))\n"
    )
    # `y`'s default is no array: one site gives it none.
    assert _kinds(text, "f") == {"x": Kind.ARRAY}
    unpacked = HEADER + "def f(x):\n    return x\n\nf(jnp.ones(3))\nf(*args)\n"
    assert _kinds(unpacked, "f") == {}


def test_the_kinds_follow_a_callers_own_parameters():
    text = HEADER + (
        "def inner(u):\n    return u\n\ndef outer(v):\n    return inner(v)\n\nouter(jnp.ones(3))\n"
    )
    assert _kinds(text, "outer") == {"v": Kind.ARRAY}
    assert _kinds(text, "inner") == {"u": Kind.ARRAY}


def test_recursive_calls_end_and_give_no_kind_of_their_own():
    text = HEADER + (
        "def ping(x, n):\n    return pong(x, n - 1) if n else x\n\n"
        "def pong(x, n):\n    return ping(x, n)\n\n"
        "ping(jnp.ones(3), 4)\n"
    )
    # ping is also called by pong, whose `x` is ping's own: followed a bounded number of
    # levels, the last level knows nothing of pong's callers.
    model = _model(text)
    for path in ("ping", "pong"):
        assert dict(model.call_site_kinds(model.functions[path].node)).get("n") is None


def test_a_function_used_otherwise_than_called_gets_nothing():
    passed = HEADER + "def f(x):\n    return x\n\nf(jnp.ones(3))\ng = jax.jit(f)\n"
    assert _kinds(passed, "f") == {}
    exported = HEADER + "__all__ = ['f']\n\ndef f(x):\n    return x\n\nf(jnp.ones(3))\n"
    assert _kinds(exported, "f") == {}
    decorated = HEADER + (
        "import functools\n\n@functools.lru_cache\ndef f(x):\n    return x\n\nf(jnp.ones(3))\n"
    )
    assert _kinds(decorated, "f") == {}


def test_a_public_library_function_called_only_by_other_functions_gets_nothing():
    # Its users, elsewhere, may pass anything; a private helper's callers are all here.
    library = HEADER + (
        "def scale(x):\n    return 2 * x\n\n"
        "def _helper(x):\n    return x\n\n"
        "def api(n):\n    return scale(jnp.ones(n)) + _helper(jnp.ones(n))\n"
    )
    assert _kinds(library, "scale") == {}
    assert _kinds(library, "_helper") == {"x": Kind.ARRAY}
    program = library + "\nif __name__ == '__main__':\n    print(api(3))\n"
    assert _kinds(program, "scale") == {"x": Kind.ARRAY}


def test_a_nested_function_takes_its_kinds_from_the_calls_around_it():
    text = HEADER + (
        "def _outer(n):\n"
        "    def body(carry):\n        return carry\n"
        "    return body(jnp.zeros(n))\n"
    )
    assert _kinds(text, "_outer.body") == {"carry": Kind.ARRAY}


def test_rules_read_the_parameter_kinds():
    augmented = HEADER + (
        "def diffuse(u, alpha):\n    u[1:-1] += alpha\n    return u\n\ndiffuse(jnp.zeros(8), 0.1)\n"
    )
    assert _codes(augmented) == ["JAX202"]
    numpy = augmented.replace("jnp.zeros(8)", "np.zeros(8)")
    assert _codes(numpy) == []  # a NumPy array takes the update in place
    both = augmented + "diffuse(np.zeros(8), 0.1)\n"
    assert _codes(both) == []


def test_one_call_passing_numpy_to_a_vmapped_function_is_found_at_its_line():
    text = HEADER + (
        "import functools\n\n\n"
        "@functools.partial(jax.vmap, in_axes=(0, None))\n"
        "def lookup(i, table):\n    return table[i]\n\n\n"
        "lookup(jnp.arange(2), jnp.ones(3))\n"
        "lookup(jnp.arange(2), np.ones(3))\n"
    )
    model = _model(text)
    node = model.functions["lookup"].node
    assert model.numpy_passed(node) == (("table", 13),)
    findings = analyze(Document(text)).findings
    assert [f.code for f in findings] == ["JAX703"]
    assert "line 13" in findings[0].message
    # Rebinding the parameter first makes it the function's own value.
    rebound = text.replace(
        "    return table[i]", "    table = jnp.asarray(table)\n    return table[i]"
    )
    assert _codes(rebound) == []


def test_an_eager_call_passing_numpy_to_a_function_traced_elsewhere_is_no_finding():
    # The vmapped call passes a JAX table; the plain call runs the body eagerly, where the
    # index is a Python int and NumPy takes it.
    text = HEADER + (
        "def lookup(i, table):\n    return table[i]\n\n\n"
        "jax.vmap(lookup, in_axes=(0, None))(jnp.arange(2), jnp.ones(3))\n"
        "lookup(1, np.ones(3))\n"
    )
    model = _model(text)
    assert model.numpy_passed(model.functions["lookup"].node) == ()
    assert _codes(text) == []

"""What every traced call gives a parameter decides the branches of its tests: a branch no
traced call takes records no values, and the functions it calls are not traced through it,
within the module and across modules. Nothing is decided when one trace gives another
value or gives none known (a transformation applied to the function, a call from another
module passing a variable). The programs run under JAX as their assertions say."""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

from jax_lsp.analysis.passed_values import (
    Passed,
    flag_test,
    flags_before_rebinding,
    joined,
    names_bound_to_arrays,
)
from tests.analysis.test_imported_values import codes_of
from tests.conftest import findings_of
from tests.runtime import run_snippet

# jaxns race_tree.py: `build` is traced from another module, which leaves `validate` at its
# default; the NumPy validation under `if validate:` is not traced code.
TREE = """
import jax.numpy as jnp
import numpy as np


def validate_state(state):
    values = np.asarray(state)
    if np.any(values < 0):
        raise ValueError("a negative entry")


def build_python(x):
    state = jnp.asarray(x) + 1
    validate_state(state)
    return state


def build(x, *, validate=False):
    if validate:
        return build_python(x)
    return jnp.asarray(x) + 1
"""

PLAN = """
import jax
import jax.numpy as jnp

from tree import build


def make_plan(x, block=None):
    if block is None:
        block = build(x)
    return block


@jax.jit
def step(x):
    return make_plan(x)


def check(x):
    return build(x, validate=True)  # outside any trace: runs on values
"""


def test_a_default_left_by_the_traced_caller_in_another_module_rules_out_its_branch(
    tmp_path: Path,
):
    files = {"tree.py": TREE, "plan.py": PLAN}
    assert codes_of(tmp_path, files, "tree.py") == []
    # A second traced call turning the validation on: the branch is traced code again.
    traced_check = PLAN.replace("def check(x):", "@jax.jit\ndef check(x):")
    files["plan.py"] = traced_check
    assert codes_of(tmp_path, files, "tree.py") == [("JAX703", 7)]
    program = TREE + PLAN.replace("from tree import build", "")
    assert run_snippet(program, "step(jnp.ones(3)); check(jnp.ones(3))").error is None
    failing = run_snippet(program, "jax.jit(check)(jnp.ones(3))").error
    assert type(failing).__name__ == "TracerArrayConversionError"


# s2fft healpix_ffts.py: a method string every jitted caller passes as "jax".
FFTS = """
import jax.numpy as jnp
import numpy as np


def fft_numpy(f):
    return np.fft.fft(f)


def fft_jax(f):
    return jnp.fft.fft(f)


def healpix_fft(f, method="numpy"):
    if method.lower() == "numpy":
        return fft_numpy(f)
    elif method.lower() in ("jax", "jax_cuda"):
        return fft_jax(f)
    raise ValueError(method)
"""

TRANSFORMS = """
import jax

import ffts


@jax.jit
def forward(f):
    return ffts.healpix_fft(f, "jax")


def forward_numpy(f):
    return ffts.healpix_fft(f, "numpy")
"""


def test_a_method_string_every_traced_caller_passes_picks_the_branch(tmp_path: Path):
    files = {"ffts.py": FFTS, "transforms.py": TRANSFORMS}
    assert codes_of(tmp_path, files, "ffts.py") == []
    # A jitted caller passing a variable: the method is not known, both branches are traced.
    files["transforms.py"] = TRANSFORMS + "\n\nsome = jax.jit(ffts.healpix_fft, static_argnums=1)\n"
    assert codes_of(tmp_path, files, "ffts.py") == [("JAX703", 7)]
    program = FFTS + TRANSFORMS.replace("import ffts", "").replace("ffts.", "")
    check = "forward(jnp.ones(4)); forward_numpy(np.ones(4))"
    assert run_snippet(program, check).error is None
    failing = run_snippet(program, 'jax.jit(healpix_fft, static_argnums=1)(jnp.ones(4), "numpy")')
    assert type(failing.error).__name__ == "TracerArrayConversionError"


FLAGGED = """
import jax
import jax.numpy as jnp


def scaled(x, mode="fast", check=False):
    if check and mode == "exact":
        if (x < 0).any():
            raise ValueError("negative")
    return x * 2


@jax.jit
def fast(x):
    return scaled(x, check=True)


@jax.jit
def exact(x):
    return scaled(x, "exact")
"""


def test_two_traced_calls_giving_different_values_decide_only_what_both_rule_out():
    # Each call rules the check out on its own (`mode` "fast", `check` False): together
    # neither is known, and the check is traced code.
    assert [(f.code, f.span.start.line + 1) for f in findings_of(FLAGGED)] == [("JAX701", 8)]
    source = textwrap.dedent(FLAGGED)
    assert run_snippet(source, "fast(jnp.ones(2)); exact(jnp.ones(2))").error is None
    both = source.replace('scaled(x, "exact")', 'scaled(x, "exact", check=True)')
    assert type(run_snippet(both, "exact(jnp.ones(2))").error).__name__ == (
        "TracerBoolConversionError"
    )
    # Where only the fast one traces it, the check is ruled out.
    alone = source.replace('    return scaled(x, "exact")', "    return x")
    assert findings_of(alone) == []


def _test(text: str) -> ast.expr:
    return ast.parse(text, mode="eval").body


def test_the_tests_a_value_decides():
    flags = {"method": "jax", "validate": False, "U": Passed.ARRAY, "n": Passed.NOT_NONE}
    decided = {
        "method.lower() == 'numpy'": False,
        "method != 'jax'": False,
        "method in ('jax', 'numpy')": True,
        "method not in ['numpy']": True,
        "validate or method == 'jax'": True,
        "not validate and U is None": False,
        "U is not None": True,
        "n is None": False,
    }
    for text, expected in decided.items():
        assert flag_test(_test(text), flags) is expected, text
    for text in ("n", "U", "method == 1", "method.split() == 'jax'", "x is None", "n == 3"):
        assert flag_test(_test(text), flags) is None, text


def test_two_traces_join_to_what_both_give():
    first = frozenset({("a", True), ("b", "jax"), ("c", None), ("d", Passed.ARRAY)})
    second = frozenset({("a", True), ("b", "numpy"), ("c", False), ("d", Passed.ARRAY)})
    assert joined(first, second) == {("a", True), ("b", Passed.NOT_NONE), ("d", Passed.ARRAY)}
    assert joined(first, frozenset()) == frozenset()


def test_a_parameter_bound_again_is_known_only_in_tests_before_and_outside_loops():
    function = ast.parse(
        textwrap.dedent(
            """
            def init(n, U=None, k=None, m=None):
                if U is None:
                    U = make(n)
                for _ in range(n):
                    if k is None:
                        k = 1
                if U is None:
                    pass
                if (m := 2) is None:
                    pass
            """
        )
    ).body[0]
    facts = frozenset({("U", Passed.ARRAY), ("k", Passed.NOT_NONE), ("m", Passed.NOT_NONE)})
    found = {
        test.lineno: flags for test, flags in flags_before_rebinding(function, facts, {}).items()
    }
    # The first test runs before any is bound; the one in the loop runs again after `k = 1`;
    # the third after `U = make(n)` (before `m` is bound); the last reads the `m` its walrus
    # binds.
    assert found == {
        3: {"U": Passed.ARRAY, "k": Passed.NOT_NONE, "m": Passed.NOT_NONE},
        8: {"m": Passed.NOT_NONE},
    }


def test_names_bound_only_to_what_jnp_makes():
    function = ast.parse(
        textwrap.dedent(
            """
            import jax.numpy as jnp

            def step(u, v):
                Q, R = jnp.linalg.qr(u)
                w = jnp.ones(3)
                w += 1
                z = jnp.zeros(3)
                z = helper(z)
                for t in jnp.arange(3):
                    pass
                return Q, R, w, z, t
            """
        )
    )
    from jax_lsp.analysis.imports import Resolver

    resolver = Resolver({"jnp": "jax.numpy"})
    assert names_bound_to_arrays(function.body[1], resolver.qualname) == {"Q", "R", "w"}


SHORT_CIRCUIT = """
import jax
import jax.numpy as jnp
import numpy as np


def all_positive(x):
    doubled = jnp.asarray(x) * 2
    return bool(np.all(np.asarray(doubled) > 0))


def update(x, validate=False):
    state = jnp.asarray(x) * 2
    if validate and not all_positive(x):
        raise ValueError("a non-positive entry")
    return state


@jax.jit
def step(x):
    return update(x)
"""


def test_an_operand_a_flag_short_circuits_calls_nothing_in_the_trace():
    assert findings_of(SHORT_CIRCUIT) == []
    source = textwrap.dedent(SHORT_CIRCUIT)
    assert run_snippet(source, "step(jnp.ones(2)); update(np.ones(2), True)").error is None
    on = source.replace("return update(x)", "return update(x, True)")
    assert [(f.code, f.span.start.line + 1) for f in findings_of(on)] == [("JAX703", 9)]
    assert type(run_snippet(on, "step(jnp.ones(2))").error).__name__ == (
        "TracerArrayConversionError"
    )

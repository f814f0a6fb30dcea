"""Purity rules beyond their examples: the print fix, the import it adds, and what stays quiet."""

from __future__ import annotations

import textwrap

import pytest

from jax_lsp.analysis.document import Document
from jax_lsp.codeactions.apply import fix_text
from jax_lsp.diagnostics import RULES_BY_CODE
from jax_lsp.engine import analyze

PURITY = tuple(RULES_BY_CODE[code] for code in ("JAX101", "JAX102", "JAX103", "JAX104"))


def codes(source: str) -> list[tuple[int, str]]:
    findings = analyze(Document(textwrap.dedent(source)), PURITY).findings
    return [(f.span.start.line, f.code) for f in findings]


def fixed(source: str) -> str:
    def run(text: str):
        return analyze(Document(text), PURITY).findings

    return fix_text(textwrap.dedent(source), run, unsafe=True)[0]


def jitted(body: str, header: str = "import jax\n") -> str:
    lines = textwrap.indent(textwrap.dedent(body).strip("\n"), "    ")
    return f"{header}\n@jax.jit\ndef f(x):\n{lines}\n    return x\n"


@pytest.mark.parametrize(
    ("call", "replacement"),
    [
        ('print("x =", x)', 'jax.debug.print("x = {}", x)'),
        ("print(x, x + 1)", 'jax.debug.print("{} {}", x, x + 1)'),
        ('print(f"x={x} y={x * 2}")', 'jax.debug.print("x={} y={}", x, x * 2)'),
        ('print("{braces}", x)', 'jax.debug.print("{{braces}} {}", x)'),
        ("print('it\\'s', x)", 'jax.debug.print("it\'s {}", x)'),
        ('print("x", x, flush=True)', 'jax.debug.print("x {}", x)'),
        # A format spec is kept: jax.debug.print formats the values (`test_fix_runtime`).
        ('print(f"loss: {x:.4f}")', 'jax.debug.print("loss: {:.4f}", x)'),
        ('print(f"{x=:.2e} n={x.size:>4}")', 'jax.debug.print("x={:.2e} n={:>4}", x, x.size)'),
    ],
)
def test_print_fix_builds_a_format_string(call: str, replacement: str):
    assert fixed(jitted(call)) == jitted(replacement)


@pytest.mark.parametrize(
    "call",
    [
        'print("x", x, sep="")',
        'print(x, end="")',
        "print(x, file=sys.stderr)",
        'print(f"{x!r}")',  # the callback's array repr, not the value's
        'print(f"{x=}")',  # the same, with `=`
        'print(f"{x:.{x.ndim}f}")',  # a spec made of expressions
    ],
)
def test_print_without_equivalent_is_flagged_without_fix(call: str):
    source = jitted(call, "import sys\nimport jax\n")
    findings = analyze(Document(source), PURITY).findings
    assert [f.code for f in findings] == ["JAX101"]
    assert findings[0].fix is None


def test_print_fix_adds_import_jax_after_the_last_import():
    source = '''\
        """Doc."""
        from jax import jit
        import numpy as np


        @jit
        def f(x):
            print(x)
            return x
    '''
    assert fixed(source) == textwrap.dedent(source).replace(
        "import numpy as np\n", "import numpy as np\nimport jax\n"
    ).replace("print(x)", 'jax.debug.print("{}", x)')


def test_print_fix_uses_the_module_alias():
    source = "import jax as J\n\n@J.jit\ndef f(x):\n    print(x)\n    return x\n"
    assert 'J.debug.print("{}", x)' in fixed(source)


@pytest.mark.parametrize(
    "source",
    [
        jitted("print(x.shape, x.dtype)"),  # static values: a deliberate trace-time message
        jitted("jax.debug.print('{}', x)"),
        jitted("logging.info('shape %s', x.shape)", "import logging\nimport jax\n"),
        "import jax\ndef print(*a):\n    pass\n" + jitted("print(x)", ""),
        "import jax.numpy as jnp\ndef report(x):\n    print(jnp.mean(x))\n",
    ],
)
def test_print_near_misses_are_quiet(source: str):
    assert codes(source) == []


def test_global_rebound_only_before_any_call_is_a_constant():
    source = """
        import jax
        MODE = "fast"
        if jax.default_backend() == "gpu":
            MODE = "gpu"
        CONFIG = {}
        CONFIG["lr"] = 0.1

        @jax.jit
        def f(x):
            return x * CONFIG["lr"] if MODE == "fast" else x
    """
    assert codes(source) == []


def test_global_changed_after_a_call_is_stale_and_cache_follows_edits():
    base = "import jax\nscale = 2.0\n\n@jax.jit\ndef f(x):\n    return x * scale\n\nf(1.0)\n"
    assert codes(base) == []
    assert codes(base + "scale = 3.0\n") == [(5, "JAX102")]
    assert codes(base) == []  # the cached findings of the unchanged unit are not reused


def test_rebinding_after_library_calls_only_is_not_stale():
    source = """
        import argparse
        import jax

        @jax.jit
        def f(x):
            return x * args.scale

        parser = argparse.ArgumentParser()
        args = parser.parse_args([])
        args = parser.parse_args(["--scale", "2"])
        step = jax.jit(f)
        step(1.0)
        args.scale = 3.0
    """
    # Only `step(1.0)` can trace `f`; the rebinding before it is harmless, the mutation after
    # it is not.
    assert codes(source) == [(6, "JAX102")]
    assert codes(source.replace("        args.scale = 3.0\n", "")) == []


_SET_UP = """
    import argparse
    import jax
    import jax.numpy as jnp

    LR = 0.1

    @jax.jit
    def update(w, g):
        return w - LR * g
"""


@pytest.mark.parametrize(
    ("rest", "stale"),
    [
        # Set up by the entry function, run once, before anything else of the module.
        (
            "def main():\n    global LR\n    args = argparse.ArgumentParser().parse_args([])\n"
            "    if args:\n        LR = 0.2\n    return update(jnp.ones(3), jnp.ones(3))\n\n"
            "if __name__ == '__main__':\n    main()\n",
            False,
        ),
        # The entry function called in a loop: set again after a trace.
        (
            "def main():\n    global LR\n    LR = 0.2\n    return update(1.0, 1.0)\n\n"
            "for _ in range(2):\n    main()\n",
            True,
        ),
        # Written after the function called the jitted one.
        (
            "def main():\n    global LR\n    w = update(1.0, 1.0)\n    LR = 0.2\n"
            "    return update(w, 1.0)\n\nmain()\n",
            True,
        ),
        # Written in a loop of the entry function.
        (
            "def main():\n    global LR\n    for lr in (0.1, 0.2):\n        LR = lr\n"
            "        update(1.0, 1.0)\n\nmain()\n",
            True,
        ),
        # A setter another function calls between steps.
        (
            "def set_lr(v):\n    global LR\n    LR = v\n\ndef main():\n"
            "    for lr in (0.1, 0.2):\n        set_lr(lr)\n        update(1.0, 1.0)\n\nmain()\n",
            True,
        ),
        # The jitted function called at top level before the set-up.
        (
            "def main():\n    global LR\n    LR = 0.2\n    return update(1.0, 1.0)\n\n"
            "update(1.0, 1.0)\nmain()\n",
            True,
        ),
        # A library's setter, which its users may call at any time.
        ("def configure(v):\n    global LR\n    LR = v\n", True),
        # The entry function passed on (`app.run(main)`): not known to run once, first.
        (
            "def main(argv):\n    global LR\n    LR = 0.2\n    return update(1.0, 1.0)\n\n"
            "run(main)\n",
            True,
        ),
    ],
    ids=[
        "main-once",
        "main-in-a-loop",
        "after-a-call",
        "in-a-loop",
        "setter",
        "called-before",
        "library-setter",
        "passed-on",
    ],
)
def test_a_global_set_up_before_anything_is_traced_is_not_stale(rest: str, stale: bool):
    source = textwrap.dedent(_SET_UP) + rest
    assert codes(source) == ([(9, "JAX102")] if stale else [])


def test_fresh_lambda_in_lax_outside_jit_is_retraced_not_stale():
    source = """
        from jax import lax
        counter = 0

        def bump():
            global counter
            counter += 1

        def run(n):
            return lax.fori_loop(0, n, lambda i, x: x + counter, 0)

        def body(i, x):
            return x + counter
    """
    # Only the named body is cached by lax (measured: 3, then 3 again after the change).
    source = textwrap.dedent(source) + "\nlax.fori_loop(0, 3, body, 0)\n"
    assert codes(source) == [(12, "JAX102")]


def test_nonlocal_in_helper_of_the_same_trace_is_fine_but_lax_body_leaks():
    source = """
        import jax
        from jax import lax

        @jax.jit
        def f(x):
            total = 0.0
            def add(v):
                nonlocal total
                total = total + v
            add(x)
            def body(i, c):
                nonlocal total
                total = c * 2
                return c
            return lax.fori_loop(0, 3, body, total)
    """
    assert codes(source) == [(13, "JAX103")]


def test_library_objects_with_update_methods_are_not_containers():
    source = """
        import jax
        import optax
        optimizer = optax.adam(1e-3)

        @jax.jit
        def step(params, opt_state, grads):
            updates, opt_state = optimizer.update(grads, opt_state, params)
            return optax.apply_updates(params, updates), opt_state
    """
    assert codes(source) == []


def test_unpacked_iterators_are_values():
    source = """
        from jax import lax

        def g(p, a, b):
            return lax.cond(p, lambda u, v: u, lambda u, v: v, *zip(a, b))
    """
    assert codes(source) == []


def test_bound_method_reading_what_it_just_assigned_is_not_stale():
    # jax #5344: `self.K = ...` then `solve(self.K, y)` in the jitted method reads this
    # trace's own value (JAX103 reports the store); a read of an attribute another method
    # assigns is stale.
    source = textwrap.dedent(
        """
        import jax


        class GP:
            def __init__(self):
                self.K = None
                self.scale = 2.0
                self.fit = jax.jit(self.fit)

            def fit(self, x):
                self.K = x * 2
                return self.K + self.scale

            def set_scale(self, s):
                self.scale = s
        """
    )
    assert codes(source) == [(11, "JAX103"), (12, "JAX102")]


def test_an_edit_inside_another_body_that_calls_the_set_up_function_again_is_seen():
    source = textwrap.dedent(_SET_UP) + (
        "def main():\n    global LR\n    LR = 0.2\n    return update(1.0, 1.0)\n\n"
        "def other():\n    return 1\n\nmain()\n"
    )
    first = Document(source)
    assert analyze(first, PURITY).findings == []
    edited = Document(source.replace("    return 1\n", "    return main()\n"), previous=first)
    assert [(f.span.start.line, f.code) for f in analyze(edited, PURITY).findings] == [
        (9, "JAX102")
    ]
    back = Document(source, previous=edited)
    assert analyze(back, PURITY).findings == []

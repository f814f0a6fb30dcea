"""A name assigned what a factory returns (`lr = make_schedule(n)`, `step = make_step(3)`)
stands for the def the factory returns: a transformation of it, or optax given it as a
schedule, traces that def, whether the factory is of the module or imported."""

from __future__ import annotations

import textwrap
from pathlib import Path

from jax_lsp.config import Settings
from jax_lsp.engine import check_source
from jax_lsp.workspace import Workspace

SCHEDULES = """
    def warmup(peak, steps):
        def schedule(count):
            if count < steps:
                return peak * count / steps
            return peak

        return schedule
"""


def codes_of(text: str) -> list[tuple[int, str]]:
    analysis = check_source(textwrap.dedent(text).lstrip("\n"), "train.py", Settings())
    return [(f.span.start.line + 1, f.code) for f in analysis.findings]


def write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"))


def codes(root: Path, name: str) -> list[tuple[int, str]]:
    path = root / name
    analysis = check_source(path.read_text(), str(path), Settings(), Workspace(str(root)))
    return [(f.span.start.line + 1, f.code) for f in analysis.findings]


def test_a_jit_of_what_a_factory_returned_in_a_function():
    text = """
        import jax


        def make_step(n):
            def step(x):
                if x > n:
                    return x
                return -x

            return step


        def main():
            step = make_step(3)
            return jax.jit(step)(1.0)
    """
    assert codes_of(text) == [(6, "JAX701")]


def test_a_factory_returning_one_of_two_defs_is_not_followed():
    text = """
        import jax


        def make_step(n, up):
            def step(x):
                if x > n:
                    return x
                return -x

            def other(x):
                return x

            if up:
                return step
            return other


        def main():
            step = make_step(3, True)
            return jax.jit(step)(1.0)
    """
    assert codes_of(text) == []


OPTIMIZER = """
    import optax


    def build_optimizer():
        learning_rate = warmup(1e-3, 100)
        return optax.adam(learning_rate=learning_rate)
"""

STEP = """
    import jax

    from optim import build_optimizer

    tx = build_optimizer()


    @jax.jit
    def update(grads, state):
        return tx.update(grads, state)
"""


def test_a_schedule_a_factory_returned_in_the_optimizers_maker():
    text = """
        import jax
        import optax


        def warmup(peak, steps):
            def schedule(count):
                if count < steps:
                    return peak * count / steps
                return peak

            return schedule


        def build_optimizer():
            learning_rate = warmup(1e-3, 100)
            return optax.adam(learning_rate=learning_rate)


        tx = build_optimizer()


        @jax.jit
        def update(grads, state):
            return tx.update(grads, state)
    """
    assert codes_of(text) == [(7, "JAX701")]
    assert codes_of(text.replace("@jax.jit\n", "")) == []


def test_a_schedule_from_a_factory_of_a_third_module(tmp_path):
    optimizer = "from schedules import warmup\n" + textwrap.dedent(OPTIMIZER).lstrip("\n")
    write(tmp_path, {"schedules.py": SCHEDULES, "optim.py": optimizer, "train.py": STEP})
    assert codes(tmp_path, "schedules.py") == [(3, "JAX701")]
    assert codes(tmp_path, "optim.py") == []
    write(tmp_path, {"train.py": STEP.replace("@jax.jit\n", "")})
    assert codes(tmp_path, "schedules.py") == []

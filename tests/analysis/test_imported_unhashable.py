"""JAX1002 across modules: a value JAX cannot hash, passed as a static argument, where the
value (an instance of a dataclass not frozen, a module-level instance or list) comes from
another module than the call. Each flagged call raises ValueError under JAX; the frozen
counterpart runs."""

from __future__ import annotations

import textwrap

from tests.analysis.test_project_traces import codes, write
from tests.runtime import run_snippet

STEPS = """
    from functools import partial

    import jax
    import jax.numpy as jnp


    @partial(jax.jit, static_argnames=("config",))
    def forward(x, config):
        return x * config.scale


    @partial(jax.jit, static_argnums=(1,))
    def pad(x, widths):
        return jnp.pad(x, widths)
"""

CONFIG = """
    from dataclasses import dataclass


    @dataclass
    class Config:
        scale: float = 2.0


    @dataclass(frozen=True)
    class FrozenConfig:
        scale: float = 2.0


    DEFAULT = Config()
    FROZEN = FrozenConfig()
    WIDTHS = [1, 1]
"""

MAIN = """
    import jax.numpy as jnp

    from config import DEFAULT, FROZEN, WIDTHS, Config, FrozenConfig
    from steps import forward, pad

    x = jnp.ones(3)


    def fresh():
        return forward(x, config=Config())


    def shared():
        return forward(x, config=DEFAULT)


    def widths():
        return pad(x, WIDTHS)


    def frozen():
        return forward(x, config=FrozenConfig()), forward(x, config=FROZEN)
"""


def test_unhashable_values_of_another_module_passed_as_static_arguments(tmp_path):
    write(tmp_path, {"steps.py": STEPS, "config.py": CONFIG, "main.py": MAIN})
    assert codes(tmp_path, "main.py") == [(10, "JAX1002"), (14, "JAX1002"), (18, "JAX1002")]
    program = "\n".join(
        textwrap.dedent(text) for text in (STEPS, CONFIG, MAIN.split("from config")[0])
    ) + textwrap.dedent(MAIN.split("from steps import forward, pad")[1])
    for call, raises in (("fresh", True), ("shared", True), ("widths", True), ("frozen", False)):
        outcome = run_snippet(program + f"\n{call}()\n")
        if raises:
            assert isinstance(outcome.error, ValueError), call
            assert "Non-hashable static arguments" in str(outcome.error)
        else:
            assert outcome.error is None, outcome.error

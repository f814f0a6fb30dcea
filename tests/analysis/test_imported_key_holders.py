"""A key an imported class stores once in `__init__` and a method draws from on every call
(`self.rng`, never advanced): two calls of the method on one module-level instance give the
same numbers, whichever module defines the class. The defining module's model says which
methods draw from which stored key (`ExternalFacts.stored_key_draws`)."""

from __future__ import annotations

import textwrap

import pytest

from jax_lsp.config import Settings
from jax_lsp.engine import check_source
from jax_lsp.workspace import Workspace
from tests.runtime import run_snippet

AGENT = """
import jax
import jax.numpy as jnp


class GaussianExploration:
    def __init__(self, action_dim, sigma=0.2, seed=0):
        self.action_dim = action_dim
        self.sigma = sigma
        self.rng = jax.random.PRNGKey(seed)

    def perturb(self, action):
        noise = self.sigma * jax.random.normal(self.rng, (self.action_dim,))
        return jnp.clip(action + noise, -1.0, 1.0)
{more}
"""
ADVANCING = """
    def advance(self):
        self.rng, _ = jax.random.split(self.rng)
"""


def _project(tmp_path, main: str, more: str = "", base: str = "") -> tuple[str, str]:
    package = tmp_path / "agents"
    package.mkdir()
    (package / "__init__.py").write_text("from agents.ddpg import GaussianExploration\n")
    agent = textwrap.dedent(AGENT).replace("{more}", more)
    if base:
        agent = agent.replace("class GaussianExploration:", f"class GaussianExploration({base}):")
    (package / "ddpg.py").write_text(agent)
    source = textwrap.dedent(main)
    (tmp_path / "run.py").write_text(source)
    return source, agent


def _flagged(tmp_path, source: str) -> list[str]:
    analysis = check_source(source, str(tmp_path / "run.py"), Settings(), Workspace(str(tmp_path)))
    lines = source.split("\n")
    return [lines[f.span.start.line].strip() for f in analysis.findings if f.code == "JAX602"]


TWICE = """
import jax.numpy as jnp

from agents import GaussianExploration

explore = GaussianExploration(action_dim=2)
a = jnp.zeros(2)
first = explore.perturb(a)
second = explore.perturb(a)
"""


def test_two_calls_of_an_imported_method_drawing_a_stored_key(tmp_path):
    source, agent = _project(tmp_path, TWICE)
    assert _flagged(tmp_path, source) == ["second = explore.perturb(a)"]
    program = agent + source.replace("from agents import GaussianExploration", "")
    outcome = run_snippet(program, "same = bool(jnp.allclose(first, second))")
    assert outcome.error is None and outcome.namespace["same"]


def test_once_per_object_is_clean(tmp_path):
    main = """
    import jax.numpy as jnp

    from agents import GaussianExploration

    a = jnp.zeros(2)
    first = GaussianExploration(2, seed=0).perturb(a)
    explore = GaussianExploration(2, seed=1)
    second = explore.perturb(a)
    """
    source, _ = _project(tmp_path, main)
    assert _flagged(tmp_path, source) == []


def test_a_class_advancing_its_key_is_clean(tmp_path):
    source, _ = _project(tmp_path, TWICE, more=ADVANCING)
    assert _flagged(tmp_path, source) == []


def test_an_unseen_base_may_advance_the_key(tmp_path):
    (tmp_path / "base.py").write_text("class Base:\n    pass\n")
    source, _ = _project(tmp_path, TWICE, base="Base")
    assert _flagged(tmp_path, source) == []


@pytest.mark.parametrize(
    "between",
    [
        "explore.rng = jax.random.PRNGKey(1)",
        "setattr(explore, 'rng', jax.random.PRNGKey(1))",
    ],
)
def test_the_importer_assigning_the_key_is_clean(tmp_path, between):
    main = TWICE.replace("second =", f"{between}\nsecond =").replace(
        "import jax.numpy as jnp", "import jax\nimport jax.numpy as jnp"
    )
    source, _ = _project(tmp_path, main)
    assert _flagged(tmp_path, source) == []


IN_A_FUNCTION = """
import jax.numpy as jnp

from agents import GaussianExploration


def rollout(n):
    explore = GaussianExploration(action_dim=2)
    actions = []
    for _ in range(n):
        actions.append(explore.perturb(jnp.zeros(2)))
    return actions


def once():
    explore = GaussianExploration(action_dim=2)
    return explore.perturb(jnp.zeros(2))


def fresh_each_step(n):
    actions = []
    for i in range(n):
        explore = GaussianExploration(action_dim=2, seed=i)
        actions.append(explore.perturb(jnp.zeros(2)))
    return actions
"""


def test_an_object_a_function_holds_drawing_in_a_loop(tmp_path):
    source, agent = _project(tmp_path, IN_A_FUNCTION)
    assert _flagged(tmp_path, source) == ["actions.append(explore.perturb(jnp.zeros(2)))"]
    program = agent + source.replace("from agents import GaussianExploration", "")
    outcome = run_snippet(program, "a, b = rollout(2)\nsame = bool(jnp.allclose(a, b))")
    assert outcome.error is None and outcome.namespace["same"]

"""Objects passed across modules by code that traces nothing (`IncomingTrace.param_classes`):
`main` builds an object of a class of one module and hands it to a function of another,
which gives its method to a transformation. The method is traced in its own file, whether the
function's module imports the class or not, checked as the editor checks one file and as
`check` settles a project."""

from __future__ import annotations

from pathlib import Path

from tests.analysis.test_boolean_args import check_codes
from tests.analysis.test_project_traces import codes, write

INTEGRATORS = """
    import jax.numpy as jnp


    class Euler:
        def __init__(self, dt):
            self.dt = dt
            self.last_state = None

        def advance(self, state, _):
            state = state + self.dt * jnp.cos(state)
            self.last_state = state
            return state, state


    class Midpoint:
        def __init__(self, dt):
            self.dt = dt

        def advance(self, state, _):
            half = state + 0.5 * self.dt * jnp.cos(state)
            state = state + self.dt * jnp.cos(half)
            return state, state
"""

LOOP = """
    import jax


    def rollout(stepper, state, steps):
        return jax.lax.scan(stepper.advance, state, None, length=steps)
"""

RUN = """
    import jax.numpy as jnp

    from sim.integrators import Euler
    from sim.loop import rollout


    def main():
        stepper = Euler(0.1)
        final, path = rollout(stepper, jnp.zeros(3), 5)
        print(final, path.shape)
"""


def project(root: Path, run: str = RUN) -> None:
    write(
        root,
        {
            "sim/__init__.py": "",
            "sim/integrators.py": INTEGRATORS,
            "sim/loop.py": LOOP,
            "run.py": run,
        },
    )


def test_a_method_scanned_by_a_module_that_never_imports_its_class(tmp_path):
    project(tmp_path)
    assert codes(tmp_path, "sim/integrators.py") == [(11, "JAX103")]
    assert codes(tmp_path, "sim/loop.py") == []
    assert check_codes(tmp_path) == [("integrators.py", 11, "JAX103")]


def test_the_class_passed_decides_which_method_is_traced(tmp_path):
    project(tmp_path, RUN.replace("Euler", "Midpoint"))
    assert codes(tmp_path, "sim/integrators.py") == []
    assert check_codes(tmp_path) == []


def test_an_object_never_handed_to_the_function_traces_nothing(tmp_path):
    run = RUN.replace("rollout(stepper, ", "rollout(None, ").replace(
        "print(final", "print(stepper.dt, final"
    )
    project(tmp_path, run)
    assert codes(tmp_path, "sim/integrators.py") == []
    assert check_codes(tmp_path) == []


def test_through_a_package_that_reexports_both(tmp_path):
    project(
        tmp_path,
        RUN.replace("    from sim.integrators import Euler\n", "").replace(
            "from sim.loop import rollout", "from sim import Euler, rollout"
        ),
    )
    write(
        tmp_path,
        {"sim/__init__.py": "from .integrators import Euler\nfrom .loop import rollout\n"},
    )
    assert codes(tmp_path, "sim/integrators.py") == [(11, "JAX103")]
    assert check_codes(tmp_path) == [("integrators.py", 11, "JAX103")]

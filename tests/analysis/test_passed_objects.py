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


CELLS = """
    import jax.numpy as jnp


    class Elman:
        def step(self, h, x):
            h = jnp.tanh(x + h)
            self.last = h
            return h, h


    class Gated:
        def step(self, h, x):
            h = jnp.tanh(x * h)
            print("gate", h)
            return h, h


    class Unused:
        def step(self, h, x):
            self.last = h
            return h, h
"""


def test_an_object_of_one_of_two_classes_traces_the_method_of_each(tmp_path):
    """`cell` is a `Gated` on one branch, an `Elman` on the other: the scan runs the `step` of
    whichever it is, so both are traced; a class never passed is not."""
    write(
        tmp_path,
        {
            "sim/__init__.py": "",
            "sim/cells.py": CELLS,
            "sim/loop.py": """
                import jax


                def run(cell, xs):
                    return jax.lax.scan(cell.step, xs[0], xs)
            """,
            "main.py": """
                import jax.numpy as jnp

                from sim.cells import Elman, Gated
                from sim.loop import run


                def main(gated):
                    if gated:
                        cell = Gated()
                    else:
                        cell = Elman()
                    return run(cell, jnp.ones((4, 2)))
            """,
        },
    )
    expected = [(7, "JAX103"), (14, "JAX101")]
    assert codes(tmp_path, "sim/cells.py") == expected
    assert check_codes(tmp_path) == [("cells.py", line, code) for line, code in expected]


def test_two_calls_giving_two_classes_in_one_module(tmp_path):
    write(
        tmp_path,
        {
            "rollout.py": """
                import jax
                import jax.numpy as jnp


                class Elman:
                    def step(self, h, x):
                        self.last = h
                        return jnp.tanh(x + h), h


                class Gated:
                    def step(self, h, x):
                        print("gate", h)
                        return jnp.tanh(x * h), h


                def run(cell, xs):
                    return jax.lax.scan(cell.step, xs[0], xs)


                def main():
                    run(Elman(), jnp.ones(3))
                    return run(Gated(), jnp.ones(3))
            """,
        },
    )
    assert codes(tmp_path, "rollout.py") == [(7, "JAX103"), (13, "JAX101")]

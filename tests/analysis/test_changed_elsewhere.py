"""JAX102 across modules: a jitted function reads a value of a settings module, and another
module that calls the function changes that value afterwards. Under JAX the later calls keep
the value of the first trace; a value set before the first call is read as set."""

from __future__ import annotations

import textwrap

from tests.analysis.test_boolean_args import check_codes
from tests.analysis.test_project_traces import codes, write
from tests.runtime import run_snippet

SETTINGS = """
    SCALE = 1.0
    OPTIONS = {"scale": 1.0}
    WIDTH = 1.0
"""

MODEL = """
    import jax

    import settings
    from settings import OPTIONS


    @jax.jit
    def forward(x):
        return x * settings.SCALE * settings.WIDTH


    @jax.jit
    def forward_dict(x):
        return x * OPTIONS["scale"]
"""

MAIN = """
    import jax.numpy as jnp

    import settings
    from model import forward, forward_dict


    def main():
        settings.WIDTH = 2.0  # before the first call: read as set
        x = jnp.ones(2)
        first = forward(x), forward_dict(x)
        settings.SCALE = 3.0
        settings.OPTIONS["scale"] = 3.0
        return first, (forward(x), forward_dict(x))
"""


def test_a_value_another_module_changes_after_calling_a_jitted_reader(tmp_path):
    write(tmp_path, {"settings.py": SETTINGS, "model.py": MODEL, "main.py": MAIN})
    assert codes(tmp_path, "model.py") == [(9, "JAX102"), (14, "JAX102")]
    assert check_codes(tmp_path) == [("model.py", 9, "JAX102"), ("model.py", 14, "JAX102")]
    # The same program in one module, the settings module a namespace holding the values.
    outcome = run_snippet(ONE_MODULE)
    assert outcome.error is None, outcome.error
    first, later = outcome.namespace["first"], outcome.namespace["later"]
    assert [float(v[0]) for v in first] == [2.0, 1.0]  # WIDTH set before the call: read
    assert [float(v[0]) for v in later] == [2.0, 1.0]  # SCALE, OPTIONS changed: not seen


ONE_MODULE = textwrap.dedent(
    """
    import types

    import jax
    import jax.numpy as jnp

    settings = types.SimpleNamespace(SCALE=1.0, OPTIONS={"scale": 1.0}, WIDTH=1.0)
    OPTIONS = settings.OPTIONS


    @jax.jit
    def forward(x):
        return x * settings.SCALE * settings.WIDTH


    @jax.jit
    def forward_dict(x):
        return x * OPTIONS["scale"]


    def main():
        settings.WIDTH = 2.0
        x = jnp.ones(2)
        first = forward(x), forward_dict(x)
        settings.SCALE = 3.0
        settings.OPTIONS["scale"] = 3.0
        return first, (forward(x), forward_dict(x))


    first, later = main()
    """
)

"""Values that cross between workspace modules: a name a module binds once at top level has,
in the modules importing it, the value its own module's model gives it (`ExternalFacts.value`),
and rules read its items as they would a local one's."""

from __future__ import annotations

import textwrap
from pathlib import Path

from jax_lsp.config import Settings
from jax_lsp.engine import check_source
from jax_lsp.workspace import Workspace

SETTINGS_MODULE = """
import jax.numpy as jnp
import numpy as np

DEFAULTS = {"sizes": [16, 16], "axes": (0, 1), "name": "mlp"}
WINDOW = jnp.array([0.25, 0.5, 0.25])
SHAPE = (3, 4)
TABLE = np.zeros(3)
CHANGED = [1, 2]
CHANGED = (1, 2)
"""

JITTED = """
from functools import partial

import jax
import jax.numpy as jnp


@partial(jax.jit, static_argnames=("sizes",))
def apply(x, sizes):
    return x * len(sizes)


@partial(jax.jit, static_argnums=(1,))
def smooth(x, window):
    return jnp.convolve(x, window, mode="same")
"""


def codes_of(root: Path, files: dict[str, str], checked: str) -> list[tuple[str, int]]:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    text = (root / checked).read_text()
    analysis = check_source(text, str(root / checked), Settings(), Workspace(str(root)))
    return [(finding.code, finding.span.start.line + 1) for finding in analysis.findings]


def test_imported_config_items_and_arrays_passed_as_static_arguments(tmp_path: Path):
    main = """
    from settings import CHANGED, DEFAULTS, SHAPE, WINDOW
    from ops import apply, smooth


    def run(x, cfg=DEFAULTS):
        return apply(x, sizes=cfg["sizes"])  # a list: unhashable


    def run_axes(x, cfg=DEFAULTS):
        return apply(x, sizes=cfg["axes"])  # a tuple: hashable


    def run_direct(x):
        return apply(x, sizes=DEFAULTS["sizes"])


    def run_window(x):
        return smooth(x, WINDOW)


    def run_shape(x):
        return smooth(x, SHAPE)


    def run_changed(x):
        return smooth(x, CHANGED)  # bound twice there: not one known value
    """
    files = {"settings.py": SETTINGS_MODULE, "ops.py": JITTED, "main.py": main}
    assert codes_of(tmp_path, files, "main.py") == [
        ("JAX1002", 7),
        ("JAX1002", 15),
        ("JAX1002", 19),
    ]


def test_values_are_followed_through_a_package_that_re_exports_them(tmp_path: Path):
    main = """
    from conf import DEFAULTS
    from ops import apply


    def run(x, options=DEFAULTS):
        local = options
        return apply(x, sizes=local["sizes"])
    """
    files = {
        "conf/__init__.py": "from .base import DEFAULTS\n",
        "conf/base.py": SETTINGS_MODULE,
        "ops.py": JITTED,
        "main.py": main,
    }
    assert codes_of(tmp_path, files, "main.py") == [("JAX1002", 8)]


def test_a_value_the_importer_changes_or_rebinds_is_not_trusted(tmp_path: Path):
    main = """
    from settings import DEFAULTS, WINDOW
    from ops import apply, smooth

    DEFAULTS["sizes"] = (8,)


    def run(x):
        return apply(x, sizes=DEFAULTS["sizes"])


    def run_window(x, window=WINDOW):
        window = tuple(window.tolist())
        return smooth(x, window)
    """
    files = {"settings.py": SETTINGS_MODULE, "ops.py": JITTED, "main.py": main}
    assert codes_of(tmp_path, files, "main.py") == []


def test_a_boolean_entry_of_a_dict_built_in_traced_code_indexes(tmp_path: Path):
    text = """
    import jax
    import jax.numpy as jnp


    @jax.jit
    def masked_total(x):
        batch = {"mask": x > 0, "x": x}
        return x[batch["mask"]].sum()


    @jax.jit
    def positions(x):
        batch = {"mask": x > 0, "index": jnp.argmax(x)}
        return x[batch["index"]]  # an integer index: fine


    @jax.jit
    def rewritten(x):
        batch = {"mask": x > 0}
        batch["mask"] = jnp.argmax(x)
        return x[batch["mask"]]
    """
    assert codes_of(tmp_path, {"masks.py": text}, "masks.py") == [("JAX801", 9)]


PYTREES = """
from typing import NamedTuple

import jax
from flax import struct


class State(NamedTuple):
    pos: jax.Array
    done: jax.Array


@struct.dataclass
class Config:
    scale: jax.Array
    training: bool = struct.field(pytree_node=False)


class Plain:
    done: bool = False
"""


def test_fields_of_imported_pytree_classes_are_traced_as_their_module_says(tmp_path: Path):
    env = """
    import jax

    from shapes import Config, Plain, State


    @jax.jit
    def step(state: State, config: Config, other: Plain):
        if config.training:  # a static field: a Python bool
            return state
        if other.done:  # not a PyTree: jit would not take it, nothing known
            return state
        if state.done:
            return state
        return state._replace(pos=state.pos * config.scale)


    def eager(state: State):
        if state.done:  # not traced
            return state
        return state
    """
    files = {"shapes.py": PYTREES, "env.py": env}
    assert codes_of(tmp_path, files, "env.py") == [("JAX701", 13)]


def test_an_imported_pytree_class_reaches_a_method_another_module_jits(tmp_path: Path):
    files = {
        "envs/__init__.py": "from .base import State\nfrom .grid import Grid\n",
        "envs/base.py": PYTREES,
        "envs/grid.py": """
        from .base import State


        class Grid:
            def step(self, state: State, action):
                if state.done:
                    return state
                return State(state.pos + action, state.done)
        """,
        "train.py": """
        import jax

        from envs import Grid


        def run(state, action):
            env = Grid()
            step = jax.jit(env.step)
            return step(state, action)
        """,
    }
    assert codes_of(tmp_path, files, "envs/grid.py") == [("JAX701", 7)]


def test_a_key_a_base_class_of_another_module_stores_is_drawn_from_twice(tmp_path: Path):
    files = {
        "base.py": """
        import jax


        class Sampler:
            def __init__(self, seed):
                self.key = jax.random.key(seed)

            @property
            def fresh(self):
                self.key, sub = jax.random.split(self.key)
                return sub
        """,
        "noisy.py": """
        import jax

        from base import Sampler


        class Noisy(Sampler):
            def draw(self):
                a = jax.random.normal(self.key)
                b = jax.random.normal(self.key)
                return a + b

            def draw_fresh(self):
                a = jax.random.normal(self.fresh)  # a property: a new key on every read
                b = jax.random.normal(self.fresh)
                return a + b
        """,
    }
    assert codes_of(tmp_path, files, "noisy.py") == [("JAX602", 10)]


def test_a_boolean_entry_of_a_dict_every_caller_passes_indexes(tmp_path: Path):
    text = """
    import jax
    import jax.numpy as jnp


    def masked_loss(x, batch):
        return x[batch["mask"]].sum()


    def gathered(x, batch):
        return x[batch["mask"]].sum()  # one call passes indices there, one a mask


    def rebound(x, batch):
        batch = {"mask": jnp.argmax(x)}
        return x[batch["mask"]]


    @jax.jit
    def step(x):
        total = masked_loss(x, {"mask": x > 0, "w": x})
        total += masked_loss(x, batch={"mask": jnp.isfinite(x)})
        total += gathered(x, {"mask": x > 0})
        total += gathered(x, {"mask": jnp.argmax(x)})
        return total + rebound(x, {"mask": x > 0})
    """
    # The run of `gathered` given the mask raises under the jit, whatever the other gives.
    expected = [("JAX801", 7), ("JAX801", 11)]
    assert codes_of(tmp_path, {"losses.py": text}, "losses.py") == expected


def test_imported_helper_giving_a_python_number_of_the_tracers_shapes(tmp_path: Path):
    """`pytree_size` sums `jnp.size` of the leaves: given tracers it still returns a Python
    int, in the importing module as in its own; a sum of the tracers' values stays traced."""
    util = """
    import jax
    import jax.numpy as jnp


    def pytree_size(tree):
        return sum(jnp.size(leaf) for leaf in jax.tree.leaves(tree))


    def leaf_total(tree):
        return sum(leaf.sum() for leaf in jax.tree.leaves(tree))
    """
    main = """
    import jax

    from util import leaf_total, pytree_size


    @jax.jit
    def init(position):
        if pytree_size(position) < 2:
            raise ValueError("needs two dimensions")
        if leaf_total(position) < 0:
            raise ValueError("negative")
        return position
    """
    files = {"util.py": util, "main.py": main}
    assert codes_of(tmp_path, files, "main.py") == [("JAX701", 11)]

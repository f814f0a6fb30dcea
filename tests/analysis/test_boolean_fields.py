"""Boolean arrays from how they are built, and the fields of the module's classes that every
construction gives one (`jax_lsp.analysis.fields`)."""

from __future__ import annotations

import ast
import textwrap

from jax_lsp.analysis.booleans import is_boolean
from jax_lsp.analysis.document import Document
from jax_lsp.analysis.fields import _Site
from jax_lsp.analysis.model import ModuleModel

IMPORTS = "import jax\nimport jax.numpy as jnp\nimport numpy as np\n"


def boolean(expression: str) -> bool:
    model = ModuleModel(Document(IMPORTS))
    return is_boolean(ast.parse(expression, mode="eval").body, _Site(model.resolver))


def test_arrays_built_boolean():
    assert boolean("jnp.array([True, False, True])")
    assert boolean("np.asarray([[True], [False]])")
    assert boolean("jnp.zeros(3, dtype=bool)")
    assert boolean("np.ones((2, 2), jnp.bool_)")
    assert boolean("jnp.full(4, True, 'bool')")


def test_arrays_built_otherwise():
    assert not boolean("jnp.array([1, 0, 1])")
    assert not boolean("jnp.array([True, 0])")  # promoted to int
    assert not boolean("jnp.ones(3)")
    assert not boolean("jnp.array([])")
    assert not boolean("jnp.zeros(3, dtype=jnp.int32)")


def test_a_boolean_array_rearranged_stays_boolean():
    # a transformer's causal mask: `x[mask] = v` in traced code then gets the
    # `jnp.where` fix, as `.at[mask]` raises NonConcreteBooleanIndexError there
    assert boolean("jnp.triu(jnp.ones((4, 4), dtype=bool), k=1)")
    assert boolean("np.tril(np.ones((4, 4), bool))")
    assert boolean("jnp.broadcast_to(jnp.isnan(jnp.ones(3)), (2, 3))")
    assert boolean("jnp.expand_dims(jnp.ones(3) > 0, 0)")
    assert not boolean("jnp.triu(jnp.ones((4, 4)), k=1)")  # a float array rearranged
    assert not boolean("jnp.reshape(*parts)")
    # the truth the model claims, for each function, in JAX and in NumPy
    import jax.numpy as jnp
    import numpy as np

    for module in (jnp, np):
        mask = module.ones((3, 3), dtype=bool)
        for name, args in [
            *[(name, ()) for name in ("triu", "tril", "transpose", "ravel", "flip", "squeeze")],
            *[(name, ()) for name in ("fliplr", "flipud", "rot90", "atleast_3d")],
            ("expand_dims", (0,)),
            ("broadcast_to", ((2, 3, 3),)),
            ("reshape", ((9,),)),
            ("roll", (1,)),
            ("tile", (2,)),
            ("repeat", (2,)),
            ("swapaxes", (0, 1)),
            ("moveaxis", (0, 1)),
        ]:
            assert getattr(module, name)(mask, *args).dtype == bool, (module, name)


def fields_of(source: str) -> dict[str, frozenset[str]]:
    return ModuleModel(Document(IMPORTS + textwrap.dedent(source))).boolean_fields


CLASS = """
from typing import NamedTuple

class Obs(NamedTuple):
    x: jax.Array
    valid: jax.Array
"""


def test_a_field_every_construction_gives_a_boolean_array():
    assert fields_of(CLASS + "a = Obs(jnp.ones(2), jnp.array([True, False]))\n") == {
        "Obs": frozenset({"valid"})
    }
    in_a_helper = "def make(x):\n    ok = x > 0\n    return Obs(x=x, valid=ok)\n"
    assert fields_of(CLASS + in_a_helper) == {"Obs": frozenset({"valid"})}


def test_one_construction_otherwise_or_unseen_says_nothing():
    mixed = "a = Obs(jnp.ones(2), jnp.ones(2) > 0)\nb = Obs(jnp.ones(2), jnp.array([0, 1]))\n"
    assert fields_of(CLASS + mixed) == {}
    assert fields_of(CLASS) == {}  # never built here
    hidden = "parts = (jnp.ones(2), jnp.ones(2) > 0)\na = Obs(*parts)\n"
    assert fields_of(CLASS + hidden) == {}


def test_a_field_the_constructor_does_not_take_takes_no_argument():
    skipped = """
    from dataclasses import dataclass, field

    @dataclass
    class Obs:
        count: int = field(init=False, default=0)
        x: jax.Array = None
        valid: jax.Array = None

    a = Obs(jnp.ones(2), jnp.ones(2) > 0)
    """
    # The second argument is `valid`'s: `count` is not a parameter of the constructor.
    assert fields_of(skipped) == {"Obs": frozenset({"valid"})}


def test_a_constructor_of_its_own_maps_no_argument_to_a_field():
    own_init = """
    class Obs:
        x: jax.Array
        valid: jax.Array

        def __init__(self, valid, x):
            self.x, self.valid = x, valid

    a = Obs(jnp.ones(2), jnp.ones(2) > 0)
    """
    assert fields_of(own_init) == {}


def test_a_declared_boolean_field():
    declared = """
    import equinox as eqx
    from jaxtyping import Array, Bool

    class Masked(eqx.Module):
        keep: Bool[Array, "..."]
    """
    assert fields_of(declared) == {"Masked": frozenset({"keep"})}

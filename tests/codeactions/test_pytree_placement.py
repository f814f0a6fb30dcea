"""Which attributes the PyTree registration makes children and which aux data, and when that
place is a guess (the fix is then unsafe). Every fixed class runs under JAX: an array in aux
data is a constant of the compiled code (zero gradients, and a second instance with other
arrays raises ValueError), a list of sizes among the children becomes tracers no shape takes."""

from __future__ import annotations

import pytest

from jax_lsp.codeactions.pytree import pytree_fixes, register_fix, static_helper_fix
from jax_lsp.findings import Applicability
from tests.codeactions.helpers import applied, position_of, source
from tests.runtime import run_snippet

CONTAINERS = source(
    """
    import jax
    import jax.numpy as jnp


    class Layers:
        def __init__(self, ws):
            self.ws = ws

        @jax.jit
        def apply(self, x):
            for w in self.ws:
                x = w * x
            return x


    class Opt:
        def __init__(self, w, b=None):
            self.w = w
            self.b = b

        @jax.jit
        def apply(self, x):
            y = self.w * x
            if self.b is not None:
                y = y + self.b
            return y


    class Sizes:
        def __init__(self, w, sizes):
            self.w = w
            self.sizes = sizes

        @jax.jit
        def apply(self, x):
            return jnp.zeros(self.sizes[0]) + self.w * x


    def loss_layers(w, x):
        return Layers([w, jnp.array(3.0)]).apply(x).sum()


    def loss_opt(b, x):
        return Opt(jnp.array(1.0), jnp.asarray(b)).apply(x).sum()


    plain = Opt(jnp.array(1.0))
    sized = Sizes(jnp.array(1.0), [2])
    """
)
CONTAINERS_CHECK = """
x = jnp.array([1.0, -2.0])
assert float(jax.grad(loss_layers)(jnp.array(2.0), x)) == -3.0  # the list's arrays are traced
vector = Layers([jnp.array([5.0, 5.0]), jnp.array([3.0, 3.0])]).apply(x)
assert vector.tolist() == [15.0, -30.0]  # a second instance with other arrays
assert float(jax.grad(loss_opt)(jnp.array(5.0), x)) == 2.0  # the optional array is traced
assert plain.apply(x).tolist() == [1.0, -2.0]
assert sized.apply(x).tolist() == [1.0, -2.0]  # the sizes stay Python ints
"""


def _fixed(text: str, name: str) -> str:
    fix = register_fix(text, *position_of(text, f"class {name}"))
    assert fix is not None and fix.applicability is Applicability.SAFE, fix
    return applied(text, fix)


def test_arrays_in_containers_and_optional_arrays_are_children_sizes_aux():
    fixed = CONTAINERS
    for name in ("Layers", "Opt", "Sizes"):
        fixed = _fixed(fixed, name)
    assert "children = (self.ws,)\n        aux_data = ()" in fixed
    assert "children = (self.w, self.b)" in fixed
    assert "children = (self.w,)\n        aux_data = (self.sizes,)" in fixed
    outcome = run_snippet(fixed, CONTAINERS_CHECK)
    assert outcome.error is None, f"{outcome.error!r}\n{fixed}"


def test_the_helper_fix_keeps_containers_of_arrays_traced():
    fixed = CONTAINERS
    for name in ("Layers", "Opt"):
        fix = static_helper_fix(fixed, *position_of(fixed, f"class {name}"))
        assert fix is not None and fix.applicability is Applicability.SAFE
        fixed = applied(fixed, fix)
    fixed = _fixed(fixed, "Sizes")
    outcome = run_snippet(fixed, CONTAINERS_CHECK)
    assert outcome.error is None, f"{outcome.error!r}\n{fixed}"


def test_no_static_argument_holds_a_list():
    """jit hashes static arguments: `sizes` (a list) fits aux data, not `static_argnames`."""
    at = position_of(CONTAINERS, "class Sizes")
    assert static_helper_fix(CONTAINERS, *at) is None
    assert [f.title for f in pytree_fixes(CONTAINERS, *at)] == [
        "Register the class as a PyTree (register_pytree_node_class)"
    ]


INHERITED_AND_KWARGS = source(
    """
    import jax
    import jax.numpy as jnp


    class Parent:
        def __init__(self, w):
            self.w = w


    class Child(Parent):
        def __init__(self, w, b):
            super().__init__(w)
            self.b = b

        @jax.jit
        def apply(self, x):
            return self.w * x + self.b


    class Kw:
        def __init__(self, w, **options):
            self.w = w
            self.options = options

        @jax.jit
        def apply(self, x):
            return self.w * x


    child = Child(jnp.array(1.0), 1.0)
    kw = Kw(jnp.array(3.0), mode="a")
    """
)


@pytest.mark.parametrize("name", ["Child", "Kw"])
def test_inherited_attributes_and_kwargs_are_carried_but_guessed(name):
    """The parent's `w` is flattened too (the rebuilt `self` needs it), but what its
    constructor is given is not seen; `**options` may hold anything another caller passes."""
    text = INHERITED_AND_KWARGS
    at = position_of(text, f"class {name}")
    fixes = pytree_fixes(text, *at)
    assert fixes and all(f.applicability is Applicability.UNSAFE for f in fixes)
    fixed = applied(text, register_fix(text, *at))
    if name == "Child":
        assert "children = (self.b, self.w)" in fixed
    else:
        assert "aux_data = (self.options,)" in fixed  # given strings here
    check = "x = jnp.array([1.0, -2.0])\n"
    check += "assert child.apply(x).tolist() == [2.0, -1.0]\n" if name == "Child" else ""
    check += "assert kw.apply(x).tolist() == [3.0, -6.0]\n" if name == "Kw" else ""
    outcome = run_snippet(fixed, check)
    assert outcome.error is None, f"{outcome.error!r}\n{fixed}"


def test_a_base_class_the_module_does_not_define_makes_its_reads_a_guess():
    text = source(
        """
        import collections

        import jax


        class Model(collections.UserDict):
            def __init__(self, w):
                super().__init__()
                self.w = jnp.asarray(w)

            @jax.jit
            def apply(self, x):
                return self.w * x + self.scale
        """
    )
    fix = register_fix(text, *position_of(text, "class Model"))
    assert fix is not None and fix.applicability is Applicability.UNSAFE


def test_an_optional_attribute_given_a_value_not_known_is_a_guess():
    text = CONTAINERS.replace("jnp.asarray(b)", "b")
    fix = register_fix(text, *position_of(text, "class Opt"))
    assert fix is not None and fix.applicability is Applicability.UNSAFE
    fixed = _fixed(_fixed(applied(text, fix), "Layers"), "Sizes")
    assert "children = (self.w, self.b)" in fixed  # the guess: traced, as arrays need
    outcome = run_snippet(fixed, CONTAINERS_CHECK)
    assert outcome.error is None, f"{outcome.error!r}\n{fixed}"


@pytest.mark.parametrize(
    ("init", "call"),
    [
        ("self.ws = ws", "Net(make())"),  # a value not known
        ("self.ws = list(ws)", "Net(make())"),  # a container of values not known
        ("self.ws = []", "Net(None)"),  # filled later with what is not seen
    ],
)
def test_an_attribute_whose_value_is_not_known_makes_the_registration_unsafe(init, call):
    text = source(
        f"""
        import jax


        class Net:
            def __init__(self, ws):
                {init}

            @jax.jit
            def apply(self, x):
                return x


        net = {call}
        """
    )
    for fix in pytree_fixes(text, *position_of(text, "class Net"))[:2]:
        assert fix.applicability is Applicability.UNSAFE, fix.title


def test_a_float_setting_stays_safe_child_or_aux_by_its_use():
    text = source(
        """
        import jax
        import jax.numpy as jnp


        class Step:
            def __init__(self, w, lr=0.5, clip=1.0):
                self.w = jnp.asarray(w)
                self.lr = lr
                self.clip = clip

            @jax.jit
            def apply(self, x):
                if self.clip > 0:
                    x = jnp.clip(x, -self.clip, self.clip)
                return self.w * x * self.lr
        """
    )
    fixed = _fixed(text, "Step")
    assert "children = (self.w, self.lr)" in fixed and "aux_data = (self.clip,)" in fixed
    outcome = run_snippet(fixed, "assert Step(2.0).apply(jnp.array(3.0)).tolist() == 1.0")
    assert outcome.error is None, f"{outcome.error!r}\n{fixed}"


def test_an_attribute_used_as_a_shape_is_aux_data_even_when_its_value_is_not_known():
    text = CONTAINERS.replace("sized = Sizes(jnp.array(1.0), [2])", "sized = build([2])")
    text = text.replace(
        "\nplain = ", "\ndef build(sizes):\n    return Sizes(jnp.array(1.0), sizes)\n\n\nplain = "
    )
    fix = register_fix(text, *position_of(text, "class Sizes"))
    assert fix is not None and fix.applicability is Applicability.UNSAFE  # a guess
    fixed = _fixed(_fixed(applied(text, fix), "Layers"), "Opt")
    assert "children = (self.w,)\n        aux_data = (self.sizes,)" in fixed
    outcome = run_snippet(fixed, CONTAINERS_CHECK)
    assert outcome.error is None, f"{outcome.error!r}\n{fixed}"

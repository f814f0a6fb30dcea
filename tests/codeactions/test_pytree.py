"""Jitted method to PyTree: exact in/out pairs, and the fixed classes run under JAX."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from jax_lsp.codeactions.pytree import (
    pytree_fixes,
    register_fix,
    static_helper_fix,
    static_self_fix,
    unstatic_register_fix,
)
from jax_lsp.findings import Applicability
from tests.codeactions.helpers import applied, position_of, run_as_module, source
from tests.runtime import run_snippet

TRIALS = Path(__file__).parent.parent / "fixtures" / "trials"
GUIDE = source(
    """
    import jax.numpy as jnp
    from jax import jit


    class CustomClass:
        def __init__(self, x: jnp.ndarray, mul: bool):
            self.x = x
            self.mul = mul

        @jit  # how to do this correctly?
        def calc(self, y):
            if self.mul:
                return self.x * y
            return y
    """
)
GUIDE_CHECK = """
c = CustomClass(2, True)
assert c.calc(3) == 6
c.mul = False
assert c.calc(3) == 3  # the attribute change is seen on the next call
c = CustomClass(jnp.array(2), True)
assert c.calc(3) == 6
c.x = jnp.array(100)
assert c.calc(3) == 300
"""
CLASS_AT = position_of(GUIDE, "class CustomClass")


def test_guide_class_fails_unfixed():
    outcome = run_snippet(GUIDE, GUIDE_CHECK)
    assert isinstance(outcome.error, TypeError)
    assert "Error interpreting argument" in str(outcome.error)


def test_guide_class_registered_exactly():
    fixed = applied(GUIDE, register_fix(GUIDE, *CLASS_AT))
    assert fixed == source(
        """
        import jax.numpy as jnp
        from jax import jit
        import jax


        @jax.tree_util.register_pytree_node_class
        class CustomClass:
            def __init__(self, x: jnp.ndarray, mul: bool):
                self.x = x
                self.mul = mul

            @jit  # how to do this correctly?
            def calc(self, y):
                if self.mul:
                    return self.x * y
                return y

            def tree_flatten(self):
                children = (self.x,)
                aux_data = (self.mul,)
                return children, aux_data

            @classmethod
            def tree_unflatten(cls, aux_data, children):
                (x,) = children
                (mul,) = aux_data
                return cls(x=x, mul=mul)
        """
    )
    outcome = run_snippet(fixed, GUIDE_CHECK)
    assert outcome.error is None, outcome.error


def test_position_of_the_jitted_method_finds_the_class():
    at_method = register_fix(GUIDE, *position_of(GUIDE, "@jit"))
    assert at_method == register_fix(GUIDE, *CLASS_AT)


def test_static_helper_is_the_guides_strategy_one():
    fix = static_helper_fix(GUIDE, *CLASS_AT)
    assert fix is not None and fix.applicability is Applicability.SAFE
    fixed = applied(GUIDE, fix)
    assert fixed == source(
        """
        import jax.numpy as jnp
        from jax import jit
        import functools


        class CustomClass:
            def __init__(self, x: jnp.ndarray, mul: bool):
                self.x = x
                self.mul = mul

            def calc(self, y):
                return _calc(self.mul, self.x, y)


        @functools.partial(jit, static_argnames=("mul",))
        def _calc(mul, x, y):
            if mul:
                return x * y
            return y
        """
    )
    assert run_snippet(fixed, GUIDE_CHECK).error is None


SCALER = source(
    """
    import jax.numpy as jnp
    from jax import jit


    class Scaler:
        def __init__(self, factor: int, mul: bool):
            self.factor = factor
            self.mul = mul

        @jit
        def calc(self, y):
            if self.mul:
                return self.factor * y
            return y


    scaler = Scaler(2, True)
    """
)


def test_static_self_is_unsafe_and_goes_stale():
    fix = static_self_fix(SCALER, *position_of(SCALER, "class Scaler"))
    assert fix is not None and fix.applicability is Applicability.UNSAFE
    fixed = applied(SCALER, fix)
    assert "@functools.partial(jit, static_argnums=0)" in fixed
    assert "return hash((self.factor, self.mul))" in fixed
    assert run_snippet(fixed, "assert scaler.calc(3.0) == 6.0").error is None
    # Why it is unsafe (measured): the mutated object hits the stale cache entry.
    stale = run_snippet(
        fixed, "first = scaler.calc(3)\nscaler.mul = False\nsecond = scaler.calc(3)"
    )
    assert stale.error is None
    assert int(stale.namespace["first"]) == 6 and int(stale.namespace["second"]) == 6


def test_no_static_self_for_an_array_attribute():
    """`x: jnp.ndarray` (or `self.w = jnp.zeros(n)`): the value `__hash__` the fix would write
    raises TypeError."""
    assert static_self_fix(GUIDE, *CLASS_AT) is None
    trial = (TRIALS / "p11_jit_method.py").read_text()  # self.w = jnp.zeros(dim)
    assert static_self_fix(trial, *position_of(trial, "class LinearModel")) is None
    trial = (TRIALS / "p19_jit_method.py").read_text()  # self.w = w, given jnp.ones(3)
    assert static_self_fix(trial, *position_of(trial, "class LinearModel")) is None
    fixed = applied(SCALER, static_self_fix(SCALER, *position_of(SCALER, "class Scaler")))
    outcome = run_snippet(fixed, "hash(Scaler(jnp.ones(2), True))")
    assert isinstance(outcome.error, TypeError)  # what the fix would do to an array attribute


def test_fix_order_and_titles():
    fixes = pytree_fixes(SCALER, *position_of(SCALER, "class Scaler"))
    assert [f.applicability for f in fixes] == [
        Applicability.SAFE,
        Applicability.SAFE,
        Applicability.UNSAFE,
    ]
    assert "PyTree" in fixes[0].title


WORKING_INIT = source(
    """
    import jax
    import jax.numpy as jnp

    CALLS = []


    class Scaler:
        \"\"\"Scales inputs.\"\"\"

        def __init__(self, weights, mode: str, steps=3):
            CALLS.append(1)  # work a rebuild must not repeat
            self.weights = jnp.asarray(weights) * 2.0
            self.mode = mode
            self.steps = steps
            self.offset = 1.0

        def _step(self, y):
            for _ in range(self.steps):
                y = y + self.offset
            return y

        @jax.jit
        def apply(self, y):
            if self.mode == "double":
                y = y * 2
            return self._step(y) * self.weights.sum()
    """
)


def test_working_init_is_never_rerun_and_statics_are_found():
    fixed = applied(WORKING_INIT, register_fix(WORKING_INIT, *position_of(WORKING_INIT, "class")))
    assert "import jax\n" in fixed and fixed.count("import jax\n") == 1  # no import added
    assert "\n@jax.tree_util.register_pytree_node_class\nclass Scaler:\n" in fixed
    assert source(
        """
        def tree_flatten(self):
            children = (self.weights, self.offset)
            aux_data = (self.mode, self.steps)
            return children, aux_data

        @classmethod
        def tree_unflatten(cls, aux_data, children):
            obj = object.__new__(cls)
            obj.weights, obj.offset = children
            obj.mode, obj.steps = aux_data
            return obj
        """
    ) in source(fixed[fixed.index("    def tree_flatten") :])
    check = """
s = Scaler(jnp.ones(2), "double")
assert float(s.apply(1.0)) == (2.0 + 3.0) * 4.0
s.mode = "single"
s.offset = 10.0
assert float(s.apply(1.0)) == (1.0 + 30.0) * 4.0
assert len(CALLS) == 1, CALLS
"""
    outcome = run_snippet(fixed, check)
    assert outcome.error is None, outcome.error


DATACLASS = source(
    """
    import enum
    from dataclasses import dataclass

    import jax


    class Mode(enum.Enum):
        FAST = 1
        SLOW = 2


    @dataclass
    class Model:
        x: jax.Array
        mul: bool
        mode: Mode = Mode.FAST

        @jax.jit
        def calc(self, y):
            return self.x * y if self.mul else y
    """
)


def test_dataclass_gets_register_dataclass():
    fix = register_fix(DATACLASS, *position_of(DATACLASS, "class Model"))
    fixed = applied(DATACLASS, fix)
    assert fixed == DATACLASS.replace("import jax\n", "import jax\nimport functools\n", 1).replace(
        "@dataclass\nclass Model",
        "@functools.partial(jax.tree_util.register_dataclass, "
        'data_fields=["x"], meta_fields=["mul", "mode"])\n@dataclass\nclass Model',
    )
    check = """
import jax.numpy as jnp
m = Model(jnp.array(2.0), True)
assert float(m.calc(3.0)) == 6.0
m.mul = False
assert float(m.calc(3.0)) == 3.0
"""
    assert run_as_module(fixed, check).error is None


@pytest.mark.parametrize(
    "text",
    [
        # Already registered.
        """
        import jax

        @jax.tree_util.register_pytree_node_class
        class A:
            def __init__(self, x):
                self.x = x
        """,
        # No attributes to derive the PyTree from.
        """
        import jax

        class A:
            @jax.jit
            def f(self, y):
                return y
        """,
        # Half of the protocol already written: leave it to the author.
        """
        import jax

        class A:
            def __init__(self, x):
                self.x = x

            def tree_flatten(self):
                return (self.x,), None
        """,
    ],
)
def test_no_registration(text):
    text = source(text)
    assert register_fix(text, *position_of(text, "class")) is None


def test_helper_refused_when_self_is_used_otherwise():
    text = source(
        """
        import jax

        class A:
            def __init__(self, x):
                self.x = x

            @jax.jit
            def f(self, y):
                return self.g(y) + self.x
        """
    )
    assert static_helper_fix(text, *position_of(text, "class")) is None
    assert register_fix(text, *position_of(text, "class")) is not None


def test_nested_class_keeps_its_indentation():
    text = source(
        """
        import jax


        def build():
            class Inner:
                def __init__(self, x):
                    self.x = x

                @jax.jit
                def f(self, y):
                    return self.x + y

            return Inner(1.0).f(2.0)
        """
    )
    fixed = applied(text, register_fix(text, *position_of(text, "class")))
    ast.parse(fixed)
    assert "    @jax.tree_util.register_pytree_node_class\n    class Inner:" in fixed
    assert "\n        def tree_flatten(self):\n" in fixed
    assert static_helper_fix(text, *position_of(text, "class")) is None
    assert run_snippet(fixed, "assert float(build()) == 3.0").error is None


def test_import_and_decorator_at_one_place_are_one_edit():
    text = "from jax import jit\nclass C:\n    def __init__(self, x):\n        self.x = x\n"
    fix = register_fix(text, 1, 0)
    assert fix is not None
    assert fix.edits[0].content == "import jax\n@jax.tree_util.register_pytree_node_class\n"
    assert applied(text, fix).startswith(
        "from jax import jit\nimport jax\n@jax.tree_util.register_pytree_node_class\nclass C:\n"
    )


# Attributes go where their values belong ----------------------------------------------------

REAL_CLASS = source(
    """
    from functools import partial

    import jax
    import jax.numpy as jnp


    class Config:
        def __init__(self):
            self.name = "cfg"


    class Reservoir:
        def __init__(self, units, lr=0.5, config=None):
            self.units = units
            self.lr = lr
            self.activation = jnp.tanh
            self.scale = partial(jnp.multiply, 2.0)
            self.config = config
            self.weights = jnp.ones((units,))
            self.state = {"out": jnp.zeros((units,))}

        @jax.jit
        def step(self, x):
            out = jnp.zeros((self.units,)) + self.activation(self.weights * x) * self.lr
            return self.scale(out) + self.state["out"]


    node = Reservoir(3, config=Config())
    """
)


def test_settings_functions_and_plain_objects_are_aux_arrays_children():
    fix = register_fix(REAL_CLASS, *position_of(REAL_CLASS, "class Reservoir"))
    assert fix is not None and fix.applicability is Applicability.SAFE
    fixed = applied(REAL_CLASS, fix)
    assert "children = (self.lr, self.weights, self.state)" in fixed
    assert "aux_data = (self.units, self.activation, self.scale, self.config)" in fixed
    outcome = run_snippet(fixed, "out = node.step(1.0)")
    assert outcome.error is None, f"{outcome.error!r}\n{fixed}"
    assert outcome.namespace["out"].shape == (3,)
    # Unfixed, the jit of the method cannot take `self` at all.
    assert isinstance(run_snippet(REAL_CLASS, "node.step(1.0)").error, TypeError)


HELD = source(
    """
    from functools import partial

    import jax
    import jax.numpy as jnp


    class Net:
        def __init__(self):
            self.param = jnp.ones(3)


    class Trainer:
        def __init__(self, net, scale):
            self.net = net
            self.scale = scale

        @JIT
        def loss(self, x):
            return jnp.sum(self.net.param * x) * self.scale


    trainer = Trainer(Net(), 2.0)
    """
)


@pytest.mark.parametrize("jit", ["jax.jit", "partial(jax.jit, static_argnums=0)"])
def test_an_object_holding_arrays_is_named_for_registration_and_unsafe(jit):
    text = HELD.replace("JIT", jit)
    if jit == "jax.jit":  # JAX401's fix
        fix = register_fix(text, *position_of(text, "class Trainer"))
    else:  # JAX402's
        fix = unstatic_register_fix(text, *position_of(text, "partial(jax.jit"))
    assert fix is not None and fix.applicability is Applicability.UNSAFE
    assert fix.title.endswith("; register `Net` as a PyTree too")
    fixed = applied(text, fix)
    assert "    @jax.jit\n" in fixed
    assert "children = (self.scale,)" in fixed and "aux_data = (self.net,)" in fixed
    outcome = run_snippet(fixed, "total = trainer.loss(jnp.ones(3))")
    assert outcome.error is None and float(outcome.namespace["total"]) == 6.0


def test_attributes_set_after_init_are_kept_and_make_the_fix_unsafe():
    text = source(
        """
        import jax
        import jax.numpy as jnp


        class Model:
            def __init__(self, size):
                self.size = size

            def initialize(self, x):
                self.width = x.shape[-1]
                self.w = jnp.ones((self.size, self.width))

            @jax.jit
            def apply(self, x):
                return self.w @ x + jnp.zeros((self.width,))[0]


        model = Model(2)
        model.initialize(jnp.ones(4))
        """
    )
    fix = register_fix(text, *position_of(text, "class Model"))
    assert fix is not None and fix.applicability is Applicability.UNSAFE
    fixed = applied(text, fix)
    assert "children = (self.w,)" in fixed
    assert "aux_data = (self.size, self.width)" in fixed
    assert "obj = object.__new__(cls)" in fixed  # never `cls(size=...)`: it would drop `w`
    outcome = run_snippet(fixed, "out = model.apply(jnp.ones(4))")
    assert outcome.error is None, f"{outcome.error!r}\n{fixed}"
    assert outcome.namespace["out"].tolist() == [4.0, 4.0]


def test_a_traced_method_assigning_self_is_not_rewritten():
    text = source(
        """
        import functools

        import jax
        import jax.numpy as jnp


        class Opt:
            def __init__(self, param):
                self.param = param

            @functools.partial(jax.jit, static_argnums=(0,))
            def step(self):
                self.param = self.param - 0.1
                return self.param


        opt = Opt(jnp.ones(2))
        """
    )
    at = position_of(text, "class Opt")
    assert pytree_fixes(text, *at) == ()
    assert register_fix(text, *at) is None
    assert static_helper_fix(text, *at) is None and static_self_fix(text, *at) is None


def test_helpers_of_dunder_and_private_methods_are_named_for_calls_inside_the_class():
    # `___call__` read badly; `__step` (two leading underscores) called from the method's body
    # is mangled to `_Model__step` and raised NameError.
    text = source(
        """
        import jax
        import jax.numpy as jnp


        class Model:
            def __init__(self, scale: float, clip: bool):
                self.scale = scale
                self.clip = clip

            @jax.jit
            def __call__(self, x):
                return self.scale * x

            @jax.jit
            def __step(self, x):
                if self.clip:
                    return jnp.clip(x, -1, 1)
                return x

            @jax.jit
            def _call(self, x):
                return x + self.scale
        """
    )
    fixed = applied(text, static_helper_fix(text, *position_of(text, "class Model")))
    assert "return _call(self.scale, x)" in fixed and "def _call(scale, x):" in fixed
    assert "return _step(self.clip, x)" in fixed and "def _step(clip, x):" in fixed
    assert "return _model_call(self.scale, x)" in fixed  # `_call` was taken
    check = (
        "m = Model(2.0, True)\n"
        "assert m(jnp.ones(2)).tolist() == [2.0, 2.0]\n"
        "assert m._Model__step(jnp.full(2, 3.0)).tolist() == [1.0, 1.0]\n"
        "assert m._call(jnp.ones(2)).tolist() == [3.0, 3.0]\n"
    )
    outcome = run_snippet(fixed, check)
    assert outcome.error is None, outcome.error


# A method jitted with a static `self` whose attribute top-level code sets, then changes
# between calls: it ran (stale: 1.2 twice), and the registration that left `scale` out made
# the rebuilt `self` lack it (AttributeError).
STATIC_SELF_CHANGED = source(
    """
    from functools import partial

    import jax


    class Simulator:
        def __init__(self, dt):
            self.dt = dt

        @partial(jax.jit, static_argnums=0)
        def run(self, x):
            return x + self.dt * self.scale


    sim = Simulator(0.1)
    sim.scale = 2.0
    first = sim.run(1.0)
    sim.scale = 3.0  # changed between calls
    second = sim.run(1.0)
    """
)


def test_attributes_set_on_instances_are_carried_by_the_registration():
    check = "assert abs(float(first) - 1.2) < 1e-6"
    before = run_as_module(STATIC_SELF_CHANGED, check + " and float(second) == float(first)")
    assert before.error is None, before.error  # ran, stale
    fix = unstatic_register_fix(
        STATIC_SELF_CHANGED, *position_of(STATIC_SELF_CHANGED, "partial(jax.jit")
    )
    assert fix is not None and fix.applicability is Applicability.UNSAFE  # flattened before set
    fixed = applied(STATIC_SELF_CHANGED, fix)
    assert "children = (self.dt, self.scale)" in fixed
    assert "obj = object.__new__(cls)" in fixed
    after = run_as_module(fixed, check + " and abs(float(second) - 1.3) < 1e-6")
    assert after.error is None, f"{after.error!r}\n{fixed}"  # runs, and sees the change


def test_no_registration_where_the_rebuilt_self_would_lack_an_attribute():
    """`scale` comes from `setattr` with a computed name: a registration cannot carry it, so
    the jitted method would raise AttributeError on the rebuilt `self`."""
    text = STATIC_SELF_CHANGED.replace("sim.scale = 2.0", 'setattr(sim, "sc" + "ale", 2.0)')
    text = text.replace("sim.scale = 3.0", 'setattr(sim, "sc" + "ale", 3.0)')
    assert run_as_module(text, "assert float(first) == float(second)").error is None
    assert unstatic_register_fix(text, *position_of(text, "partial(jax.jit")) is None
    plain = text.replace("@partial(jax.jit, static_argnums=0)", "@jax.jit")
    assert register_fix(plain, *position_of(plain, "class Simulator")) is None


def test_static_self_by_identity_where_no_registration_can_carry_self():
    """`scale` is set where no fix can see (a computed `setattr`), `dt` holds an array: no
    registration, no helper, no value `__hash__` (an array is unhashable); the default identity
    hash and equality are what jit needs of a static `self`, and the program runs."""
    text = source(
        """
        import jax
        import jax.numpy as jnp


        class Simulator:
            def __init__(self, dt):
                self.dt = jnp.asarray(dt)

            @jax.jit
            def run(self, x):
                return x + self.dt * self.scale


        sim = Simulator(0.1)
        setattr(sim, "sc" + "ale", 2.0)
        """
    )
    check = "out = sim.run(1.0)"
    assert isinstance(run_as_module(text, check).error, TypeError)
    (fix,) = pytree_fixes(text, *position_of(text, "class Simulator"))
    assert fix.applicability is Applicability.UNSAFE and "hashed by identity" in fix.title
    fixed = applied(text, fix)
    assert "static_argnums=0" in fixed and "__hash__" not in fixed
    outcome = run_as_module(fixed, check)
    assert outcome.error is None, f"{outcome.error!r}\n{fixed}"
    assert abs(float(outcome.namespace["out"]) - 1.2) < 1e-6

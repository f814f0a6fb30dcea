"""Rules that read facts of other units (x64 switches, key helpers, jitted signatures, float
globals) must see those facts change even when the unit they report in is unchanged."""

from __future__ import annotations

from jax_lsp.analysis.document import Document
from jax_lsp.diagnostics import RULES_BY_CODE
from jax_lsp.engine import analyze

IMPORTS = "import jax\nimport jax.numpy as jnp\nfrom functools import partial\n\n"


def codes(text: str, code: str) -> list[int]:
    findings = analyze(Document(IMPORTS + text), (RULES_BY_CODE[code],)).findings
    return [f.span.start.line - 4 for f in findings]


def test_x64_switch_in_another_unit():
    user = "def f():\n    return jnp.zeros(3, dtype=jnp.float64)\n"
    assert codes(user, "JAX901") == [1]
    assert codes('jax.config.update("jax_enable_x64", True)\n' + user, "JAX901") == []
    assert codes(user, "JAX901") == [1]


def test_key_helper_in_another_unit():
    sampling = "def noise(key):\n    return jax.random.normal(key)\n"
    splitting = "def noise(key):\n    return jax.random.split(key)\n"  # split consumes too
    folding = "def noise(key):\n    return jax.random.fold_in(key, 1)\n"  # fold_in does not
    user = "\ndef g(key):\n    a = noise(key)\n    return noise(key), a\n"
    assert codes(sampling + user, "JAX602") == [5]
    assert codes(folding + user, "JAX602") == []
    assert codes(splitting + user, "JAX602") == [5]


def test_jitted_signature_in_another_unit():
    user = "\nresult = total(jnp.ones(3), [0])\n"
    static = "@partial(jax.jit, static_argnums=1)\ndef total(x, axes):\n    return x.sum(axes)\n"
    traced = "@jax.jit\ndef total(x, axes):\n    return x.sum(axes)\n"
    assert codes(static + user, "JAX1002") == [4]
    assert codes(traced + user, "JAX1002") == []


def test_float_global_in_another_unit():
    user = "\nsmall = VALUES.astype(jnp.uint8)\n"
    assert codes("VALUES = jnp.array([1.5, 300.0])\n" + user, "JAX903") == [2]
    assert codes("VALUES = jnp.array([1, 300])\n" + user, "JAX903") == []


def test_key_reuse_across_top_level_statements():
    script = "key = jax.random.key(0)\nx = jax.random.normal(key)\ny = jax.random.normal(key)\n"
    assert codes(script, "JAX602") == [2]
    split = script.replace("\ny =", "\nkey, sub = jax.random.split(key)\ny =")
    assert codes(split, "JAX602") == [2]  # the split consumes `key` again; `y` draws afresh
    split_first = script.replace("\nx =", "\nkey, sub = jax.random.split(key)\nx =")
    split_first = split_first.replace("normal(key)\ny", "normal(sub)\ny")
    assert codes(split_first, "JAX602") == []
    assert codes(script, "JAX602") == [2]


def test_attribute_write_in_another_unit():
    model = (
        "class Model:\n"
        "    def __init__(self, rate):\n"
        "        self.rate = rate\n"
        "        self.steps = 0\n\n"
        "    @partial(jax.jit, static_argnums=0)\n"
        "    def apply(self, x):\n"
        "        return self.rate * x\n"
    )
    model_and_use = model + "\nm = Model(0.1)\n"
    assert codes(model_and_use, "JAX402") == []
    assert codes(model_and_use + "m.rate = 0.2\n", "JAX402") == [5]  # read by apply: stale
    assert codes(model_and_use + "m.steps = 1\n", "JAX402") == []  # never read by apply
    assert codes(model_and_use, "JAX402") == []


# A class whose jitted bound method reads `self.factor`: stale if a Scaler's factor changes.
_SCALER = (
    "class Scaler:\n"
    "    def __init__(self, factor):\n"
    "        self.factor = factor\n"
    "        self.apply = jax.jit(self._apply)\n\n"
    "    def _apply(self, x):\n"
    "        return self.factor * x\n"
)


def test_attribute_write_in_another_unit_of_a_jitted_bound_method():
    scaler = _SCALER
    made = scaler + "\ns = Scaler(2.0)\n"
    assert codes(made, "JAX402") == []
    assert codes(made + "s.factor = 10.0\n", "JAX402") == [3]  # read by _apply: stale
    assert codes(made + "s.other = 1\n", "JAX402") == []  # never read by _apply
    assert codes(made, "JAX402") == []


def test_attribute_written_on_an_object_a_function_made():
    scaler = _SCALER
    other = (
        "\ndef other_from(factor):\n"
        "    made = object.__new__(Other)\n"
        "    made.factor = factor\n"
        "    return made\n"
    )
    assert codes(scaler + other, "JAX402") == []  # an imported Other: no Scaler changes
    own = other.replace("object.__new__(Other)", "object.__new__(Scaler)")
    assert codes(scaler + own, "JAX402") == [3]
    subclass = "\nclass Doubled(Scaler):\n    pass\n"
    assert codes(scaler + subclass + other.replace("Other", "Doubled"), "JAX402") == [3]
    assert codes(scaler + other.replace("object.__new__(Other)", "make()"), "JAX402") == [3]
    rebound = other.replace("    return made", "    made = factor\n    return made")
    assert codes(scaler + rebound, "JAX402") == [3]  # `made` may be any object


def test_how_another_unit_builds_an_object_decides_a_boolean_field():
    batch = (
        "@jax.tree_util.register_dataclass\n"
        "@dataclasses.dataclass\n"
        "class Batch:\n"
        "    x: jax.Array\n"
        "    pick: jax.Array\n\n"
        "@jax.jit\n"
        "def first(b: Batch):\n"
        "    return b.x[b.pick]\n"
    )
    head = "import dataclasses\n"
    boolean = "\nb = Batch(jnp.ones(3), jnp.array([True, False, True]))\n"
    index = "\nb = Batch(jnp.ones(3), jnp.array([0, 2]))\n"
    assert codes(head + batch + boolean, "JAX801") == [9]
    assert codes(head + batch + index, "JAX801") == []  # an index array: fine
    assert codes(head + batch + boolean, "JAX801") == [9]


def test_keys_held_in_objects_and_containers():
    # followed by access path: `self.key`, `state.key`, `state["key"]`, `keys[0]`
    drawn_twice = (
        "def f(state, keys):\n"
        '    a = jax.random.normal(state["key"])\n'
        '    b = jax.random.normal(state["key"])\n'
        "    c = jax.random.normal(state.key) + jax.random.normal(state.key)\n"
        "    d = jax.random.normal(keys[0]) + jax.random.normal(keys[1])\n"
        "    return a, b, c, d, jax.random.normal(keys[0])\n"
    )
    assert codes(drawn_twice, "JAX602") == [2, 3, 5]
    # The holder rebound, assigned into, handed to a function or asked to act: fresh again.
    refreshed = (
        "def f(self, state):\n"
        '    a = jax.random.normal(state["key"]) + jax.random.normal(self.key)\n'
        '    state = {"key": jax.random.key(1)}\n'
        "    self.reseed()\n"
        '    b = jax.random.normal(state["key"]) + jax.random.normal(self.key)\n'
        '    c = jax.random.normal(state["key"])\n'
        '    state["key"] = jax.random.key(2)\n'
        "    advance(state)\n"
        '    return a, b, c, jax.random.normal(state["key"])\n'
    )
    assert codes(refreshed, "JAX602") == [5]
    # A loop drawing from the same held key on every iteration.
    loop = "def f(self, n):\n    return [jax.random.normal(self.key) for _ in range(n)]\n"
    loop2 = "def f(self, n):\n    for _ in range(n):\n        x = jax.random.normal(self.key)\n"
    assert codes(loop, "JAX602") == [1]  # a comprehension's element runs once per item
    assert codes(loop2, "JAX602") == [2]


def test_equinox_layers_consume_their_key():
    eqx = "import equinox as eqx\n"
    twice = (
        "def f(key):\n"
        "    a = eqx.nn.Linear(2, 2, key=key)\n"
        "    return eqx.nn.MLP(2, 2, 4, 1, key=key), a\n"
    )
    after_draw = (
        "def f(key):\n    x = jax.random.normal(key)\n    return eqx.nn.Linear(2, 2, key=key)(x)\n"
    )
    split = (
        "def f(key):\n"
        "    k1, k2 = jax.random.split(key)\n"
        "    return eqx.nn.Linear(2, 2, key=k1), eqx.nn.Linear(2, 2, key=k2)\n"
    )
    assert codes(eqx + twice, "JAX602") == [3]
    assert codes(eqx + after_draw, "JAX602") == [3]
    assert codes(eqx + split, "JAX602") == []
    # A module helper handing its key to a layer consumes it too.
    helper = "def make(key):\n    return eqx.nn.Linear(2, 2, key=key)\n\n"
    user = "def g(key):\n    return make(key), make(key)\n"
    assert codes(eqx + helper + user, "JAX602") == [5]


def test_private_helpers_only_the_constructor_calls_build_the_object():
    # `_fill` (through `_precompute`) runs only while the object is built: not stale. Once a
    # public method calls the helper again, its writes happen after construction.
    made = (
        "from functools import partial\nimport jax\n"
        "class Planner:\n"
        "    def __init__(self, area):\n        self._precompute(area)\n"
        "    def _precompute(self, area):\n        self._fill(area)\n"
        "    def _fill(self, area):\n        self.table = area\n"
        "    @partial(jax.jit, static_argnums=(0,))\n"
        "    def lookup(self, i):\n        return self.table[i]\n"
    )
    assert codes(made, "JAX402") == []
    reloaded = made + "    def reload(self, area):\n        self._precompute(area)\n"
    assert codes(reloaded, "JAX402") == [9]  # the decorator
    public = made.replace("_precompute", "precompute")  # callable from outside the class
    assert codes(public, "JAX402") == [9]

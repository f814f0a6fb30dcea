"""Per-unit memos that look into other units are reused only while what they looked up is
unchanged: an edit of one function never leaves another unit's fact stale."""

from __future__ import annotations

import pytest
from hypothesis import given, settings

from jax_lsp.analysis import recorded
from jax_lsp.analysis.document import Document, clear_caches
from jax_lsp.analysis.model import ModuleModel
from jax_lsp.analysis.unit_memo import Keyed, per_unit, reuse_reading
from tests.analysis.editing import edit_sequences, edited_versions

_COMPUTED: list = []


def _looked_up_sum(source, lookup, first):
    _COMPUTED.append(first)
    return lookup(first) + lookup("b")


@per_unit
def _scaled(source, factor: int, keyed: Keyed[int]):
    _COMPUTED.append(factor)
    return factor + keyed.value


def test_a_memo_is_reused_while_its_lookups_answer_the_same(monkeypatch):
    monkeypatch.setattr(recorded, "VERIFY_REUSE", False)  # count only the computations needed
    _COMPUTED.clear()
    table = {"a": 1, "b": 2}
    source = Document("looked_up = 1\n").units[0].source
    assert reuse_reading(source, _looked_up_sum, table.get, "a") == 3
    assert reuse_reading(source, _looked_up_sum, table.get, "a") == 3
    assert len(_COMPUTED) == 1
    table["c"] = 10  # not looked up: the memo stays good
    assert reuse_reading(source, _looked_up_sum, table.get, "a") == 3
    assert len(_COMPUTED) == 1
    table["b"] = 5
    assert reuse_reading(source, _looked_up_sum, table.get, "a") == 6
    assert len(_COMPUTED) == 2
    assert reuse_reading(source, _looked_up_sum, table.get, "b") == 10  # its own entry
    assert len(_COMPUTED) == 3


def test_a_per_unit_memo_is_keyed_by_its_function_and_arguments():
    _COMPUTED.clear()
    source = Document("scaled = 1\n").units[0].source
    assert _scaled(source, 2, Keyed(100, "a")) == 102
    assert _scaled(source, 2, Keyed(100, "a")) == 102
    assert _scaled(source, 2, Keyed(999, "a")) == 102  # the key stands for the value
    assert _COMPUTED == [2]
    assert _scaled(source, 3, Keyed(100, "a")) == 103
    assert _scaled(source, 2, Keyed(100, "b")) == 102
    assert _COMPUTED == [2, 3, 2]


def test_a_memoised_computation_reads_nothing_but_its_arguments():
    """A method reads its object and a closure what it captured: neither is in the key."""
    offset = 1

    def captures(source):
        return offset

    with pytest.raises(TypeError):
        per_unit(captures)
    with pytest.raises(TypeError):
        per_unit(Document("x = 1\n").units[0].source.words)


@per_unit
def _unannotated(source, keyed):
    return keyed.value


def test_a_keyed_argument_is_annotated_so(monkeypatch):
    """The memo keys a `Keyed` argument by its key as its annotation says; one not annotated
    so would be kept whole (its fact alive, compared by identity): checked when reuse is."""
    monkeypatch.setattr(recorded, "VERIFY_REUSE", True)
    with pytest.raises(TypeError, match="not annotated"):
        _unannotated(Document("unannotated = 1\n").units[0].source, Keyed(1, "a"))


PROGRAM = """\
import jax


def f(n, x):
    return x * n


g = jax.jit(f, static_argnames="n")


def wrap(x, k):
    return g(k, x)
"""


def _fresh(text: str) -> ModuleModel:
    clear_caches()  # no memo of any unit survives: the truth to compare with
    return ModuleModel(Document(text))


def test_a_jitted_binding_follows_an_edit_of_the_function_it_wraps():
    before = Document(PROGRAM)
    model = ModuleModel(before)
    assert model.static_signatures["g"].positions == {0}
    assert model.hash_facts.parameters == {} and set(model.hash_facts.jitted_functions) == set()
    edited_text = PROGRAM.replace("def f(n, x):", "def f(x, n):")
    edited = ModuleModel(Document(edited_text, previous=before))
    assert edited.static_signatures["g"].positions == {1}
    assert edited.static_signatures == _fresh(edited_text).static_signatures


def test_a_wrapper_parameter_follows_an_edit_of_the_signature_it_calls():
    text = PROGRAM + "\n\nwrap(1.0, [1, 2])\n"
    before = Document(text)
    model = ModuleModel(before)
    # `wrap` passes `k` at g's static position 0, and a list arrives there.
    assert ("wrap", "k") in model.hash_facts.parameters
    edited_text = text.replace("def f(n, x):", "def f(x, n):")
    edited = ModuleModel(Document(edited_text, previous=before))
    # Now the static position is 1, where `wrap` passes `x`, given a float.
    assert ("wrap", "k") not in edited.hash_facts.parameters
    assert edited.hash_facts.key == _fresh(edited_text).hash_facts.key


def test_objects_held_in_attributes_follow_edits_of_the_class():
    text = (
        "class Encoder:\n    def __call__(self, x):\n        return x\n\n\n"
        "class Model:\n    def __init__(self):\n        self.enc = Encoder()\n"
    )
    before = Document(text)
    assert ModuleModel(before).attribute_classes == {("Model", "enc"): "Encoder"}
    edited_text = text.replace("self.enc = Encoder()", "self.enc = None")
    edited = ModuleModel(Document(edited_text, previous=before))
    assert edited.attribute_classes == {} == _fresh(edited_text).attribute_classes


def test_ref_parameters_follow_edits_of_the_caller():
    text = (
        "import jax\nimport jax.numpy as jnp\n\n\ndef fill(r):\n    r[...] = 1.0\n\n\n"
        "def run():\n    r = jax.new_ref(jnp.zeros(3))\n    fill(r)\n"
    )
    before = Document(text)
    model = ModuleModel(before)
    assert list(model.ref_params.values()) == [frozenset({"r"})]
    edited_text = text.replace("r = jax.new_ref(jnp.zeros(3))", "r = jnp.zeros(3)")
    edited = ModuleModel(Document(edited_text, previous=before))
    assert edited.ref_params == {} == _fresh(edited_text).ref_params


# Code that binds jitted callables, draws keys from objects and hands keys to helpers: the
# module facts whose per-unit answers are memoised on each unit's parse.
KEYED_SNIPPETS = [
    "",
    "import jax",
    "import jax.random as jr",
    "@jax.jit",
    "@partial(jax.jit, static_argnums=1)",
    "def f(x, n):",
    "    return x * n",
    "step = jax.jit(f, static_argnums=1)",
    "step = jax.jit(f)",
    "def sample(key, shape):",
    "    return jax.random.normal(key, shape)",
    "def draw(key):",
    "    return sample(key, (3,))",
    "class Noise:",
    "    def __init__(self, key):",
    "        self.key = key",
    "    def __call__(self):",
    "        return jax.random.normal(self.key)",
    "noise = Noise(jax.random.PRNGKey(0))",
    "a = noise()",
    "b = noise()",
    "key = jax.random.PRNGKey(0)",
    "c = draw(key)",
    "d = draw(key)",
    # Derived uses (a flax `init`), through a helper too, and keys handed back.
    "import flax.linen as nn",
    "model = nn.Dense(3)",
    "def setup(key, x):",
    "    return model.init(key, x)",
    "    return setup(key, x)",
    "    return x, key",
    "    pass",
]


def _keyed_facts(model: ModuleModel) -> dict:
    """The facts, without nodes (the fresh model parses again)."""
    return {
        "static_signatures": model.static_signatures,
        "key_helpers": model.key_helpers,
        "key_summaries": model.key_summaries,
        "key_drawing_classes": model.key_drawing_classes,
        "object_key_draws": model.object_key_draws,
        "module_key_reuses": {
            line: [(r.call.lineno, r.call.col_offset, r.name) for r in reuses]
            for line, reuses in model.module_key_reuses.items()
        },
    }


@settings(max_examples=50, deadline=None)
@given(edits=edit_sequences(KEYED_SNIPPETS, 2, 6))
def test_memoised_unit_answers_follow_random_edits(edits):
    document = Document("import jax\n")
    for text, edited in edited_versions(document, edits):
        incremental = _keyed_facts(ModuleModel.of(edited))
        assert incremental == _keyed_facts(_fresh(text))


NOISE = """\
import jax


def draw(key):
    return jax.random.normal(key)


class Noise:
    def __init__(self, key):
        self.key = key

    def __call__(self):
        return self.key


noise = Noise(jax.random.PRNGKey(0))


a = noise()
b = noise()
"""


def test_a_unit_naming_a_new_key_helper_is_followed_again():
    # `noise()` draws from a stored key only once `__call__` samples with it: the units
    # calling it, unchanged, must then be followed for key reuse.
    before = Document(NOISE)
    assert ModuleModel.of(before).module_key_reuses == {}
    edited_text = NOISE.replace("return self.key", "return jax.random.normal(self.key)")
    edited = ModuleModel.of(Document(edited_text, previous=before))
    assert set(edited.module_key_reuses) == {19}  # `b = noise()`'s unit
    assert _keyed_facts(edited) == _keyed_facts(_fresh(edited_text))

"""A class edited in one method keeps its other methods' findings (the rule runner), and the
findings always equal an analysis with nothing kept, however the methods depend on one another:
attributes one assigns and another reads, helpers one calls, keys one draws, a static `self`."""

from __future__ import annotations

import ast

from hypothesis import given, settings
from hypothesis import strategies as st

from jax_lsp.analysis.document import Document, clear_caches
from jax_lsp.diagnostics import runner
from jax_lsp.engine import analyze
from tests.analysis.editing import FIXTURES, REAL_FILES, edit_sequences, edited_versions

# Methods that read what other methods define: attributes assigned in `__init__` and
# elsewhere, a static `self`, a helper's return, a staticmethod key helper, a bound method
# jitted in another method.
MODEL = """\
import jax
import jax.numpy as jnp
from functools import partial


class Model:
    scale = 2.0

    def __init__(self, n):
        self.n = n
        self.key = jax.random.PRNGKey(0)
        self.w = jnp.zeros(n)

    @partial(jax.jit, static_argnums=0)
    def step(self, x):
        if x > 0:
            x = x - self.n
        return x * self.w

    def helper(self, y):
        return y.sum()

    @jax.jit
    def loss(self, y):
        total = self.helper(y)
        if total > 0:
            print(total)
        return total

    @staticmethod
    def sample(key, shape):
        return jax.random.normal(key, shape)

    def draw(self):
        a = Model.sample(self.key, (3,))
        b = Model.sample(self.key, (3,))
        return a, b

    def bump(self):
        self.n += 1

    def noise(self, key):
        a = jax.random.normal(key, (2,))
        b = jax.random.uniform(key, (2,))
        return a + b

    def compiled(self):
        self.fast = jax.jit(self.step)
        return self.fast(1.0)
"""

# Lines typed in the class: members and statements that change what other methods see.
METHOD_SNIPPETS = [
    "",
    "    # a note",
    "        pass",
    "        self.n = 0",
    "        self.w = self.w.at[0].set(1)",
    "        self.w[0] = 1",
    "        self.key = jax.random.PRNGKey(1)",
    "        k = self.key",
    "        print(y)",
    "        return y",
    "        return 1.0",
    "        return jnp.ones(3)",
    "        if y > 0:",
    "            y = y - 1",
    "    @jax.jit",
    "    @staticmethod",
    "    @property",
    "    def helper(self, y):",
    "    def sample(key, shape):",
    "        return key",
    "    def bump(self):",
    "    def __hash__(self):",
    "        return 0",
    "    def __init__(self, n):",
    "    x: int = 0",
    "    scale = 3.0",
]
CLASS_TEXTS = [
    MODEL,
    *(
        path.read_text(encoding="utf-8")
        for path in [*FIXTURES, *REAL_FILES]
        if "\nclass " in path.read_text(encoding="utf-8")
    ),
]


def _nothing_kept(text: str):
    return analyze(Document(text), reuse_findings=False).findings


@settings(max_examples=80, deadline=None)
@given(text=st.sampled_from(CLASS_TEXTS), edits=edit_sequences(METHOD_SNIPPETS, 2, 5))
def test_findings_after_edits_in_methods_equal_an_analysis_keeping_nothing(text, edits):
    document = Document(text)
    analyze(document)
    for edited_text, edited in edited_versions(document, edits):
        assert analyze(edited).findings == _nothing_kept(edited_text)


def _edit(document: Document, old: str, new: str) -> Document:
    assert old in document.text
    return Document(document.text.replace(old, new, 1), previous=document)


def _kept_methods(document: Document) -> dict:
    """The methods' findings the last analysis of `document` kept for its class, by name."""
    outcomes = document.lineage.kept(runner.analyze)
    unit = document.units[-1]
    methods = outcomes[(id(unit.source), unit.start_line)].findings.methods  # type: ignore[index]
    return {method.name: kept for method, kept in methods.items()}


def _walked_methods(monkeypatch) -> list[str]:
    """The names of the class's methods the runner walks from now on (not taken as kept)."""
    walked: list[str] = []
    visit = runner._Walker.visit

    def counting(self, node):
        if type(node) is ast.FunctionDef and node in self.methods:
            walked.append(node.name)
        visit(self, node)

    monkeypatch.setattr(runner._Walker, "visit", counting)
    return walked


def test_an_edit_in_one_method_keeps_the_findings_of_the_others(monkeypatch):
    clear_caches()  # a parse of its own: other tests analysed the same text in other modules
    document = Document(MODEL)
    before = analyze(document)
    kept = _kept_methods(document)
    assert kept["noise"].findings  # the key reused in `noise` (JAX602)
    walked = _walked_methods(monkeypatch)
    edited = _edit(document, "        self.n += 1", "        self.n += 2")
    after = analyze(edited)
    # `noise` is the same node in the new parse, and its kept findings were taken (a walk
    # would have kept new ones: it reads nothing of the other methods); of the methods whose
    # findings were kept, only the edited one was walked again.
    assert _kept_methods(edited)["noise"] is kept["noise"]
    assert [name for name in walked if name in kept] == ["bump"]
    assert after.findings == _nothing_kept(edited.text)
    assert len(after.findings) == len(before.findings)


def test_a_change_outside_a_kept_method_walks_it_again(monkeypatch):
    """An import alias the method's rules resolve with changed outside the method: its kept
    findings are not taken (never stale); an edit inside another method takes them."""
    clear_caches()
    document = Document(MODEL)
    analyze(document)
    assert "noise" in _kept_methods(document)
    walked = _walked_methods(monkeypatch)
    for old, new in [
        ("        self.n += 1", "        self.n += 2"),  # inside another method: kept
        ("import jax\n", "import numpy as jax\n"),  # the aliases its rules resolve with
    ]:
        walked.clear()
        document = _edit(document, old, new)
        assert analyze(document).findings == _nothing_kept(document.text)
        assert ("noise" in walked) == (old != "        self.n += 1"), (old, walked)


def test_a_method_reading_what_another_assigns_is_walked_again():
    # `step` has a static `self` (JAX401 reads the class: which methods assign attributes):
    # its findings follow an assignment added to or removed from another method.
    document = Document(MODEL)
    analyze(document)
    for old, new in [
        ("        self.n += 1", "        pass"),
        ("        pass", "        self.n += 1"),
        (
            "        return y.sum()",
            "        return y.sum()\n\n    def __hash__(self):\n        return 0",
        ),
    ]:
        document = _edit(document, old, new)
        assert analyze(document).findings == _nothing_kept(document.text)


def _key_reuse_lines(findings) -> set[int]:
    return {f.span.start.line for f in findings if f.code == "JAX602"}


def test_a_key_helper_changed_in_another_method_renews_the_findings_of_its_callers():
    document = Document(MODEL)
    draw = MODEL.split("\n").index("    def draw(self):")
    reuses = _key_reuse_lines(analyze(document).findings)
    assert any(draw < line < draw + 4 for line in reuses)  # `self.key` twice via the helper
    # The helper no longer draws with its key: `draw` reuses nothing.
    edited = _edit(document, "        return jax.random.normal(key, shape)", "        return shape")
    findings = analyze(edited).findings
    assert findings == _nothing_kept(edited.text)
    assert not any(draw < line < draw + 4 for line in _key_reuse_lines(findings))


def test_a_write_added_in_a_base_class_renews_the_subclass_in_another_unit():
    # JAX402 on `Child.threes` (a static `self`) reads what the methods of its base assign to
    # `self`; the base is another unit, so the subclass's unit key must change with it.
    text = (
        "from functools import partial\n\nimport jax\nimport jax.numpy as jnp\n\n\n"
        "class Base:\n    def __init__(self, n):\n        self.n = n\n\n"
        "    def __hash__(self):\n        return hash(self.n)\n\n"
        "    def __eq__(self, other):\n        return other.n == self.n\n\n"
        "    def size(self):\n        return self.n\n\n\n"
        "class Child(Base):\n    @partial(jax.jit, static_argnums=0)\n"
        "    def threes(self):\n        return 3 * jnp.ones(self.n)\n"
    )
    document = Document(text)
    assert not [f for f in analyze(document).findings if f.code == "JAX402"]
    edited = _edit(
        document, "        return self.n\n", "        self.n = 0\n        return self.n\n"
    )
    findings = analyze(edited).findings
    assert findings == _nothing_kept(edited.text)
    assert [f.code for f in findings if f.code == "JAX402"] == ["JAX402"]

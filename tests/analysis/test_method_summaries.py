"""A class edited in one method walks that method alone for its unit's summary
(`jax_lsp.analysis.summary`): what each method added last time is replayed while the import
aliases, the class's name and the class-level bindings it sees are the same, and the summary
always equals a walk of the whole class."""

from __future__ import annotations

import ast
import dataclasses

from hypothesis import given, settings
from hypothesis import strategies as st

from jax_lsp.analysis import summary as summary_module
from jax_lsp.analysis.document import Document, clear_caches
from jax_lsp.analysis.model import ModuleModel
from jax_lsp.analysis.summary import (
    _LIST_FIELDS,
    _SET_FIELDS,
    UnitSummary,
    _MemberPart,
    summarize,
)
from tests.analysis.editing import FIXTURES, REAL_FILES, edit_sequences, edited_versions

# Methods whose summary reads what lies outside them: a class-level `partial` binding, a
# method defined twice, transformations of bound methods, a lambda, global and mutated names.
MODEL = """\
import jax
from functools import partial

counter = []


class Model:
    fast = partial(jax.jit, static_argnums=0)

    def step(self, x):
        return fast(x)

    @jax.jit
    def loss(self, y):
        counter.append(y)
        return jax.vmap(lambda v: v + 1)(y)

    def run(self, y):
        global total
        total = jax.jit(self.loss)(y)
        return total

    def step(self, x):
        helper = partial(self.loss)
        return helper(x)
"""
TEXTS = [
    MODEL,
    *(
        path.read_text(encoding="utf-8")
        for path in [*FIXTURES, *REAL_FILES]
        if "\nclass " in path.read_text(encoding="utf-8")
    ),
]
SNIPPETS = [
    "",
    "    fast = jax.jit",
    "    fast = partial(jax.jit, static_argnums=1)",
    "    def step(self, x):",
    "    def extra(self, x):",
    "        return jax.grad(self.loss)(x)",
    "        helper = jax.jit(self.run)",
    "        global counter",
    "        counter.append(x)",
    "        value = fast(x) + (lambda z: z)(x)",
    "    @jax.jit",
    "class Other:",
    "import numpy as jax",
    "    branches = [lambda v: v, jax.jit]",
    "        branches = (lambda v: v + 1, lambda v: v)",
    "        jax.lax.switch(0, branches, x)",
    "        g = lambda v: v * 2",
    "        jax.jit(g)(x)",
]


def _assert_summaries_match_whole_walks(document: Document) -> None:
    model = ModuleModel.of(document)
    units = [unit for unit in document.units if unit.tree is not None]
    for unit, kept in zip(units, model.summaries, strict=True):
        assert kept == summarize(unit.tree, model.resolver)


def _analysed_again(text: str) -> Document:
    """A document whose versions are analysed one after another (an editor's): its models
    keep what each class member adds to the summary, for the next version."""
    document = Document(text)
    document.lineage.analysed_again = True
    return document


@settings(max_examples=200, deadline=None)
@given(text=st.sampled_from(TEXTS), edits=edit_sequences(SNIPPETS, 2, 4))
def test_summaries_of_edited_classes_equal_whole_walks(text, edits):
    first = _analysed_again(text)
    versions = [first, *(edited for _, edited in edited_versions(first, edits))]
    for document in versions:  # built one after the other, then checked
        _assert_summaries_match_whole_walks(document)


def _walked_methods(monkeypatch) -> list[str]:
    walked: list[str] = []
    visit = summary_module._Collector.visit_FunctionDef

    def counting(self, node):
        walked.append(node.name)
        visit(self, node)

    monkeypatch.setattr(summary_module._Collector, "visit_FunctionDef", counting)
    monkeypatch.setitem(
        summary_module._HANDLERS, ast.FunctionDef, summary_module._Collector.visit_FunctionDef
    )
    return walked


def test_an_edit_in_one_method_walks_that_method_alone(monkeypatch):
    clear_caches()  # parses of its own: another test's may carry what other contexts added
    before = _analysed_again(MODEL)
    ModuleModel.of(before)
    walked = _walked_methods(monkeypatch)
    after = Document(MODEL.replace("return total", "return total + 1"), previous=before)
    _assert_summaries_match_whole_walks(after)
    # The edited method, and `step` defined again (it sees the first's bindings); then the
    # whole walk the check made.
    assert walked == ["run", "step", "step", "loss", "run", "step"]


def test_a_class_level_binding_changed_walks_the_methods_again(monkeypatch):
    clear_caches()
    before = _analysed_again(MODEL)
    ModuleModel.of(before)
    walked = _walked_methods(monkeypatch)
    # The first `step` calls `fast`: what it calls changes with the binding.
    edited = MODEL.replace("partial(jax.jit, static_argnums=0)", "jax.jit")
    after = Document(edited, previous=before)
    model = ModuleModel.of(after)
    assert walked[:4] == ["step", "loss", "run", "step"]
    (call,) = [site for site in model.summaries[-1].calls if site.callee.name == "fast"]
    assert call == summarize(after.units[-1].tree, model.resolver).calls[0]


def test_every_field_a_member_may_add_to_is_replayed():
    """A summary field a method can add to but the replay leaves out would be lost on the
    next keystroke in another method: every field is replayed or only written at the top."""
    top_level_only = {"classes", "top_level_bindings", "module_calls", "module_call_arguments"}
    top_level_only |= {"module_displays", "transformed_lambdas", "set_up_writes"}
    fields = {field.name for field in dataclasses.fields(UnitSummary)}
    fields -= {"free_writes"}
    assert fields == {*_LIST_FIELDS, *_SET_FIELDS, *top_level_only}


def test_an_import_alias_changed_walks_the_methods_again(monkeypatch):
    clear_caches()
    document = _analysed_again(MODEL)
    ModuleModel.of(document)
    walked = _walked_methods(monkeypatch)
    document = Document(MODEL.replace("return total", "return total + 1"), previous=document)
    ModuleModel.of(document)
    assert walked == ["run", "step"]  # the edited method, and `step` defined again
    walked.clear()
    document = Document(
        document.text.replace("import jax\n", "import numpy as jax\n"), previous=document
    )
    _assert_summaries_match_whole_walks(document)
    assert walked[:4] == ["step", "loss", "run", "step"]  # under other aliases: all walked
    walked.clear()
    document = Document(
        document.text.replace("return total + 1", "return total + 2"), previous=document
    )
    ModuleModel.of(document)
    assert walked == ["run", "step"]  # the parts kept under the new aliases replayed


def test_a_document_analysed_once_keeps_no_parts():
    """A text analysed once (`check`) keeps no member parts with its parses: each unit's
    summary equals the one made keeping them, which a document analysed again keeps."""
    for text in TEXTS[:8]:
        clear_caches()
        once = Document(text)
        model = ModuleModel.of(once)
        units = [unit for unit in once.units if unit.tree is not None]
        assert all(unit.source.memo.kept(_MemberPart, model.aliases) is None for unit in units)
        again = _analysed_again(text)
        kept = ModuleModel.of(again)
        for unit, summary in zip(units, kept.summaries, strict=True):
            assert summary == summarize(unit.tree, model.resolver)
            parts = unit.source.memo.kept(_MemberPart, kept.aliases)
            assert (parts is not None) == any(
                isinstance(statement, ast.ClassDef) for statement in unit.tree.body
            )

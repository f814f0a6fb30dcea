"""A model built from the previous version's facts (the server's keystrokes) equals a model
built afresh, and so do the findings, after any sequence of edits."""

from __future__ import annotations

import ast

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jax_lsp.analysis import class_readers, infer, key_facts
from jax_lsp.analysis.document import Document
from jax_lsp.analysis.infer import ModuleFactsCache, imported_callables, local_external_facts
from jax_lsp.analysis.lineage import Lineage
from jax_lsp.analysis.model import ModuleModel
from jax_lsp.analysis.project import ProjectTraces
from jax_lsp.engine import analyze
from tests.analysis.editing import (
    FIXTURES,
    REAL_FILES,
    TESTS,
    assert_same_tree,
    edit_sequences,
    edited_lines,
)

# Lines that change module-wide facts: imports, module-level bindings of every kind (floats,
# containers, keys, jitted functions), rebinding and mutation of globals, calls between
# functions, 64-bit dtypes, transformations, plus code that only changes a function body.
SNIPPETS = [
    "",
    "# a comment",
    "x = 1",
    "x = 1.5",
    "SCALE = 2.0",
    "CONFIG = {}",
    "CONFIG['k'] = 1",
    "    CONFIG.append(x)",
    "    global SCALE",
    "    SCALE = 3",
    "import numpy as jnp",
    "import jax.numpy as jnp",
    "from jax import numpy as np",
    "from control_flow import helper",
    "import inputs as ops",
    "    ops.step(x)",
    "key = jax.random.PRNGKey(0)",
    "a = jax.random.normal(key, (3,))",
    "b = jax.random.uniform(key)",
    "step = jax.jit(f, static_argnums=1)",
    "f = jax.jit(f)",
    "@jax.jit",
    "def f(x, n):",
    "    return helper(x) + n",
    "def helper(y):",
    "def helper(y, flag=True):",
    "    if flag:",
    "helper(a, flag=False)",
    "    return y.astype(jnp.float64)",
    "    if y > 0:",
    "        y = y.at[0].set(1)",
    "    for i in range(3):",
    "        y[i] = i",
    "class C:",
    "    def m(self, x):",
    "        return self.n * x",
    "        self.n = jnp.zeros(3)",
    "        self.scale = SCALE",
    "c.n = 2",
    "setattr(c, name, 1)",
    "class D(C):",
    "    r = jax.new_ref(x)",
    "    helper(r)",
    "jax.config.update('jax_enable_x64', True)",
    "jax.tree_util.register_pytree_node(C, None, None)",
    "run(f)",
    "    pass",
    "value = jnp.",
    "call(1,",
]


def _nodes(mapping) -> dict:
    return {id(node): value for node, value in mapping.items()}


def _facts(model: ModuleModel) -> dict:
    """Every module-wide fact of a model, nodes by identity (both models share the parses)."""
    units = [unit for unit in model.document.units if unit.tree is not None]
    state = model.module_state
    return {
        "alias_key": model.alias_key,
        "import_line": model.import_line,
        "global_kinds": model.global_kinds,
        "globals_key": model.globals_key,
        "mutable_globals": model.mutable_globals,
        "stable_globals": {name: id(value) for name, value in model.stable_globals.items()},
        "stable_globals_key": model.stable_globals_key,
        "classes_passed_to_calls": model.classes_passed_to_calls,
        "trace": _nodes(model.trace),
        "module_state": state.key,
        "changing": [state.changing_globals(unit.tree) for unit in units],
        "float_globals": model.float_globals,
        "x64": model.x64,
        "may_make_explicit_meshes": model.may_make_explicit_meshes,
        "self_updates": model.self_updates,
        "key_helpers": model.key_helpers,
        "key_summaries": model.key_summaries,
        "key_drawing_classes": model.key_drawing_classes,
        "global_key_draws": model.global_key_draws,
        "static_signatures": model.static_signatures,
        "module_key_reuses": model.module_key_reuses,
        "hash_facts": model.hash_facts.key,
        "ref_params": _nodes(model.ref_params),
        "attribute_classes": model.attribute_classes,
        "assigned_attributes": model.assigned_attributes,
        "fresh_attribute_writes": model.fresh_attribute_writes,
        "int_array_globals": model.int_array_globals,
        "attributes_set_per_class": _nodes(model._attributes_set_per_class),
        "initializer_globals": model.initializer_globals,
        "boolean_entries": model.boolean_entries,
        "unit_keys": [model.unit_key(unit) for unit in units],
        # What the keys read of the module facts that change most.
        "traced_facts": _nodes(model.unit_keys.traced_facts),
        "module_reuse_keys": model.unit_keys.module_reuse_keys,
        # The `self` of each class's methods nothing traces (reused across parses of a class).
        "plain_objects": {name: model._plain_object(name) for name in model.classes},
        "pytree_static_children": _nodes(model.pytree_static_children),
        "function_runs": {name: model.function_runs(name) for name in model.functions},
        "module_function_names": model.module_function_names,
        "abstract_decorated_functions": model.abstract_decorated_functions,
        "global_writes": model.module_globals.global_writes,
        "classes_defined_twice": model._classes_defined_twice,
        # The uses of each top-level function (kept from the last model while the units
        # holding its name are the same) and the shapes its calls give its parameters.
        "function_uses": {
            name: model.module_globals._function_uses(name)
            for name in model.module_globals._top_level_functions
        },
        "param_shapes": {
            name: dict(model.param_shapes(name))
            for name in model.module_globals._top_level_functions
        },
    }


def _callables(document: Document) -> dict:
    """Imported workspace functions, by call spelling (the fixtures' folder as workspace)."""
    return imported_callables(document, None, (TESTS / "fixtures",), ModuleFactsCache())


def _external(document: Document, cache: ModuleFactsCache) -> tuple:
    """The engine's facts of imported workspace functions (the fixtures' folder as root)."""
    return local_external_facts(document, str(TESTS / "fixtures"), cache)


def _words(document: Document, cache: ModuleFactsCache) -> tuple:
    """What the workspace reads of the document's words at each keystroke, each reused while
    the units' parts are the same: the bases and class readers its imported facts are read
    for, the imported call spellings, the names an importer of the module may import."""
    roots = (TESTS / "fixtures",)
    bindings = infer.imported_bindings(document, None, roots, cache)
    traces = ProjectTraces(None, cache, lambda *args: None)
    return (
        class_readers.base_names(document),
        class_readers.class_readers(document, bindings),
        infer._spelled_callables(document, bindings),
        traces._document_names("/project/module.py", document),
    )


def _check_edits(text: str, edits) -> None:
    document = Document(text)
    analyze(document)
    _callables(document)
    cache = ModuleFactsCache()  # one for the versions: their facts are kept on the lineage
    _external(document, cache)
    _words(document, cache)
    for where, removed, inserted in edits:
        edited_text = "\n".join(edited_lines(document.lines, where, removed, inserted))
        edited = Document(edited_text, previous=document)
        incremental = analyze(edited)
        fresh_document = Document(edited_text)
        assert _callables(edited) == _callables(fresh_document)
        assert _external(edited, cache) == _external(fresh_document, ModuleFactsCache())
        assert _words(edited, cache) == _words(fresh_document, ModuleFactsCache())
        assert _facts(incremental.model) == _facts(ModuleModel(edited))
        # The same parses without the lineage: a fully fresh model over them.
        edited.lineage = Lineage()
        assert _facts(ModuleModel(edited)) == _facts(incremental.model)
        assert incremental.findings == analyze(fresh_document).findings
        edited.lineage = document.lineage
        document = edited


EDITS = edit_sequences(SNIPPETS, 2, 5)


@settings(max_examples=150, deadline=None)
@given(fixture=st.sampled_from(FIXTURES), edits=EDITS)
def test_incremental_model_equals_a_fresh_one_on_fixtures(fixture, edits):
    _check_edits(fixture.read_text(encoding="utf-8"), edits)


@settings(max_examples=40, deadline=None)
@given(data=st.data(), edits=EDITS)
def test_incremental_model_equals_a_fresh_one_on_real_files(data, edits):
    if not REAL_FILES:
        return  # the corpus is not fetched here
    path = data.draw(st.sampled_from(REAL_FILES))
    _check_edits(path.read_text(encoding="utf-8"), edits)


def test_an_edit_inside_a_method_reuses_the_module_facts():
    text = (
        "import jax\nimport jax.numpy as jnp\n\nSCALE = 2.0\n\n\n"
        "class C:\n    def m(self, x):\n        return x * SCALE\n\n\n"
        "@jax.jit\ndef f(x):\n    return C().m(x)\n"
    )
    before = Document(text)
    model = analyze(before).model
    after = Document(text.replace("x * SCALE", "x * SCALE + 1"), previous=before)
    edited = analyze(after).model
    assert edited.global_kinds is model.global_kinds
    assert edited.float_globals is model.float_globals
    assert edited.module_state.key is model.module_state.key
    # Never shared: a resolver memoises its answers by node, for one model's trees.
    assert edited.resolver is not model.resolver
    assert _facts(edited) == _facts(ModuleModel(Document(after.text)))
    assert isinstance(edited.trace, dict) and all(isinstance(n, ast.AST) for n in edited.trace)
    # Only a comment typed: the same parses, so the last model's facts, its resolver included.
    commented = Document(after.text.replace("+ 1", "+ 1  # typed"), previous=after)
    copied = analyze(commented).model
    assert copied is not edited and copied.document is commented
    assert copied.trace is edited.trace and copied.resolver is edited.resolver
    assert _facts(copied) == _facts(edited)


def test_the_globals_follow_edits_of_the_functions_top_level_code_calls():
    """The globals' fold is kept across an edit of a function that top-level code names but
    whose return no top-level statement reads; one whose return it reads is read again."""
    versions = [
        ("return 1.0", "return x"),
        ("return jnp.zeros(3)", "return x"),  # `make` is read: SCALE changes
        ("return jnp.zeros(3)", "return x + 1"),  # `other` is named at the top, not read
        ("return 2", "return x + 1"),
        ("return 2", "return [x]"),
        ("return jnp.ones(2)", "return [x]"),
    ]
    template = (
        "import jax.numpy as jnp\n\n\ndef make():\n    MAKE\n\n\n"
        "def other(x):\n    OTHER\n\n\nSCALE = make()\nNAMES = [other]\n\n\n"
        "def f(x):\n    return x * SCALE\n"
    )
    document = None
    for made, other in versions:
        text = template.replace("MAKE", made).replace("OTHER", other)
        document = Document(text, previous=document)
        model = analyze(document).model
        fresh = ModuleModel(Document(text))
        assert model.global_values == fresh.global_values
        assert _facts(model) == _facts(fresh)


def test_imported_callables_follow_the_edits():
    text = "from inputs import step\n\n\ndef f(x):\n    return x\n"
    before = Document(text)
    assert _callables(before) == {}
    called = Document(text.replace("return x", "return step(x)"), previous=before)
    assert set(_callables(called)) == {"step"}
    unimported = Document(
        called.text.replace("from inputs import step", "step = 1"), previous=called
    )
    assert _callables(unimported) == {}
    assert set(_callables(Document(called.text, previous=unimported))) == {"step"}


def test_a_call_in_another_unit_passing_a_default_reaches_the_cached_findings():
    # `if training:` is flagged only once a call passes `training` to the jitted `forward`:
    # the finding of forward's unit depends on a call in another unit.
    text = (
        "import jax\n\n\n@jax.jit\ndef forward(x, training=True):\n"
        "    if training:\n        x = x * 0.5\n    return x\n\n\nout = forward(1.0)\n"
    )
    _assert_edit_brings_one_finding(text, "forward(1.0)", "forward(1.0, False)", "JAX701")


def test_a_flag_passed_in_another_unit_reaches_the_cached_findings():
    # `if not skip_checks:` holds no tracers while the only traced call passes
    # `skip_checks=True`; a call in another unit dropping it must bring the finding back.
    text = (
        "import jax\nimport jax.numpy as jnp\n\n\ndef check(x, skip_checks=False):\n"
        "    if not skip_checks:\n        if jnp.sum(x) > 0:\n            raise ValueError\n"
        "    return x\n\n\n@jax.jit\ndef run(x):\n    return check(x, skip_checks=True)\n"
    )
    _assert_edit_brings_one_finding(text, "check(x, skip_checks=True)", "check(x)", "JAX701")


def _assert_edit_brings_one_finding(text: str, old: str, new: str, code: str) -> None:
    """`text` is clean; replacing `old` by `new` in another unit gives one finding `code`,
    as a fresh analysis does; undoing the edit takes it away again."""
    before = Document(text)
    assert not analyze(before).findings
    edited = text.replace(old, new)
    after = Document(edited, previous=before)
    assert [finding.code for finding in analyze(after).findings] == [code]
    assert analyze(after).findings == analyze(Document(edited)).findings
    undone = Document(text, previous=after)
    assert not analyze(undone).findings


def test_custom_vjp_rules_follow_edits_of_the_function_and_its_registration():
    # `bwd`'s findings depend on other units: the decorator of `f`, `f.defvjp(...)`, the jit.
    text = (
        "from functools import partial\n\nimport jax\n\n\n"
        "@jax.custom_vjp\ndef f(x):\n    return x\n\n\n"
        "def fwd(x):\n    return x, x\n\n\n"
        "def bwd(x, g):\n    if x > 0:\n        return (g,)\n    return (-g,)\n\n\n"
        "f.defvjp(fwd, bwd)\nout = jax.jit(jax.grad(f))(1.0)\n"
    )
    edits = [
        ("@jax.custom_vjp\n", "@partial(jax.custom_vjp, nondiff_argnums=(0,))\n"),
        ("f.defvjp(fwd, bwd)\n", "f.defvjp(fwd, fwd)\n"),
        ("jax.jit(jax.grad(f))", "jax.grad(f)"),
    ]
    before = Document(text)
    assert [finding.code for finding in analyze(before).findings] == ["JAX701"]
    for old, new in edits:
        edited = text.replace(old, new)
        after = Document(edited, previous=before)
        assert analyze(after).findings == analyze(Document(edited)).findings == []
        undone = Document(text, previous=after)
        assert [finding.code for finding in analyze(undone).findings] == ["JAX701"]


# Comments typed at the end of lines, on lines of their own or over an old comment: the code
# stays the same, so the edited unit keeps its parse and, where no rule read the changed
# lines, its findings (`Unit.changed_text`). Some name what rules look for in a text.
COMMENTS = ["  # typed", "  # noqa", "  # noqa: JAX101", "  # jax.jit(f) astype float64", "#"]


@st.composite
def comment_edits(draw, lines: list[str]) -> list[tuple[int, str]]:
    return draw(
        st.lists(
            st.tuples(st.integers(0, max(len(lines) - 1, 0)), st.sampled_from(COMMENTS)),
            min_size=1,
            max_size=6,
        )
    )


def _check_comment_edits(text: str, data) -> None:
    document = Document(text)
    analyze(document)
    for row, comment in data.draw(comment_edits(document.lines)):
        lines = list(document.lines)
        code, _, _ = lines[row].partition("  #") if data.draw(st.booleans()) else (lines[row], 0, 0)
        lines[row] = code + comment
        edited = Document("\n".join(lines), previous=document)
        incremental = analyze(edited)
        fresh_document = Document(edited.text)
        assert [unit.text for unit in edited.units] == [unit.text for unit in fresh_document.units]
        for unit in edited.units:
            if unit.changed_text is not None:
                assert_same_tree(unit.tree, ast.parse(unit.text))
        edited.lineage = Lineage()  # the same parses, a fully fresh model over them
        assert _facts(ModuleModel(edited)) == _facts(incremental.model)
        edited.lineage = document.lineage
        assert incremental.findings == analyze(fresh_document).findings
        document = edited


@settings(max_examples=150, deadline=None)
@given(fixture=st.sampled_from(FIXTURES), data=st.data())
def test_comments_typed_keep_findings_equal_to_a_fresh_analysis(fixture, data):
    _check_comment_edits(fixture.read_text(encoding="utf-8"), data)


@settings(max_examples=30, deadline=None)
@given(data=st.data())
def test_comments_typed_in_real_files_keep_findings_equal_to_a_fresh_analysis(data):
    if not REAL_FILES:
        return  # the corpus is not fetched here
    _check_comment_edits(data.draw(st.sampled_from(REAL_FILES)).read_text(encoding="utf-8"), data)


_TRACED_UPDATE = """import jax
import jax.numpy as jnp


@jax.jit
def step(x, y, z):
    x[0] += (y +
             z)
    return x


def other(a):
    return a + 1
"""


def test_a_comment_keeps_the_parse_and_findings_the_rules_did_not_take_from_its_line():
    before = Document(_TRACED_UPDATE)
    first = analyze(before)
    (finding,) = [f for f in first.findings if f.code == "JAX202"]
    # A comment in a function with no finding: the parse and the kept findings stand.
    quiet = Document(_TRACED_UPDATE.replace("a + 1", "a + 1  # one more"), previous=before)
    kept = quiet.units[-1]
    assert kept.source is before.units[-1].source and kept.changed_text is not None
    assert analyze(quiet).findings == first.findings
    # A comment inside the statement the fix rewrites: the code is the same, the fix is not.
    typed = Document(_TRACED_UPDATE.replace("(y +", "(y +  # bias"), previous=quiet)
    step = next(unit for unit in typed.units if "def step" in unit.text)
    assert step.changed_text is not None  # the same parse: only comments changed
    (renewed,) = [f for f in analyze(typed).findings if f.code == "JAX202"]
    assert renewed != finding and "# bias" in renewed.fix.edits[0].content
    assert analyze(typed).findings == analyze(Document(typed.text)).findings


_BUFFER = """import jax
import jax.numpy as jnp


class Buffer:
    def __init__(self, n):
        self.data = jnp.zeros(n)
        self.ref = jax.new_ref(jnp.zeros(n))

    def total(self):
        return self.data.sum()

    def scaled(self, k):
        local = jax.new_ref(jnp.ones(3))
        return self.data * k
"""


def test_an_edit_in_one_method_keeps_the_facts_of_the_other_methods(monkeypatch):
    from jax_lsp.analysis import object_facts, scope_facts

    computed, walked = [], []
    original_fields = object_facts._fields_of_assignments
    original_refs = scope_facts._local_refs

    def counted_fields(class_name, *args, log=computed, fields_of=original_fields):
        # No closure: the lineage keeps a fact under a plain function of its inputs.
        log.append(class_name)
        return fields_of(class_name, *args)

    monkeypatch.setattr(object_facts, "_fields_of_assignments", counted_fields)
    monkeypatch.setattr(
        scope_facts,
        "_local_refs",
        lambda node, resolver: walked.append(node.name) or original_refs(node, resolver),
    )
    before = Document(_BUFFER)
    fields = analyze(before).model._plain_object("Buffer")
    assert fields is not None and [name for name, _ in fields.fields] == ["data", "ref"]
    computed.clear()
    walked.clear()
    # A new parse of the class, sharing the untouched methods' nodes with the last one.
    after = Document(
        _BUFFER.replace("return self.data.sum()", "return self.data.sum() + 1"), previous=before
    )
    edited = analyze(after).model
    assert edited._plain_object("Buffer") == fields and computed == []
    assert walked == ["total"]  # the edited method alone: the others' refs are known
    assert _facts(edited) == _facts(_fresh(after))
    # An edit of what `self.data` is given: the fields are worked out again.
    changed = Document(after.text.replace("jnp.zeros(n)\n", "[0] * n\n"), previous=after)
    model = analyze(changed).model
    assert computed == ["Buffer"] and model._plain_object("Buffer") != fields
    assert _facts(model) == _facts(_fresh(changed))


def _fresh(document: Document) -> ModuleModel:
    """A model of the same parses built with no lineage."""
    kept, document.lineage = document.lineage, Lineage()
    try:
        return ModuleModel(document)
    finally:
        document.lineage = kept


_CALLS: list[str] = []


def _upper(value: str, version: int) -> str:
    _CALLS.append(value)
    return value.upper()


def test_a_family_of_facts_keeps_only_what_the_last_two_generations_asked():
    lineage = Lineage()
    _CALLS.clear()
    first, second, third = object(), object(), object()
    assert lineage.reuse_each(_upper, first, "A", "a", 1) == "A"
    assert lineage.reuse_each(_upper, first, "B", "b", 1) == "B"
    # The next generation reuses what the last computed from equal inputs.
    assert lineage.reuse_each(_upper, second, "A", "a", 1) == "A"
    assert lineage.reuse_each(_upper, second, "B", "b", 2) == "B"
    assert _CALLS == ["a", "b", "b"]
    # `A` was asked by the last generation: kept; `B` only from its new inputs.
    assert lineage.reuse_each(_upper, third, "A", "a", 1) == "A"
    assert lineage.reuse_each(_upper, third, "B", "b", 1) == "B"
    assert _CALLS == ["a", "b", "b", "b"]
    # Nothing asked by the last generation is kept: a renamed class's entry goes.
    fourth = object()
    assert lineage.reuse_each(_upper, fourth, "A", "a", 1) == "A"
    fifth = object()
    assert lineage.reuse_each(_upper, fifth, "B", "b", 1) == "B"
    assert _CALLS == ["a", "b", "b", "b", "b"]


def test_a_fact_is_kept_under_its_function_with_its_inputs():
    lineage = Lineage()
    _CALLS.clear()
    assert lineage.reuse(_upper, "a", 1) == "A"
    assert lineage.reuse(_upper, "a", 1) == "A"
    assert lineage.reuse(_upper, "b", 1) == "B"  # other inputs: computed again
    assert _CALLS == ["a", "b"]
    captured = "!"

    def reads_more(value: str) -> str:
        return value + captured

    with pytest.raises(TypeError):  # a closure reads what is not among its inputs
        lineage.reuse(reads_more, "a")


class _Unit:
    """A unit's parse as `Lineage.holding` sees it: compared by identity, with its words."""

    def __init__(self, words: str) -> None:
        self.words = frozenset(words.split())


def _words_of(unit: _Unit) -> frozenset[str]:
    _CALLS.append(" ".join(sorted(unit.words)))
    return unit.words


def test_a_union_over_the_units_is_the_last_one_while_every_part_is_the_same():
    lineage = Lineage()
    first, second = _Unit("a b"), _Unit("c")
    found = lineage.union(_words_of, [first, second])
    assert found == {"a", "b", "c"}
    assert lineage.union(_words_of, [first, second]) is found  # the same parts: the same set
    edited = _Unit("c d")
    assert lineage.union(_words_of, [first, edited]) == {"a", "b", "c", "d"}
    assert lineage.union(_words_of, [first]) == {"a", "b"}  # a unit removed


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_the_units_holding_a_word_follow_edits_and_look_only_at_the_edited_units(data):
    lineage = Lineage()
    vocabulary = st.text(alphabet="abc", min_size=1, max_size=3)
    units = [_Unit(" ".join(data.draw(st.lists(vocabulary, max_size=3)))) for _ in range(6)]
    for _ in range(4):
        sources = list(units)
        for word in data.draw(st.lists(vocabulary, min_size=1, max_size=4)):
            _CALLS.clear()
            found = lineage.holding(_words_of, sources, word)
            assert found == [i for i, unit in enumerate(sources) if word in unit.words]
        # An edit: some units replaced by new parses, some added or removed.
        start = data.draw(st.integers(0, len(units)))
        end = data.draw(st.integers(start, len(units)))
        added = data.draw(st.lists(st.lists(vocabulary, max_size=3), max_size=3))
        units[start:end] = [_Unit(" ".join(words)) for words in added]
    # A word asked of the last list is looked up in the edited units only.
    sources = list(units)
    lineage.holding(_words_of, sources, "a")
    edited = _Unit("a")
    units = [*sources[:2], edited, *sources[2:]]
    _CALLS.clear()
    expected = [i for i, unit in enumerate(units) if "a" in unit.words]
    assert lineage.holding(_words_of, units, "a") == expected
    assert _CALLS == ["a"]


def test_top_level_values_are_kept_while_no_unit_assigns_anew_and_follow_an_assignment():
    """The values assigned at the top level are the last version's (the same dict, which
    the facts computed from them find by identity) after an edit inside a function, and
    follow an edit that adds, changes or removes an assignment."""
    text = "import jax\n\nSCALE = 2.0\n\n\ndef f(x):\n    return x * SCALE\n"
    versions = [Document(text)]
    models = [ModuleModel.of(versions[0])]

    def edit(new_text: str) -> ModuleModel:
        versions.append(Document(new_text, previous=versions[-1]))
        models.append(ModuleModel.of(versions[-1]))
        fresh = ModuleModel(Document(new_text))
        assert models[-1].float_globals == fresh.float_globals
        assert models[-1].initializer_globals == fresh.initializer_globals
        return models[-1]

    def values(model: ModuleModel, name: str) -> list[str]:
        return [ast.unparse(value) for value in model.module_globals.top_level_values[name]]

    first = models[0].module_globals.top_level_values
    body = edit(text.replace("x * SCALE", "x * SCALE + 1"))
    assert body.module_globals.top_level_values is first
    assigned = edit(versions[-1].text + "\nSCALE = 3.0\n")
    assert values(assigned, "SCALE") == ["2.0", "3.0"]
    changed = edit(versions[-1].text.replace("SCALE = 2.0", "SCALE = jax.numpy.ones(2)"))
    assert values(changed, "SCALE") == ["jax.numpy.ones(2)", "3.0"]
    removed = edit(text.replace("SCALE = 2.0\n", ""))
    assert "SCALE" not in removed.module_globals.top_level_values


def test_the_uses_of_a_function_are_kept_while_their_units_are_and_follow_a_new_use():
    """The uses of a top-level function are the last model's (the same tuple, which the
    logs that read it find unchanged by identity) after an edit in a unit that does not
    name it, and follow an edit that adds a use (in a unit holding one, or another), moves
    the units holding one, or removes one."""
    text = (
        "import jax.numpy as jnp\n\n\ndef f(x):\n    return x\n\n\n"
        "def g(y):\n    return f(y)\n\n\ndef h(z):\n    return z\n"
    )
    versions = [Document(text)]
    models: list[ModuleModel] = []

    def uses(new_text: str | None = None) -> list[tuple[int, int]]:
        if new_text is not None:
            versions.append(Document(new_text, previous=versions[-1]))
        models.append(ModuleModel.of(versions[-1]))  # kept: a fact holds its model weakly
        found = models[-1].module_globals._function_uses("f")
        fresh_model = ModuleModel(Document(versions[-1].text))
        fresh = fresh_model.module_globals._function_uses("f")
        places = [(start + call.lineno, call.col_offset) for call, _, start in found]
        assert places == [(start + c.lineno, c.col_offset) for c, _, start in fresh]
        uses.last = found
        return places

    assert uses() == [(9, 11)]
    first = uses.last
    assert uses(text.replace("return z", "return z + 1")) == [(9, 11)]
    assert uses.last is first  # an edit in `h`, which does not name `f`
    assert uses(versions[-1].text.replace("return f(y)", "return f(f(y))")) == [(9, 11), (9, 13)]
    edited = versions[-1].text.replace("return z + 1", "return f(z)")
    assert uses(edited) == [(9, 11), (9, 13), (13, 11)]
    assert uses("# a line\n" + versions[-1].text) == [(10, 11), (10, 13), (14, 11)]
    assert uses(versions[-1].text.replace("return f(f(y))", "return y")) == [(14, 11)]


class _Edits:
    """A document edited version after version: each version's model, built from the last
    one's, and a model of the same text built afresh (what the kept one must equal)."""

    def __init__(self, text: str) -> None:
        self._versions = [Document(text)]
        self._models: list[ModuleModel] = []  # kept: a fact holds its model weakly

    @property
    def text(self) -> str:
        return self._versions[-1].text

    def models(self, new_text: str | None = None) -> tuple[ModuleModel, ModuleModel]:
        """The models of `new_text` (the last version's text if None): the one built from
        the last version's, and a fresh one."""
        if new_text is not None:
            self._versions.append(Document(new_text, previous=self._versions[-1]))
        self._models.append(ModuleModel.of(self._versions[-1]))
        return self._models[-1], ModuleModel(Document(self.text))


def test_the_module_wide_names_are_kept_while_the_units_parts_are_and_follow_edits():
    """The module's functions, the names written through `global` and the classes defined
    twice are the last model's sets after an edit inside a function body, and follow an
    edit that adds a function writing a global, a class again, or removes a function or a
    `global`."""
    text = "import jax\n\n\ndef f(x):\n    return x\n\n\nclass A:\n    pass\n"
    edits = _Edits(text)

    def names(new_text: str | None = None) -> tuple[frozenset[str], ...]:
        kept, fresh = edits.models(new_text)
        found = [_module_wide_names(model) for model in (kept, fresh)]
        assert found[0] == found[1]
        return found[0]

    first = names()
    assert first == ({"f"}, set(), set())
    body = names(text.replace("return x", "return x + 1"))
    assert all(kept is old for kept, old in zip(body, first, strict=True))
    added = edits.text + "\n\ndef g():\n    global N\n    N = 1\n"
    assert names(added) == ({"f", "g"}, {"N"}, set())
    assert names(edits.text + "\n\nclass A:\n    x = 1\n") == ({"f", "g"}, {"N"}, {"A"})
    assert names(edits.text.replace("def f(x):\n    return x + 1\n", ""))[0] == {"g"}
    assert names(edits.text.replace("    global N\n", "")) == ({"g"}, set(), {"A"})


def _module_wide_names(model: ModuleModel) -> tuple[frozenset[str], ...]:
    globals_written = model.module_globals.global_writes
    return model.module_function_names, globals_written, model._classes_defined_twice


def test_the_refs_passed_follow_a_module_level_name_made_a_ref():
    """The parameters a call passes a module-level ref (read from the module's refs, the last
    version's while the globals are the same dict) follow an edit that makes the name a ref,
    and one that makes it an array again."""
    text = (
        "import jax\nimport jax.numpy as jnp\n\nR = jnp.zeros(3)\n\n\n"
        "def f(r):\n    r[...] = 1\n\n\ndef g(x):\n    return x  # not a new_ref\n\n\nf(R)\n"
    )
    edits = _Edits(text)

    def passed(new_text: str | None = None) -> dict[str, frozenset[str]]:
        kept, fresh = edits.models(new_text)
        found = [
            {node.name: params for node, params in m.ref_params.items()} for m in (kept, fresh)
        ]
        assert found[0] == found[1]
        return found[0]

    assert passed() == {}
    assert passed(text.replace("return x", "return x + 1")) == {}
    made = edits.text.replace("R = jnp.zeros(3)", "R = jax.new_ref(jnp.zeros(3))")
    assert passed(made) == {"f": {"r"}}
    assert passed(edits.text.replace("return x + 1", "return x")) == {"f": {"r"}}
    assert passed(text) == {}


def test_the_names_bound_again_mutated_and_called_at_the_top_level_follow_edits():
    """The top-level names bound more than once or mutated (from each unit's bindings, the
    last version's counts while they are the same) and the module functions top-level code
    calls (the last version's names while every unit reads the same words) follow an edit
    that binds a name again, mutates one, calls a function, or edits the function called."""
    text = "import jax\n\nX = [1]\n\n\ndef f(x):\n    return x\n\n\ndef g(y):\n    return y\n"
    edits = _Edits(text)

    def facts(new_text: str | None = None) -> tuple[frozenset[str], dict[str, int]]:
        kept, fresh = edits.models(new_text)
        found = [
            (model.mutable_globals, model.module_globals._top_callees) for model in (kept, fresh)
        ]
        assert found[0] == found[1]
        return found[0]

    first = facts()
    assert first[0] == set()
    body = facts(text.replace("return y", "return y + 1"))
    assert body[0] == set() and body[1].keys() == first[1].keys()
    called = facts(edits.text + "\n\nh = 1\nZ = h(2)\n")
    assert "h" not in called[1]  # not a function
    called = facts(edits.text.replace("h = 1\n", "\n\ndef h(z):\n    return z\n"))
    assert "h" in called[1]
    edited = facts(edits.text.replace("return z", "return z * 2"))
    assert edited[1]["h"] != called[1]["h"]  # the text of the function called
    assert facts(edits.text + "\n\nX = [2]\n")[0] == {"X"}
    assert facts(edits.text.replace("\n\nX = [2]\n", "\nX.append(3)\n"))[0] == {"X"}
    assert facts(edits.text.replace("\nX.append(3)\n", "\n"))[0] == set()
    removed = edits.text.replace("Z = h(2)", "Z = 2").replace("def h(z):", "def k(z):")
    assert "h" not in facts(removed)[1]


def test_the_names_bound_to_functions_follow_a_function_added_and_a_name_rebound():
    """The module-level names bound to the module's functions (from the globals, the last
    version's while they are the same dict) follow an added function and a name rebound to
    something else; an edit inside a function changes its text's hash alone."""
    text = "import jax\n\n\ndef f(x):\n    return x\n\n\nstep = jax.jit(f)\n"
    edits = _Edits(text)

    def units(new_text: str | None = None) -> dict[str, tuple]:
        kept, fresh = edits.models(new_text)
        found = [model.unit_keys.function_units for model in (kept, fresh)]
        assert found[0] == found[1]
        return found[0]

    first = units()
    assert set(first) == {"f", "step"}
    body = units(text.replace("return x", "return x + 1"))
    assert set(body) == {"f", "step"} and body["f"][1] != first["f"][1]
    assert set(units(edits.text + "\n\ndef g(y):\n    return y\n")) == {"f", "g", "step"}
    assert set(units(edits.text.replace("step = jax.jit(f)", "step = 2"))) == {"f", "g"}


def test_the_jitted_definitions_are_kept_while_the_decorators_are_and_follow_edits():
    """The module functions decorated with a jit-like transform are the last model's set
    after an edit inside a function body, and follow a decorator added or removed and a name
    defined again without one (its last definition counts)."""
    text = "import jax\n\n\n@jax.jit\ndef f(x):\n    return x\n\n\ndef g(y):\n    return y\n"
    edits = _Edits(text)

    def jitted(new_text: str | None = None) -> frozenset[str]:
        kept, fresh = edits.models(new_text)
        found = [model.abstract_decorated_functions for model in (kept, fresh)]
        assert found[0] == found[1]
        return found[0]

    first = jitted()
    assert first == {"f"}
    assert jitted(text.replace("return x", "return x + 1")) is first
    assert jitted(edits.text.replace("def g", "@jax.jit\ndef g")) == {"f", "g"}
    assert jitted(edits.text.replace("@jax.jit\ndef f", "def f")) == {"g"}
    assert jitted(edits.text + "\n\ndef g(y):\n    return 2\n") == set()


def test_the_classes_derived_from_their_instances_and_attributes_written_follow_edits():
    """The names classes derive from, the module-level instances of its classes and the
    attributes their methods assign that code outside writes are the last model's after an
    edit inside a method, and follow a base changed, a class defined again, an instance
    rebound and a write outside added."""
    text = (
        "class A:\n    def __init__(self, n):\n        self.n = n\n\n\n"
        "class B(A):\n    def get(self):\n        return self.n\n\n\na = A(1)\n"
    )
    edits = _Edits(text)

    def facts(new_text: str | None = None) -> tuple:
        kept, fresh = edits.models(new_text)
        found = [
            (model.objects.subclassed, model.objects.instances, model.objects._written_outside)
            for model in (kept, fresh)
        ]
        assert found[0] == found[1]
        return found[0]

    first = facts()
    assert first == ({"A"}, {"a": "A"}, set())
    body = facts(text.replace("return self.n", "return self.n + 1"))
    assert all(kept is old for kept, old in zip(body, first, strict=True))
    assert facts(edits.text.replace("class B(A)", "class B(object)"))[0] == {"object"}
    again = edits.text + "\n\nclass B(A):\n    pass\n"
    assert facts(again)[0] == {"A"}  # the last definition of `B`
    assert facts(edits.text.replace("a = A(1)", "a = B()"))[1] == {"a": "B"}
    assert facts(edits.text + "\na.n = 2\n")[2] == {"n"}


_ASKED_NAMES: list[str] = []
_NAMES_ANY = key_facts._names_any


def _counting_names_any(source, names: tuple[str, ...]) -> bool:
    _ASKED_NAMES.append(source.text)
    return _NAMES_ANY(source, names)


def test_the_units_naming_a_key_helper_are_asked_again_only_where_an_edit_changed_them(
    monkeypatch,
):
    """Module-level key reuses look at the units naming a key helper: after an edit inside a
    function, only the edited unit is asked whether it names one (the others' answers are the
    last version's), and an edit that makes a unit name a helper changes the reuses found."""
    monkeypatch.setattr(key_facts, "_names_any", _counting_names_any)
    text = (
        "import jax\n\n\ndef split(key):\n    return jax.random.split(key)\n\n\n"
        "def f(x):\n    return x\n\n\nk = jax.random.PRNGKey(0)\na = split(k)\n"
    )
    versions = [Document(text)]
    models: list[ModuleModel] = []

    def reuses(new_text: str | None = None) -> list[int]:
        if new_text is not None:
            versions.append(Document(new_text, previous=versions[-1]))
        _ASKED_NAMES.clear()
        models.append(ModuleModel.of(versions[-1]))  # kept: a fact holds its model weakly
        found = models[-1].module_key_reuses
        asked = list(_ASKED_NAMES)
        assert found == ModuleModel(Document(versions[-1].text)).module_key_reuses
        _ASKED_NAMES[:] = asked
        return sorted(found)

    assert reuses() == []
    assert len(_ASKED_NAMES) == 5  # every unit, once
    assert reuses(text.replace("return x", "return x + 1")) == []
    assert [asked.split("\n")[0] for asked in _ASKED_NAMES] == ["def f(x):"]
    assert reuses(versions[-1].text + "b = split(k)\n") == [13]  # the unit of both uses


def test_the_stable_globals_are_kept_while_the_assignments_are_and_follow_edits():
    """The names bound once (and their key): the last version's dict after an edit inside a
    function, and new ones after an edit that binds a name, rebinds one, or changes the text
    of a unit binding one."""
    text = "import jax\n\nA = 1\n\n\ndef f(x):\n    return x + A\n"
    edits = _Edits(text)

    def stable(new_text: str | None = None) -> tuple[dict, int]:
        kept, fresh = edits.models(new_text)
        found = kept.stable_globals
        assert {name: ast.dump(value) for name, value in found.items()} == {
            name: ast.dump(value) for name, value in fresh.stable_globals.items()
        }
        assert kept.stable_globals_key == fresh.stable_globals_key
        return found, kept.stable_globals_key

    first, key = stable()
    assert list(first) == ["A"]
    body, body_key = stable(text.replace("return x + A", "return x * A"))
    assert body is first and body_key == key
    added, _ = stable(edits.text + "\n\nB = 2\n")
    assert list(added) == ["A", "B"]
    assert list(stable(edits.text + "\n\nB = 3\n")[0]) == ["A"]  # bound twice
    _, changed_key = stable(edits.text.replace("A = 1", "A = 1  + 0"))
    assert changed_key != key

"""A unit's cached findings are reused across versions of a document only while what its
rules read is unchanged: the module facts it asks by name (recorded with their answers,
`jax_lsp.analysis.reads`) and the globals its text mentions (`ModuleModel.unit_global_key`).

Each check analyses a version built from the previous one (the server's keystrokes) and
compares with an analysis where no memo of any unit survives (`clear_caches`): equal
findings, or the incremental path served something stale."""

from __future__ import annotations

import ast
import random

import pytest

from jax_lsp.analysis import recorded
from jax_lsp.analysis.document import Document, clear_caches
from jax_lsp.analysis.model import ModuleModel
from jax_lsp.analysis.reads import (
    ASKED_AT_UNIT_START,
    AT_DOCUMENT_LINES,
    Keyed,
    UnitReads,
    asked_at_unit_start,
    keyed,
    reuse_of,
)
from jax_lsp.analysis.recorded import ReadLog, Recheck, RecordingView
from jax_lsp.engine import analyze
from tests.analysis.editing import FIXTURES, REAL_FILES


def _fresh(text: str) -> list:
    clear_caches()  # no unit's memo survives: the truth to compare with
    return analyze(Document(text)).findings


def _codes(findings) -> list[tuple[int, str]]:
    return [(f.span.start.line, f.code) for f in findings]


def _check_versions(*texts: str) -> list[list]:
    """Every version analysed from the previous one equals a fresh analysis; returns each
    version's findings."""
    clear_caches()
    document = Document(texts[0])
    found = [analyze(document).findings]
    for text in texts[1:]:
        document = Document(text, previous=document)
        incremental = analyze(document).findings
        assert _codes(incremental) == _codes(_fresh(text))
        assert incremental == _fresh(text)
        # The fresh analysis cleared every memo: go on from a version it did not touch.
        document = Document(text)
        analyze(document)
        found.append(incremental)
    return found


# A jitted function in one unit reading a global bound in another: rebinding the global
# changes what its rules say, though its own text is the same.
READER = """\
import jax
import jax.numpy as jnp
import numpy as np

{binding}


@jax.jit
def f(y):
    x[0] = y
    return x + y
"""


def test_a_global_rebound_in_its_own_unit_reaches_the_reader():
    jax_array = READER.format(binding="x = jnp.zeros(3)")
    numpy_array = READER.format(binding="x = np.zeros(3)")
    before, after, again = _check_versions(jax_array, numpy_array, jax_array)
    assert before == again and before != after


def test_a_new_top_level_statement_rebinding_a_global_reaches_the_reader():
    text = READER.format(binding="x = np.zeros(3)")
    _check_versions(text, text + "\nx = jnp.zeros(3)\n", text)


# Top-level code reads the latest earlier binding of a name bound by several statements:
# swapping the two bindings (the merge of all of them stays the same) or changing the later
# one changes what the last statement's rules say, though its own text is the same.
IN_ORDER = """\
import jax.numpy as jnp

v = {first}
v = {second}
total = jnp.sum(v)
"""


def test_the_latest_earlier_top_level_binding_reaches_the_reader():
    array_last = IN_ORDER.format(first="[1.0, 2.0]", second="jnp.asarray([1.0, 2.0])")
    list_last = IN_ORDER.format(first="jnp.asarray([1.0, 2.0])", second="[1.0, 2.0]")
    before, swapped, again = _check_versions(array_last, list_last, array_last)
    assert _codes(before) == [] and _codes(swapped) == [(4, "JAX501")] and before == again
    both_arrays = IN_ORDER.format(first="jnp.zeros(2)", second="jnp.asarray([1.0, 2.0])")
    _, rebound, _ = _check_versions(list_last, both_arrays, list_last)
    assert _codes(rebound) == []


STALE = """\
import jax
import jax.numpy as jnp

SCALE = 2.0


@jax.jit
def f(y):
    return y * SCALE


f(jnp.ones(3))
"""


def test_a_rebinding_that_makes_a_global_mutable_reaches_the_reader():
    before, after, removed = _check_versions(STALE, STALE + "SCALE = 3.0\n", STALE)
    assert before == removed and _codes(before) != _codes(after)


X64 = """\
import jax
import jax.numpy as jnp
import numpy as np
{flag}

x = jnp.float64(1.0)
"""


@pytest.mark.parametrize(
    "request_64",
    [
        "x = jnp.float64(1.0)",
        # Aliases name no width: `check --fix` inserted the flag once per pass (trial fixes11).
        "def init(key, dtype=jnp.float_):\n    return jax.random.normal(key, (2,), dtype=dtype)",
        "x = jnp.zeros(2, dtype=jnp.complex_)",
        "x = jnp.arange(3, dtype=np.intp)",
        "x = jnp.arange(3, dtype=jnp.uint)",
        "x = jnp.arange(3, dtype=np.longlong)",
    ],
)
def test_a_new_x64_flag_reaches_the_units_naming_64_bit_types(request_64):
    off = X64.format(flag="").replace("x = jnp.float64(1.0)", request_64)
    on = X64.format(flag='jax.config.update("jax_enable_x64", True)\n').replace(
        "x = jnp.float64(1.0)", request_64
    )
    before, after, again = _check_versions(off, on, off)
    assert before == again and _codes(before) != _codes(after)
    assert _codes(after) == []


PYTREE = """\
import jax
import jax.numpy as jnp


class Model:
    def __init__(self, x):
        self.x = x

    @jax.jit
    def calc(self, y):
        return self.x * 2 + y

    def tree_flatten(self):
        return (self.x,), None

    @classmethod
    def tree_unflatten(cls, aux, children):
        return cls(*children)


model = Model(jnp.array(2.0))
"""
REGISTER = "jax.tree_util.register_pytree_node_class(Model)\n"


def test_a_class_registered_as_a_pytree_later_reaches_its_uses():
    before, _, removed = _check_versions(PYTREE, PYTREE + REGISTER, PYTREE)
    assert before == removed


ALIAS = """\
import jax
{alias}


@jax.jit
def f(x):
    y = np.zeros(3)
    y[0] = x
    return y
"""


def test_a_new_import_alias_reaches_every_unit():
    numpy = ALIAS.format(alias="import numpy as np")
    jax_numpy = ALIAS.format(alias="import jax.numpy as np")
    before, after, again = _check_versions(numpy, jax_numpy, numpy)
    assert before == again and _codes(before) != _codes(after)


def test_a_new_statement_reruns_only_the_units_that_read_what_it_changes(monkeypatch):
    from jax_lsp.diagnostics import runner

    text = STALE + "\n\n@jax.jit\ndef g(z):\n    return z + 1\n"
    clear_caches()
    document = Document(text)
    analyze(document)
    walked: list[int] = []
    run = runner._Walker.run

    def counting(walker):
        walked.append(walker.unit.start_line)
        run(walker)

    monkeypatch.setattr(runner._Walker, "run", counting)
    added = Document(text + "\nunrelated = jnp.zeros(3)\n", previous=document)
    analyze(added)
    assert len(walked) == 1  # the new statement's unit only
    walked.clear()
    rebound = Document(added.text + "SCALE = 3.0\n", previous=added)
    analyze(rebound)
    # The new statement, and `f`, which reads SCALE (and the statement before the new one,
    # re-split at the end of the file); not `g` nor the imports.
    first = {unit.start_line: unit.source.text.split("\n")[:2] for unit in rebound.units}
    read = [first[line] for line in walked]
    assert ["@jax.jit", "def f(y):"] in read and ["SCALE = 3.0", ""] in read
    assert ["@jax.jit", "def g(z):"] not in read and [
        "import jax",
        "import jax.numpy as jnp",
    ] not in read


def test_a_fact_the_key_does_not_hold_is_recorded_as_rules_read_it():
    class Model:
        global_kinds = {"x": 1}

        @keyed
        @property
        def document(self) -> str:
            return "the text"

    log = ReadLog()
    reads = UnitReads(Model(), log)
    assert reads.global_kinds.get("x") == 1
    assert reads.document == "the text"  # declared held by the unit's key: not recorded
    assert set(log.facts) == {"global_kinds"}


def test_the_model_declares_which_facts_the_key_holds():
    # Declared where each fact is defined: a dataclass field, a property, a method.
    assert type(reuse_of(ModuleModel, "document")) is Keyed
    assert reuse_of(ModuleModel, "document").reaches_members is True
    assert type(reuse_of(ModuleModel, "trace")) is Keyed
    assert reuse_of(ModuleModel, "trace").reaches_members is False
    assert type(reuse_of(ModuleModel, "scope_kinds")) is Keyed
    assert reuse_of(ModuleModel, "x64") is AT_DOCUMENT_LINES
    assert reuse_of(ModuleModel, "module_shapes") is ASKED_AT_UNIT_START
    assert reuse_of(ModuleModel, "global_kinds") is None  # recorded
    assert reuse_of(ModuleModel, "assigned_attributes") is None


def test_recorded_answers_decide_reuse():
    class Model:
        def __init__(self, kinds, mutable):
            self.global_kinds = kinds
            self.mutable_globals = mutable

    def answers_hold(model, log: ReadLog) -> bool:
        return Recheck(model).holds(log)

    log = ReadLog()
    reads = UnitReads(Model({"x": 1, "y": 2}, frozenset({"x"})), log)
    assert reads.global_kinds["x"] == 1 and "z" not in reads.global_kinds
    assert "x" in reads.mutable_globals
    assert answers_hold(Model({"x": 1, "w": 3}, frozenset({"x", "w"})), log)
    assert not answers_hold(Model({"x": 2}, frozenset({"x"})), log)
    assert not answers_hold(Model({"x": 1, "z": 0}, frozenset({"x"})), log)
    assert not answers_hold(Model({"x": 1}, frozenset()), log)
    sorted(reads.global_kinds)  # iterated: now every change matters
    assert not answers_hold(Model({"x": 1, "w": 3}, frozenset({"x"})), log)


# -- random top-level statements in real files ------------------------------------------
# Statements binding, rebinding, mutating a module-level name (`{name}`: a name the file
# binds), or changing the module's configuration.
TEMPLATES = [
    "{name} = jnp.zeros(3)",
    "{name} = np.zeros(3)",
    "{name} = 1",
    "{name} = [1, 2]",
    "{name} = {{}}",
    "{name}.append(1)",
    "{name} = jax.jit({name})",
    "del {name}",
    "import numpy as jnp",
    "import jax.numpy as np",
    "jax.config.update('jax_enable_x64', True)",
    "jax.tree_util.register_pytree_node_class({name})",
    "{name}(jnp.ones(3))",
    "fresh_name = jnp.zeros(3)",
]


def _top_level_names(tree: ast.Module) -> list[str]:
    names = []
    for statement in tree.body:
        if isinstance(statement, ast.FunctionDef | ast.ClassDef):
            names.append(statement.name)
        elif isinstance(statement, ast.Assign):
            names += [t.id for t in statement.targets if isinstance(t, ast.Name)]
    return names or ["x"]


@pytest.mark.parametrize("seed", range(4))
def test_random_top_level_statements_keep_findings_fresh(seed):
    rng = random.Random(seed)
    files = REAL_FILES or FIXTURES
    text = files[seed % len(files)].read_text(encoding="utf-8")
    names = _top_level_names(ast.parse(text))
    versions = [text]
    lines = text.split("\n")
    for _ in range(3):
        tops = [i for i, line in enumerate(lines) if line and not line[0].isspace()]
        tops = [i for i in tops if not lines[i].startswith((")", "]", "}"))] or [len(lines)]
        where = rng.choice(tops)
        if rng.random() < 0.25 and len(tops) > 2:
            # remove a top-level statement's first line (a broken unit is a version too)
            lines = lines[:where] + lines[where + 1 :]
        else:
            statement = rng.choice(TEMPLATES).format(name=rng.choice(names))
            lines = [*lines[:where], statement, *lines[where:]]
        versions.append("\n".join(lines))
    _check_versions(*versions)


KEY_REUSE = """\
import jax


def helper():
    return 1
{above}
seed_key = jax.random.PRNGKey(0)
x = jax.random.normal(seed_key, (3,))
y = jax.random.normal(seed_key, (3,))
"""


@pytest.mark.parametrize("above", ["# a comment", "z = 1", "helper.calls = []"])
def test_a_fix_anchored_in_another_unit_follows_it(above):
    # The reuse's fix edits the first use's line, in document coordinates: a line added
    # above both uses moves it, though the unit holding the reuse keeps its text.
    before, after = _check_versions(
        KEY_REUSE.format(above=""), KEY_REUSE.format(above=f"\n{above}\n")
    )
    assert _codes(before) and before != after


# A traced function printing what a method of a class in another unit returns: editing the
# method (an array, then a Python number) changes what the print shows, though the reader's
# text and every global it mentions are the same.
METHOD_READER = """\
import jax
import jax.numpy as jnp


class Scale:
    def apply(self, x):
        return {result}


scale = Scale()


@jax.jit
def f(x):
    y = scale.apply(x)
    print(y)
    return x
"""


def test_an_edited_method_in_another_unit_reaches_the_reader():
    results = ("jnp.tanh(x)", "len(x.shape)", "jnp.exp(x)")
    versions = [METHOD_READER.replace("{result}", result) for result in results]
    found = _check_versions(*versions)
    assert [[f.code for f in findings] for findings in found] == [["JAX101"], [], ["JAX101"]]


# `inner` is a unit the edits never touch: typing a call of it in `outer`'s body traces it (a
# fact its key reads, from another unit), which makes its `if` on a tracer an error.
TRACED_THROUGH = """\
import jax


@jax.jit
def outer(x):
    return {body}


def inner(x):
    if x > 0:
        return x
    return -x
"""


def test_an_edit_in_one_function_reaches_the_key_of_another():
    bodies = ("x", "inner(x)", "x + 1", "x + 2")
    versions = [TRACED_THROUGH.format(body=body) for body in bodies]
    found = _check_versions(*versions)
    assert [_codes(findings) for findings in found] == [[], [(9, "JAX701")], [], []]
    # The same edits one after the other: the key of `inner`'s unit (the same parse all along)
    # is built again when the trace reaching it changes, and kept when it does not.
    clear_caches()
    documents = [Document(versions[0])]
    for text in versions[1:]:
        documents.append(Document(text, previous=documents[-1]))
    keys, parses = [], []
    for document in documents:
        model = analyze(document).model
        (unit,) = [unit for unit in document.units if unit.start_line == 8]
        keys.append(model.unit_key(unit))
        parses.append(unit.source)
    assert all(parse is parses[0] for parse in parses)
    assert keys[1] != keys[0] and keys[2] != keys[1]
    assert keys[3] is keys[2]  # `x + 1` -> `x + 2` changes nothing `inner` reads


# A jitted caller branching on what `count` returns given tracers: a Python int (its
# shape), then a tracer (JAX701), while what it returns of unknown arguments stays unknown.
COUNTED_IN_JIT = """\
import jax


def count(x):
    return x.shape[0]


@jax.jit
def step(x):
    n = count(x)
    if n > 2:
        return x
    return -x
"""


def test_a_traced_caller_follows_what_the_callee_returns_given_tracers():
    summed = COUNTED_IN_JIT.replace("return x.shape[0]", "return x.sum()   ")
    found = _check_versions(COUNTED_IN_JIT, summed, COUNTED_IN_JIT)
    assert [_codes(findings) for findings in found] == [[], [(10, "JAX701")], []]


def test_a_caller_counting_a_padded_result_reaches_the_fix():
    """JAX802's `size=` fix is withdrawn when a caller in another unit starts to take the
    length of the returned result (the padding would count there)."""
    callee = (
        "import jax\nimport jax.numpy as jnp\n\n@jax.jit\ndef hits(x):\n"
        "    return jnp.nonzero(x > 0)[0]\n\n"
    )
    plain = callee + "out = hits(jnp.ones(3))\n"
    counted = callee + "out = len(hits(jnp.ones(3)))\n"
    versions = _check_versions(plain, counted, plain)
    fixes = [[f.fix is not None for f in found if f.code == "JAX802"] for found in versions]
    assert fixes == [[True], [False], [True]]


# A key helper in one unit draws through a random initializer bound in another: rebinding the
# initializer changes whether `make` consumes its key, though its own text is the same.
INITIALIZER_HELPER = """\
import jax

init = jax.nn.initializers.normal()


def make(key):
    return init(key, (3,))


def main():
    key = jax.random.PRNGKey(0)
    a = make(key)
    b = jax.random.normal(key, (3,))
    return a, b
"""


def test_a_key_helper_follows_the_initializer_it_draws_through():
    plain = INITIALIZER_HELPER.replace(
        "init = jax.nn.initializers.normal()", "init = lambda key, shape: 0"
    )
    drawing, not_drawing, drawing_again = _check_versions(
        INITIALIZER_HELPER, plain, INITIALIZER_HELPER
    )
    assert [code for _, code in _codes(drawing)] == ["JAX602"]
    assert _codes(not_drawing) == []
    assert _codes(drawing_again) == _codes(drawing)


# A linen module in one unit, applied twice with one dropout key in another: whether the
# module draws (a `Dropout` left on) decides whether the second apply repeats its numbers.
LINEN_APPLY = """\
import flax.linen as nn
import jax
import jax.numpy as jnp


class Net(nn.Module):
    @nn.compact
    def __call__(self, x):
        return LAYER(nn.Dense(3)(x))


def run(variables, x, key):
    model = Net()
    first = model.apply(variables, x, rngs={"dropout": key})
    again = model.apply(variables, x, rngs={"dropout": key})
    return first, again
"""


def test_a_sublayer_that_draws_reaches_the_applies_of_its_module():
    quiet = LINEN_APPLY.replace("LAYER", "nn.relu")
    drawing = LINEN_APPLY.replace("LAYER", "nn.Dropout(0.5, deterministic=False)")
    before, after, again = _check_versions(quiet, drawing, quiet)
    assert _codes(before) == _codes(again) == []
    assert [code for _, code in _codes(after)] == ["JAX602"]


# A function indexing a parameter whose shape the module's calls give, in another unit.
CALLED_WITH_A_SHAPE = """\
import jax.numpy as jnp


def loss(params, obs):
    network_output = params * obs
    return network_output[20].sum()


params = jnp.ones((10,))
obs = jnp.ones((ROWS, 10))
total = loss(params, obs)
"""


def test_the_shape_a_call_gives_a_parameter_reaches_the_index_reading_it():
    short = CALLED_WITH_A_SHAPE.replace("ROWS", "4")
    tall = CALLED_WITH_A_SHAPE.replace("ROWS", "40")
    before, after, again = _check_versions(short, tall, short)
    assert _codes(before) == _codes(again) == [(5, "JAX301")]
    assert _codes(after) == []


def test_an_edit_recomputes_only_the_keys_whose_recorded_reads_changed(monkeypatch):
    """A unit's key is built by reading the model through a recording view; on the next
    version it is kept while every recorded question answers the same. An edit inside one
    function rebuilds that unit's key and no other: a caller's key holds its own text, and
    what its findings read of the callee (what it returns) is recorded with them."""
    from jax_lsp.analysis import unit_keys

    monkeypatch.setattr(recorded, "VERIFY_REUSE", False)  # count only the keys needed
    built: list[int] = []
    compute = unit_keys.UnitKeys.compute_unit_key

    def counting(self, unit, log):
        built.append(unit.start_line)
        return compute(self, unit, log)

    monkeypatch.setattr(unit_keys.UnitKeys, "compute_unit_key", counting)
    functions = "\n\n".join(f"@jax.jit\ndef f{i}(x):\n    return x + {i}" for i in range(8))
    text = f"import jax\n\n\n{functions}\n\n\ndef caller(x):\n    return f3(x)\n"
    clear_caches()
    document = Document(text)
    analyze(document)
    assert len(built) == 10  # the imports, eight functions, the caller
    built.clear()
    # An edit inside f5: only its own unit is keyed again (its text is new).
    edited = Document(text.replace("x + 5", "x * 5"), previous=document)
    analyze(edited)
    (f5,) = [unit.start_line for unit in edited.units if "def f5" in unit.text]
    assert built == [f5]
    built.clear()
    # An edit inside f3, whose return the caller reads: only f3's unit is keyed again.
    again = Document(edited.text.replace("x + 3", "x * 3"), previous=edited)
    analyze(again)
    assert built == [unit.start_line for unit in again.units if "def f3" in unit.text]
    # Both analyses equal fresh ones.
    assert analyze(again).findings == _fresh(again.text)


def test_a_caller_is_walked_again_only_when_what_its_callee_returns_changes(monkeypatch):
    """A caller's findings record the return summaries their kinds read (`return_value`):
    kept while the callee, edited, returns the same; found again when it returns otherwise
    (a tracer, tested by `if`)."""
    from jax_lsp.diagnostics import runner

    monkeypatch.setattr(recorded, "VERIFY_REUSE", False)  # count only the walks needed
    walked: list[int] = []
    run = runner._Walker.run

    def counting(self):
        walked.append(self.unit.start_line)
        return run(self)

    monkeypatch.setattr(runner._Walker, "run", counting)
    clear_caches()
    document = Document(COUNTED_IN_JIT)
    assert _codes(analyze(document).findings) == []
    walked.clear()
    traced = Document(document.text.replace("x.shape[0]", "x.sum()"), previous=document)
    assert _codes(analyze(traced).findings) == [(10, "JAX701")]
    assert len(walked) == 2  # the helper, and its caller: what the helper returns changed
    walked.clear()
    same = Document(traced.text.replace("x.sum()", "x.sum() * 3"), previous=traced)
    assert _codes(analyze(same).findings) == [(10, "JAX701")]
    assert len(walked) == 1  # the helper alone: it returns a tracer still
    for version in (traced, same):
        assert analyze(version).findings == _fresh(version.text)


def test_a_kept_key_is_never_stale_after_a_change_it_read():
    """A data fact read by question is compared whole with the one the log was checked
    against; when it differs, each recorded question is asked again."""
    log = ReadLog()

    class Model:
        def __init__(self, trace):
            self.trace = trace

    first = Recheck(Model({"f": 1, "g": 2}))
    view = RecordingView(first.subject, log, first)
    assert view.trace.get("f") == 1
    assert Recheck(Model({"f": 1, "g": 3})).holds(log)  # g was not asked
    assert not Recheck(Model({"f": 2, "g": 3})).holds(log)


def test_logs_of_one_shape_each_ask_their_own_questions_of_a_changed_fact():
    """Logs that read the same facts share which of those changed since the model they were
    checked on (found once per shape); each then asks its own questions of the changed ones:
    one log holding does not make another of its shape hold."""

    class Model:
        def __init__(self, trace, names):
            self.trace, self.names = trace, names

    recorded_on = Recheck(Model({"f": 1, "g": 2}, {"a": 1}))
    logs = {}
    for function in ("f", "g"):
        log = logs[function] = ReadLog()
        view = RecordingView(recorded_on.subject, log, recorded_on)
        view.trace.get(function)
        view.names.get("a")
    assert logs["f"].facts.keys() == logs["g"].facts.keys()  # one shape
    # `g` changed, `names` is the same dict: the first log holds, the second does not.
    edited = Recheck(Model({"f": 1, "g": 3}, recorded_on.subject.names))
    assert edited.holds(logs["f"])
    assert not edited.holds(logs["g"])
    assert not edited.holds(logs["g"])  # asked again, the shape's paths already known
    # Asked in the other order on another model, the same answers.
    again = Recheck(Model({"f": 1, "g": 3}, recorded_on.subject.names))
    fresh_g = ReadLog()
    view = RecordingView(recorded_on.subject, fresh_g, recorded_on)
    view.trace.get("g")
    view.names.get("a")
    assert not again.holds(fresh_g)
    assert again.holds(logs["f"])


# -- facts at document lines, and the facts the key no longer holds ------------------------
# `x` asks for 64 bits before the module switches them on, then (moved below the switch, the
# switch on the same line) after: the unit's parse, and every 64-bit fact, are the same.
MOVED_BELOW_THE_SWITCH = (
    """\
import jax
import jax.numpy as jnp

x = jnp.zeros(3, dtype=jnp.float64)

jax.config.update("jax_enable_x64", True)

y = 1
""",
    """\
import jax
import jax.numpy as jnp

y = 1

jax.config.update("jax_enable_x64", True)

x = jnp.zeros(3, dtype=jnp.float64)
""",
)


def test_findings_that_read_facts_at_document_lines_hold_at_their_line_only():
    above, below = MOVED_BELOW_THE_SWITCH
    before, after, again = _check_versions(above, below, above)
    assert (3, "JAX901") in _codes(before) and "JAX901" not in [f.code for f in after]
    assert before == again


X64_READERS = """\
import jax
import jax.numpy as jnp


def width():
    return jnp.zeros(64)


def wide():
    return jnp.zeros(3, dtype=jnp.float64)


last = 1
"""


def _walked_units(monkeypatch) -> list:
    from jax_lsp.diagnostics import runner

    walked: list = []
    run = runner._Walker.run

    def counting(walker):
        walked.append(walker.unit.source.text.split("\n")[0])
        run(walker)

    monkeypatch.setattr(runner._Walker, "run", counting)
    return walked


def test_switching_64_bits_on_reruns_only_the_units_whose_rules_read_the_64_bit_facts(
    monkeypatch,
):
    clear_caches()
    document = Document(X64_READERS)
    assert "JAX901" in [f.code for f in analyze(document).findings]
    walked = _walked_units(monkeypatch)
    switched = Document(
        X64_READERS + '\njax.config.update("jax_enable_x64", True)\n', previous=document
    )
    found = analyze(switched).findings
    # `wide` asked the 64-bit facts; `width` names 64 too, but its rules asked nothing of them.
    assert "def wide():" in walked and "def width():" not in walked
    assert found == _fresh(switched.text) and "JAX901" not in [f.code for f in found]


# JAX402 in `Model` reads the methods of its base, another unit: an edit of the base's
# constructor (calling `_settle`, which makes its write part of the construction, or not)
# reaches it, though `Model`'s text, the attributes the module writes and the names,
# decorators and bases of every class are the same.
BASE_WRITES = """\
import functools

import jax


class Base:
    def __init__(self, rate):
        self.rate = rate
        {body}

    def _settle(self):
        self.rate = self.rate * 0.5


class Model(Base):
    @functools.partial(jax.jit, static_argnums=0)
    def step(self, x):
        return x * self.rate
"""


def test_an_edit_of_a_base_class_reaches_the_rules_reading_its_methods(monkeypatch):
    writes = BASE_WRITES.format(body="pass")
    builds = BASE_WRITES.format(body="self._settle()")
    found = _check_versions(builds, writes, builds)
    assert [[f.code for f in findings] for findings in found] == [[], ["JAX402"], []]
    # A class that looks up no other class keeps its findings when `Base` is edited.
    clear_caches()
    document = Document(writes + "\n\nclass Other:\n    def get(self):\n        return 1\n")
    analyze(document)
    walked = _walked_units(monkeypatch)
    analyze(
        Document(document.text.replace("self.rate * 0.5", "self.rate * 0.25"), previous=document)
    )
    assert "class Base:" in walked and "class Model(Base):" in walked
    assert "class Other:" not in walked


# `y = x[N]` indexes with a name bound to an int in another unit: no literal in its text, yet
# its finding follows `N` (the unit's rules asked the shapes and ints its top-level code sees).
INT_FROM_ANOTHER_UNIT = """\
import jax.numpy as jnp

N = {n}

x = jnp.arange(10)

y = x[N]
"""


def test_an_int_bound_in_another_unit_reaches_the_index_reading_it():
    found = _check_versions(*(INT_FROM_ANOTHER_UNIT.format(n=n) for n in (100, 1, 100)))
    assert [_codes(findings) for findings in found] == [[(6, "JAX301")], [], [(6, "JAX301")]]


def test_a_unit_moved_by_an_edit_above_keeps_findings_asked_at_its_line(monkeypatch):
    # `y = x[N]` asks the shapes its top-level code sees at its first line (the same after the
    # move); `w = ...float64` reads 64-bit facts, at document lines, and is walked again.
    text = INT_FROM_ANOTHER_UNIT.format(n=100) + "\nw = jnp.zeros(3, dtype=jnp.float64)\n"
    clear_caches()
    document = Document(text)
    assert {"JAX301", "JAX901"} <= {f.code for f in analyze(document).findings}
    walked = _walked_units(monkeypatch)
    moved = Document(text.replace("N = 100\n", "N = 100\nunrelated = 2\n"), previous=document)
    found = analyze(moved).findings
    assert "y = x[N]" not in walked and "w = jnp.zeros(3, dtype=jnp.float64)" in walked
    assert found == _fresh(moved.text)


def test_a_question_asked_at_the_unit_s_line_is_asked_again_at_its_new_line():
    class Model:
        def __init__(self, shapes):
            self.shapes = shapes

        @asked_at_unit_start
        def shapes_at(self, line):
            return self.shapes.get(line, ())

    log = ReadLog()
    reads = UnitReads(Model({3: ("x",)}), log, unit_start=3)
    assert reads.shapes_at(3) == ("x",)
    assert log.unit_start is None  # asked at its own line: the log holds wherever it moves
    assert Recheck(Model({7: ("x",)})).holds(log, 7)
    assert not Recheck(Model({7: ("y",)})).holds(log, 7)
    assert not Recheck(Model({3: ("x",)})).holds(log, 7)
    reads.shapes_at(5)  # another unit's line: the answers hold at this unit's line only
    assert log.unit_start == 3 and not Recheck(Model({3: ("x",)})).holds(log, 7)
    kept = ReadLog()
    kept.update(log)  # a method's log added to its class's
    assert kept.unit_start == 3

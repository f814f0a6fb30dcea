"""What an analysis leaves alive: its models go by reference counting once nobody holds them
(`check` and a burst of opened files run with the cycle collector off), and the memos kept on
class members let their trees go with the caches that hold them. A leak here grew the server
to 500 MB with 500 open files and `check` by the size of every file it read."""

from __future__ import annotations

import ast
import gc
import sys
import types
import weakref
from collections.abc import Iterator

import pytest

from jax_lsp.analysis import document as documents
from jax_lsp.analysis.recorded import ReadLog, Recheck, RecordingView
from jax_lsp.config import Settings
from jax_lsp.engine import check_source

# A class whose methods feed the per-member memos (summaries, attribute writes, assignments
# to `self`, method findings) and findings in its methods.
MODULE = """\
import jax
import jax.numpy as jnp


class Model{n}:
    def __init__(self, size):
        self.size = size
        self.w = jnp.zeros(size)

    @jax.jit
    def step(self, x):
        if x.sum() > 0:
            x = x + 1
        return helper{n}(x) * self.w

    def scale(self, factor):
        self.w = self.w * factor
        return self


def helper{n}(x):
    return x * 2
"""


@pytest.fixture
def collector_off() -> Iterator[None]:
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


@pytest.mark.parametrize("edited", [False, True], ids=["one-shot", "edited"])
def test_models_are_freed_by_reference_counting(collector_off: None, edited: bool) -> None:
    """20 modules checked one after the other (the edited ones from their last version, as the
    server does, holding the last analysis only): with the cycle collector off, no model
    outlives the analysis holding it. A model held by its own document's lineage was a cycle:
    every one stayed, with all its parses and memos."""
    models = []
    last = None
    for n in range(20):
        text = MODULE.format(n=n % 2 if edited else n)
        previous = last.document if last is not None and edited else None
        last = check_source(
            text + f"# version {n}\n", f"pkg/m{n}.py", Settings(), previous=previous
        )
        models.append(weakref.ref(last.model))
    alive = [ref for ref in models if ref() is not None]
    assert alive == [models[-1]]


def _weak_memos() -> Iterator[tuple[str, weakref.WeakKeyDictionary]]:
    for name, module in list(sys.modules.items()):
        if not name.startswith("jax_lsp"):
            continue
        for attribute, value in list(vars(module).items()):
            found = value.values() if isinstance(value, dict) else (value,)
            for memo in found:
                if isinstance(memo, weakref.WeakKeyDictionary):
                    yield f"{name}.{attribute}", memo


def _reaches(start: object, target: object) -> bool:
    """Is `target` reachable from `start` through strong references (types, modules and
    functions not followed: they hold no analysis objects)?"""
    stack, seen = [start], set()
    while stack:
        current = stack.pop()
        if current is target:
            return True
        if id(current) in seen or isinstance(current, type | types.ModuleType | types.FunctionType):
            continue
        seen.add(id(current))
        stack.extend(gc.get_referents(current))
    return False


def _memos_holding_their_keys() -> list[str]:
    return [
        f"{name}: {key!r}"
        for name, memo in _weak_memos()
        for key, value in list(memo.items())
        if _reaches(value, key)
    ]


def test_member_memos_let_the_trees_go() -> None:
    """Facts memoised on a class member's node are kept while the node lives: a memo whose
    value holds the node (a method's summary record, its assignments to `self`) would keep the
    node, its tree and the value for as long as the process runs. Once the caches forget the
    parses, every method node goes."""
    methods = []
    for n in range(6):
        analysis = check_source(MODULE.format(n=n), f"pkg/m{n}.py", Settings())
        assert analysis.findings
        # An edit of one method: its class's other members are shared with the last parse.
        edited = MODULE.format(n=n).replace("factor\n", "factor + 1\n")
        analysis = check_source(edited, f"pkg/m{n}.py", Settings(), previous=analysis.document)
        methods += [
            weakref.ref(node)
            for unit in analysis.document.units
            for node in ast.walk(unit.tree)
            if isinstance(node, ast.FunctionDef)
        ]
    assert _memos_holding_their_keys() == []
    del analysis
    documents.clear_caches()
    gc.collect()
    assert [ref() for ref in methods if ref() is not None] == []


def test_an_edit_after_the_last_model_went_finds_what_a_fresh_analysis_finds() -> None:
    """The lineage holds its last model weakly: an edit from a version whose model is gone
    builds a model afresh, with the findings a fresh analysis gives."""
    text = MODULE.format(n=0)
    first = check_source(text, "pkg/m.py", Settings())
    document = first.document
    del first
    gc.collect()
    assert document.lineage.last_model is None
    for edited in (
        text + "# a comment\n",
        text.replace("        return self\n", "        if factor > 0:\n            return self\n"),
    ):
        again = check_source(edited, "pkg/m.py", Settings(), previous=document)
        documents.clear_caches()
        fresh = check_source(edited, "pkg/m.py", Settings())
        assert again.findings == fresh.findings
        assert fresh.findings


def test_checking_recorded_calls_keeps_no_cycle(collector_off: None) -> None:
    """A model holds the checks of recorded reads against it (`Recheck`): they must not keep
    the model's methods they asked again, each bound to the model (a cycle that only the
    cycle collector frees: every model of an edited file stayed)."""

    class Model:
        def __init__(self) -> None:
            self.recheck = Recheck(weakref.proxy(self))

        def runs(self, name: str) -> str:
            return "once"

    log = ReadLog()
    first = Model()
    assert RecordingView(first, log).runs("f") == "once"
    second = Model()
    assert second.recheck.holds(log)
    gone = weakref.ref(second)
    del second
    assert gone() is None

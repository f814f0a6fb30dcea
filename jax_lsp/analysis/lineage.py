"""Module-wide facts carried from one version of a document to the next.

A keystroke changes one unit, yet every module-wide fact (the kinds of module-level names,
which globals change, which names hold floats, each unit's cache key) is a pass over all
units. Each such fact is recorded here with the inputs it was computed from; the next
version's model reuses it when its own inputs compare equal. Inputs are mostly the per-unit
pieces memoised on each unit's parse, so the comparison is an identity check per unchanged
unit. Reuse is an optimisation only: whatever is reused equals what computing it afresh
would give (tests/analysis/test_lineage.py compares both on random edit sequences).
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Hashable, Sequence
from typing import TypeVar

T = TypeVar("T")
S = TypeVar("S")
R = TypeVar("R")
# Models from other inputs kept (weakly) beside the last one.
_EARLIER_MODELS = 2


class Lineage:
    """Facts of the last model built for one document's versions (shared by the versions
    built from each other with `Document(text, previous=...)`)."""

    __slots__ = ("_earlier_models", "_facts", "_families", "_last_model")

    def __init__(self) -> None:
        self._facts: dict[str, tuple[object, object]] = {}
        # Facts of one kind, one per key (a class's object fields), as `reuse_each` keeps them:
        # the generation that asked last, what it asked, and what the one before asked.
        self._families: dict[str, tuple[object, dict, dict]] = {}
        # The model of the last version analysed (a `ModuleModel`; see `ModuleModel.of`),
        # held weakly: see `last_model`.
        self._last_model: Callable[[], object | None] = _no_model
        # The models built before it from other inputs (the model an importer reads facts
        # from, the one the project graph built), held weakly as well: most recent first.
        self._earlier_models: list[Callable[[], object | None]] = []

    @property
    def last_model(self) -> object | None:
        """The model of the last version analysed, while something else still holds it (the
        server's last analyses, the workspace's kept models). A model holds its document,
        which holds this lineage: a strong reference here would make every model and all it
        reaches (parses evicted from the caches, memos) garbage that only the cycle collector
        frees, and `check` runs with the collector off. Dropped, the next version builds its
        model afresh: a miss, never a wrong answer."""
        return self._last_model()

    @last_model.setter
    def last_model(self, model: object) -> None:
        previous = self._last_model()
        if previous is not None and previous is not model:
            self._earlier_models = [self._last_model, *self._earlier_models][:_EARLIER_MODELS]
        self._last_model = weakref.ref(model)

    def models(self) -> list[object]:
        """The live models of this lineage, the last one first."""
        found = [self._last_model()] + [model() for model in self._earlier_models]
        return [model for model in found if model is not None]

    def reuse(self, name: str, inputs: object, compute: Callable[[], T]) -> T:
        """The fact `name` as last computed, if from inputs equal to `inputs`; else computed
        now. `compute` must depend on nothing but `inputs` (and constants)."""
        old = self._facts.get(name)
        result = old[1] if old is not None and old[0] == inputs else compute()
        # Keep the new inputs: the old ones may hold the parses of replaced units.
        self._facts[name] = (inputs, result)
        return result  # type: ignore[return-value]

    def hand_over(self, name: str, fact: T) -> T | None:
        """Keep `fact` as the last one of `name`; the one it replaces (or None)."""
        old = self._facts.get(name)
        self._facts[name] = (None, fact)
        return old[1] if old is not None else None  # type: ignore[return-value]

    def kept(self, name: str) -> object | None:
        """The last fact `hand_over` kept as `name` (None if none), left in place."""
        old = self._facts.get(name)
        return old[1] if old is not None else None

    def reuse_while(
        self, name: str, inputs: object, compute: Callable[[], tuple[T, Callable[[], bool]]]
    ) -> T:
        """`reuse` for a fact that also reads what is outside the document (other files):
        `compute` gives the fact and a check that what it read still reads the same; the fact
        as last computed is reused while its inputs are equal and that check holds."""
        old = self._facts.get(name)
        if old is not None and old[0] == inputs:
            fact, holds = old[1]  # type: ignore[misc]
            if holds():
                return fact
        fact, holds = compute()
        self._facts[name] = (inputs, (fact, holds))
        return fact

    def reuse_each(
        self, name: str, generation: object, key: Hashable, inputs: object, compute: Callable[[], T]
    ) -> T:
        """`reuse` for a family of facts, one per `key` (the fields of each class): the fact
        for `key` as the last generation (model) computed or reused it, if from inputs equal to
        `inputs`; else computed now. Only what the current and the last generation asked is
        kept, so keys that are gone (a class renamed while typing) do not pile up."""
        family = self._families.get(name)
        if family is None or family[0] is not generation:
            family = (generation, {}, family[1] if family is not None else {})
            self._families[name] = family
        _, current, last = family
        old = current.get(key) or last.get(key)
        result = old[1] if old is not None and old[0] == inputs else compute()
        current[key] = (inputs, result)
        return result  # type: ignore[return-value]

    def fold(
        self,
        name: str,
        context: Hashable,
        items: Sequence[S],
        step: Callable[[S, dict], R],
        apply: Callable[[dict, R], None],
    ) -> tuple[list[R], dict]:
        """A left fold over `items` with a mutable state (a dict, starting empty): each item's
        result is `step(item, state)`, then `apply(state, result)` updates the state.

        `step` must depend only on the item, the state and `context`. Items compare by
        identity. The results of the unchanged items before an edit are the last fold's; after
        the edit they are the last fold's too when the edited items' results came out equal
        (the state is then the same again). Returns the results and the final state (not to
        be mutated: it may be the last fold's)."""
        old = self._facts.get(name)
        if old is None or old[0] != context:
            results, state = _fold(items, {}, step, apply)
            self._facts[name] = (context, (list(items), results, state))
            return results, state
        old_items, old_results, old_state = old[1]  # type: ignore[misc]
        head = _common_prefix(items, old_items)
        tail = _common_suffix(items, old_items, head)
        state: dict = {}
        for result in old_results[:head]:
            apply(state, result)
        middle, state = _fold(items[head : len(items) - tail], state, step, apply)
        old_middle = old_results[head : len(old_items) - tail]
        if middle == old_middle:
            results = old_results[:head] + middle + old_results[len(old_items) - tail :]
            state = old_state  # equal states before the tail: equal after it
        else:
            rest, state = _fold(items[len(items) - tail :], state, step, apply)
            results = old_results[:head] + middle + rest
        self._facts[name] = (context, (list(items), results, state))
        return results, state


def _no_model() -> None:
    """No model yet: what a dead weak reference answers."""
    return None


def _fold(items: Sequence[S], state: dict, step, apply) -> tuple[list, dict]:
    results = []
    for item in items:
        result = step(item, state)
        apply(state, result)
        results.append(result)
    return results, state


def _common_prefix(new: Sequence, old: Sequence) -> int:
    limit = min(len(new), len(old))
    index = 0
    while index < limit and new[index] is old[index]:
        index += 1
    return index


def _common_suffix(new: Sequence, old: Sequence, prefix: int) -> int:
    limit = min(len(new), len(old)) - prefix
    count = 0
    while count < limit and new[-1 - count] is old[-1 - count]:
        count += 1
    return count

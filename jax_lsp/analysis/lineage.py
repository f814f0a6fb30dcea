"""Module-wide facts carried from one version of a document to the next.

A keystroke changes one unit, yet every module-wide fact (the kinds of module-level names,
which globals change, which names hold floats, each unit's cache key) is a pass over all
units. Each such fact is recorded here under the function that computes it, with the
arguments it was computed from (`reuse(compute, *inputs)`: no name or input list is kept by
hand, so none can collide or be forgotten); the next version's model reuses it when its own
arguments compare equal (a `unit_memo.Keyed` by its key). Inputs are mostly the per-unit
pieces memoised on each unit's parse, so the comparison is an identity check per unchanged
unit. Reuse is an optimisation only: whatever is reused equals what computing it afresh
would give (tests/analysis/test_lineage.py compares both on random edit sequences).
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Hashable, Sequence, Set
from operator import is_
from typing import TypeVar

from jax_lsp.analysis.unit_memo import Keyed, check_computation

T = TypeVar("T")
S = TypeVar("S")
R = TypeVar("R")
# Models from other inputs kept (weakly) beside the last one.
_EARLIER_MODELS = 2
# Sequences of items whose kept copies are shared (`Lineage._kept`).
_KEPT_SEQUENCES = 4


class Lineage:
    """Facts of the last model built for one document's versions (shared by the versions
    built from each other with `Document(text, previous=...)`)."""

    __slots__ = (
        "_earlier_models",
        "_facts",
        "_families",
        "_holding",
        "_kept_items",
        "_last_model",
        "_lists",
        "_spans",
        "_unions",
        "analysed_again",
    )

    def __init__(self) -> None:
        # Whether the document's versions are analysed one after another, each handed what
        # the last found (an editor's document, `check --watch`): then a version's model also
        # keeps what only the next version's reuses (what each member of a class adds to its
        # unit's summary). Set by the analysis that hands its findings over; a text analysed
        # once keeps nothing it would not read again.
        self.analysed_again = False
        # By the function computing each fact: its inputs' keys and the fact.
        self._facts: dict[Callable, tuple[object, object]] = {}
        # By per-unit fact (`union`): the units' parts and their union.
        self._unions: dict[Callable, tuple[tuple, frozenset]] = {}
        # Facts of one kind, one per key (a class's object fields), as `reuse_each` keeps them:
        # the generation that asked last, what it asked, and what the one before asked.
        self._families: dict[Callable, tuple[object, dict, dict]] = {}
        # By per-unit computation (`each_unit`): its arguments' keys, the units asked, and
        # their results.
        self._lists: dict[Callable, tuple[object, list, list]] = {}
        # By per-unit word set (`holding`): the units last asked about and, by word, which
        # of them hold it; the units asked before those, with their answers.
        self._holding: dict[Callable, _Holding] = {}
        # The model of the last version analysed (a `ModuleModel`; see `ModuleModel.of`),
        # held weakly: see `last_model`.
        self._last_model: Callable[[], object | None] = _no_model
        # The models built before it from other inputs (the model an importer reads facts
        # from, the one the project graph built), held weakly as well: most recent first.
        self._earlier_models: list[Callable[[], object | None]] = []
        # The sequences of items given lately (a document's parses, mostly), by identity, with
        # the copy kept of each: most per-unit facts of a version are asked over the same list,
        # and share one copy.
        self._kept_items: dict[int, tuple[Sequence, tuple]] = {}
        # For the copy last compared with others (`_span`): by each other copy's identity, the
        # lengths of the runs of the same items both start and end with, found once for all
        # the facts asked over both. Only one version's copy: an older version's parses go.
        self._spans: tuple[tuple | None, dict[int, tuple[tuple, int, int]]] = (None, {})

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

    def reuse(self, compute: Callable[..., T], *inputs: object) -> T:
        """`compute(*inputs)` as last computed, if from inputs equal to `inputs` (a `Keyed` by
        its key); else computed now. `compute` is a plain function, which reads nothing but
        its inputs (and constants)."""
        key = _inputs_key(compute, inputs)
        old = self._facts.get(compute)
        result = old[1] if old is not None and old[0] == key else compute(*inputs)
        # Keep the new inputs: the old ones may hold the parses of replaced units.
        self._facts[compute] = (key, result)
        return result  # type: ignore[return-value]

    def hand_over(self, owner: Callable[..., T], fact: T) -> T | None:
        """Keep `fact` as the last one `owner` made; the one it replaces (or None)."""
        old = self._facts.get(owner)
        self._facts[owner] = (None, fact)
        return old[1] if old is not None else None  # type: ignore[return-value]

    def kept(self, owner: Callable[..., T]) -> T | None:
        """The last fact `owner` kept (`hand_over`; None if none), left in place."""
        old = self._facts.get(owner)
        return old[1] if old is not None else None

    def each_unit(self, compute: Callable[..., R], sources: Sequence[S], *args: object) -> list[R]:
        """`[compute(source, *args) for source in sources]`, `compute` a `unit_memo.per_unit`
        fact (a function of the unit's parse and `args` alone): the last call's results for
        the units before and after the edited ones (the same parses, by identity) when its
        `args` were equal (a `Keyed` by its key), the units' memos asked for the others only.
        A module fact gathered from every unit at each keystroke then costs an identity
        check for each unit the keystroke left alone."""
        key = _inputs_key(compute, args)
        old = self._lists.get(compute)
        kept = self._kept(sources)
        if old is None or old[0] != key:
            results = [compute(source, *args) for source in kept]
        else:
            _, old_sources, old_results = old
            head, tail = self._span(kept, old_sources)
            results = old_results[:head]
            results += [compute(source, *args) for source in kept[head : len(kept) - tail]]
            results += old_results[len(old_results) - tail :] if tail else []
        self._lists[compute] = (key, kept, results)
        return results[:]  # the caller's own: the kept list is the next call's

    def union(
        self, parts_of: Callable[..., Set[R]], sources: Sequence[S], *args: object
    ) -> frozenset[R]:
        """The union over `sources` of the per-unit fact `parts_of` (`each_unit`): the last one
        made while every unit's part is the same (the same set, which the facts and logs that
        compare it find unchanged by identity)."""
        parts = tuple(self.each_unit(parts_of, sources, *args))
        old = self._unions.get(parts_of)
        if old is not None and old[0] == parts:
            return old[1]
        found: frozenset[R] = frozenset().union(*parts)
        self._unions[parts_of] = (parts, found)
        return found

    def holding(self, words: Callable[[S], Set[str]], sources: list[S], word: str) -> list[int]:
        """The indices of the units of `sources` among whose `words` (a `unit_memo.per_unit`
        fact of the unit's parse alone) `word` is: for the units before and after the edited
        ones (the same parses, by identity), as last found for the units asked about before,
        so that a word costs the units an edit changed and those that hold it, not a look-up
        in every unit's words. `sources` is the caller's list for one model (its identity
        tells a new model's list from the last)."""
        units = self._kept(sources)
        held = self._holding.get(words)
        if held is None or held.sources is not units:
            span = self._span(units, held.sources) if held is not None else (0, 0)
            held = self._holding[words] = _Holding(units, held, *span)
        found = held.found.get(word)
        if found is None:
            found = held.found[word] = held.find(words, word)
        return found

    def reuse_while(
        self, compute: Callable[..., tuple[T, Callable[[], bool]]], *inputs: object
    ) -> T:
        """`reuse` for a fact that also reads what is outside the document (other files):
        `compute(*inputs)` gives the fact and a check that what it read still reads the same;
        the fact as last computed is reused while its inputs are equal and that check holds."""
        key = _inputs_key(compute, inputs)
        old = self._facts.get(compute)
        if old is not None and old[0] == key:
            fact, holds = old[1]  # type: ignore[misc]
            if holds():
                return fact
        fact, holds = compute(*inputs)
        self._facts[compute] = (key, (fact, holds))
        return fact

    def last_checked(
        self, compute: Callable[..., tuple[T, Callable[[], bool]]]
    ) -> tuple[T, Callable[[], bool]] | None:
        """The fact `reuse_while` last kept for `compute`, with its check of what it read
        (None: never computed)."""
        old = self._facts.get(compute)
        return old[1] if old is not None else None  # type: ignore[return-value]

    def reuse_each(
        self, compute: Callable[..., T], generation: object, key: Hashable, *inputs: object
    ) -> T:
        """`reuse` for a family of facts, one per `key` (the fields of each class): the fact
        for `key` as the last generation (model) computed or reused it, if from inputs equal to
        `inputs`; else `compute(*inputs)` now. Only what the current and the last generation
        asked is kept, so keys that are gone (a class renamed while typing) do not pile up."""
        family = self._families.get(compute)
        if family is None or family[0] is not generation:
            family = (generation, {}, family[1] if family is not None else {})
            self._families[compute] = family
        _, current, last = family
        old = current.get(key) or last.get(key)
        given = _inputs_key(compute, inputs)
        result = old[1] if old is not None and old[0] == given else compute(*inputs)
        current[key] = (given, result)
        return result  # type: ignore[return-value]

    def fold(
        self,
        step: Callable[..., R],
        items: Sequence[S],
        apply: Callable[[dict, R], None],
        *context: object,
    ) -> tuple[list[R], dict]:
        """A left fold over `items` with a mutable state (a dict, starting empty): each item's
        result is `step(item, state, *context)`, then `apply(state, result)` updates the state.

        `step` is a plain function of the item, the state and `context` (a `Keyed` compared
        by its key). Items compare by identity. The results of the unchanged items before an
        edit are the last fold's; after the edit they are the last fold's too when the edited
        items' results came out equal (the state is then the same again). Returns the results
        and the final state (not to be mutated: it may be the last fold's)."""
        key = _inputs_key(step, context)
        old = self._facts.get(step)
        items = self._kept(items)
        if old is None or old[0] != key:
            results, state = _fold(items, {}, step, apply, context)
            self._facts[step] = (key, (items, results, state))
            return results, state
        old_items, old_results, old_state = old[1]  # type: ignore[misc]
        head, tail = self._span(items, old_items)
        state: dict = {}
        for result in old_results[:head]:
            apply(state, result)
        middle, state = _fold(items[head : len(items) - tail], state, step, apply, context)
        old_middle = old_results[head : len(old_items) - tail]
        if middle == old_middle:
            results = old_results[:head] + middle + old_results[len(old_items) - tail :]
            state = old_state  # equal states before the tail: equal after it
        else:
            rest, state = _fold(items[len(items) - tail :], state, step, apply, context)
            results = old_results[:head] + middle + rest
        self._facts[step] = (key, (items, results, state))
        return results, state

    def _kept(self, items: Sequence[S]) -> tuple[S, ...]:
        """A copy of `items` to keep (the caller's sequence may change), the same copy as the
        last calls' when given one of the same sequences (held: its identity stays its own)."""
        kept = self._kept_items.get(id(items))
        if kept is not None and kept[0] is items:
            return kept[1]
        if len(self._kept_items) >= _KEPT_SEQUENCES:
            self._kept_items.clear()
        copy = tuple(items)
        self._kept_items[id(items)] = (items, copy)
        return copy

    def _span(self, new: tuple, old: tuple) -> tuple[int, int]:
        """How many items `new` and `old` (kept copies) share at their start and, after
        that, at their end (the same objects): found once per pair."""
        of, spans = self._spans
        if of is not new:
            spans = {}
            self._spans = (new, spans)
        found = spans.get(id(old))
        if found is None or found[0] is not old:
            head = _common_prefix(new, old)
            found = spans[id(old)] = (old, head, _common_suffix(new, old, head))
        return found[1], found[2]


class _Holding:
    """`Lineage.holding`'s answers for one list of units, and how to carry over those for
    the list before it."""

    __slots__ = ("found", "head", "previous", "shift", "sources", "tail")

    def __init__(self, sources: tuple, previous: _Holding | None, head: int, tail: int) -> None:
        self.sources = sources
        self.found: dict[str, list[int]] = {}
        # The last list's answers (only those: they are not carried further) and how many
        # units before and after the edited ones the two lists share (`Lineage._span`).
        self.previous = previous.found if previous is not None else None
        self.head, self.tail = head, tail
        # indices past the shared head move with the edited units' count
        self.shift = len(sources) - len(previous.sources) if previous is not None else 0

    def find(self, words: Callable, word: str) -> list[int]:
        sources, previous = self.sources, self.previous
        old = previous.get(word) if previous is not None else None
        if old is None:
            return [index for index, source in enumerate(sources) if word in words(source)]
        head, tail = self.head, self.tail
        after = len(sources) - tail  # the first index of the shared tail
        found = [index for index in old if index < head]
        found += [index for index in range(head, after) if word in words(sources[index])]
        found += [index + self.shift for index in old if index + self.shift >= after]
        return found


def _inputs_key(compute: Callable, inputs: tuple) -> tuple:
    """What a fact's inputs are compared by: each input, a `Keyed` one by its key (the
    fact it stands for is not kept)."""
    check_computation(compute)
    return tuple([arg.key if type(arg) is Keyed else arg for arg in inputs])


def _no_model() -> None:
    """No model yet: what a dead weak reference answers."""
    return None


def _fold(items: Sequence[S], state: dict, step, apply, context: tuple) -> tuple[list, dict]:
    results = []
    for item in items:
        result = step(item, state, *context)
        apply(state, result)
        results.append(result)
    return results, state


def _common_prefix(new: Sequence, old: Sequence) -> int:
    # Compared in C (`map(is_, ...)`): asked of every unit by each per-unit fact at every
    # keystroke, a loop in Python cost more than the facts it kept.
    same = list(map(is_, new, old))
    return same.index(False) if False in same else len(same)


def _common_suffix(new: Sequence, old: Sequence, prefix: int) -> int:
    limit = min(len(new), len(old)) - prefix
    same = list(map(is_, reversed(new), reversed(old)))[:limit]
    return same.index(False) if False in same else len(same)

"""Unit keys kept from one model of a document to the next, so an edit re-keys only what it reaches.

A unit's key (`ModuleModel.unit_key`) is a function of the unit's parse, its first line and
the module facts it reads. Every such fact is declared once, as a `KeyInput`: a view of it
that compares with `==` across models of the same document's versions (the parses of the
units an edit did not touch are shared, so their nodes compare by identity), and which
units' keys a change of the view reaches. A unit whose parse and first line are the last
model's, and which no changed view reaches, has the last model's key: building it again
would give an equal one (tests/analysis/test_lineage.py compares with fresh models).

A fact read by unit keys and missing here would be served stale: declare it next to
`ModuleModel._compute_unit_key`'s other inputs (`model.UNIT_KEY_INPUTS`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from jax_lsp.analysis.document import UnitSource

# What a change of one view reaches: the parses of the units whose keys read what changed,
# or None for every unit.
Reached = Iterable[UnitSource] | None


@dataclass(frozen=True, slots=True)
class KeyInput:
    """A module fact unit keys read. `view(model)`: what of it the keys can read; `reached
    (model, old view, new view)`: the units of `model` whose keys read what changed."""

    name: str
    view: Callable[[Any], object]
    reached: Callable[[Any, Any, Any], Reached]


@dataclass(slots=True)
class KeyRecord:
    """One model's views of the key inputs, and the keys it built, by (id of the unit's
    parse, first line), each with the parse (kept alive, so that no other parse takes its
    id while the record stands)."""

    views: dict[str, object]
    keys: dict[tuple[int, int], tuple[UnitSource, tuple]] = field(default_factory=dict)


def kept_keys(
    previous: KeyRecord | None,
    current: KeyRecord,
    inputs: Iterable[KeyInput],
    model: Any,
) -> dict[tuple[int, int], tuple]:
    """The previous model's keys that hold for `model` (whose views are `current`'s), by
    place: those of its units with the same parse at the same line that no changed view
    reaches. Only the current units' places: the replaced parses are not kept alive."""
    if previous is None or not previous.keys:
        return {}
    reached: set[int] = set()
    for item in inputs:
        old, new = previous.views[item.name], current.views[item.name]
        if old == new:
            continue
        sources = item.reached(model, old, new)
        if sources is None:
            return {}
        reached.update(id(source) for source in sources)
    kept = {}
    for unit in model.document.units:
        place = (id(unit.source), unit.start_line)
        last = previous.keys.get(place)
        if last is not None and last[0] is unit.source and place[0] not in reached:
            kept[place] = last[1]
    return kept


_MISSING = object()


def changed_entries(old: Mapping | frozenset, new: Mapping | frozenset) -> set:
    """The keys (members, for sets) whose entries differ between two views."""
    if isinstance(old, frozenset) or isinstance(new, frozenset):
        return set(old) ^ set(new)
    return {
        key for key in old.keys() | new.keys() if old.get(key, _MISSING) != new.get(key, _MISSING)
    }


def every_unit(model: object, old: object, new: object) -> Reached:
    return None


def by_node(model: Any, old: Mapping | frozenset, new: Mapping | frozenset) -> Reached:
    """For a view by function node: the units holding the nodes whose entries changed (a node
    of a unit that is gone has none)."""
    source_of = model._source_of
    return [source_of[node] for node in changed_entries(old, new) if node in source_of]


def by_start(model: Any, old: Mapping, new: Mapping) -> Reached:
    """For a view by a unit's first line: the units starting at the lines that changed."""
    starts = changed_entries(old, new)
    return [unit.source for unit in model.document.units if unit.start_line in starts]


def by_name(readers: Callable[[Any, UnitSource], Iterable[str]]) -> Callable:
    """For a view by name: the units whose `readers(model, parse)` hold a changed name."""

    def reached(model: Any, old: Mapping, new: Mapping) -> Reached:
        names = changed_entries(old, new)
        return [
            unit.source
            for unit in model.document.units
            if unit.tree is not None and not names.isdisjoint(readers(model, unit.source))
        ]

    return reached


def by_reader(reads: Callable[[Any, UnitSource], bool]) -> Callable:
    """For a view only some units' keys read (`reads(model, parse)`): those units."""

    def reached(model: Any, old: object, new: object) -> Reached:
        return [
            unit.source
            for unit in model.document.units
            if unit.tree is not None and reads(model, unit.source)
        ]

    return reached

"""Module facts read by one unit's rules, recorded with the answers they got.

A unit's findings are cached on its parse and reused on later versions of the document.
Most module-wide facts a rule reads are asked by name: is `x` a mutable global, which class is
`model` an instance of, which globals change after this unit's functions are traced. Keying
the findings on the whole fact makes every unit re-run its rules when any module-level
statement is added (a script, a notebook). Instead, while a unit's rules run, they see the
model through a `UnitReads` view: every fact they read answers through a recording wrapper
(`jax_lsp.analysis.recorded`) that remembers every question (a key looked up, a member
tested, the whole fact iterated, a method called) with its answer, and the findings are reused
only while every recorded question answers the same on the new model. A new fact a rule reads
is recorded without being declared anywhere.

A fact declares at its definition when it is read otherwise (`reuse_of` finds the
declaration on the model's class):

- `keyed`: `ModuleModel.unit_key` holds what rules read of it (per unit or whole), and the
  findings are cached under the key, so it answers as it is, unrecorded (the unit's trace,
  the imports, the syntax of the module: facts every rule reads, whose recording would cost
  more than the key). It also says whether it may reach the other members of the class a
  method stands in (`MethodReads`).
- `at_document_lines`: recorded, and its answers are at document lines: a unit's findings
  that read it are reused at the same first line only (`ReadLog.unit_start`).
- `asked_at_unit_start`: a method asked with the unit's first line, whose answers hold no
  line: recorded with the line standing for the unit's (`recorded.UNIT_START`), so that the
  findings of a unit moved by an edit above it are reused while the answer at its new line is
  the same.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from types import MappingProxyType

from jax_lsp.analysis.cached import cached_property
from jax_lsp.analysis.recorded import ReadLog, Recheck, _wrap, recorded_call

_DECLARED = "__fact_reuse__"  # the attribute of a fact's function, or its field's metadata key


@dataclass(frozen=True, slots=True)
class Keyed:
    """A fact the unit key holds: rules read it unrecorded. `reaches_members`: whether a
    method's rules reading it may reach the other members of its class (the class node, the
    document, functions resolved): True, or for a mapping, which keys do (given the key and
    the method's class). `carries_returns`: a method whose answers (kinds) hold what their
    interpretation asked of the module functions' return summaries (`returns_read`), which
    the log records as questions of `return_value`: the key holds the unit's own text, not
    the texts of the functions it calls."""

    reaches_members: bool | Callable[[object, str], bool] = False
    carries_returns: bool = False


@dataclass(frozen=True, slots=True)
class AtDocumentLines:
    """A fact recorded as rules read it, whose answers hold at the unit's first line only."""


@dataclass(frozen=True, slots=True)
class AskedAtUnitStart:
    """A method of the model that rules ask with the unit's first line, whose answers hold
    no document line: recorded with the line as `recorded.UNIT_START`, and asked again at
    the unit's line where the findings are reused (a unit moved by an edit above it keeps
    them while the answer there is the same)."""


AT_DOCUMENT_LINES = AtDocumentLines()
ASKED_AT_UNIT_START = AskedAtUnitStart()
FactReuse = Keyed | AtDocumentLines | AskedAtUnitStart


def _declare(fact, reuse: FactReuse):
    function = fact.fget if isinstance(fact, property) else getattr(fact, "func", fact)
    setattr(function, _DECLARED, reuse)
    return fact


def keyed(
    fact=None,
    *,
    reaches_members: bool | Callable[[object, str], bool] = False,
    carries_returns: bool = False,
):
    """Declare a fact of the model (a method, property or cached property) held by the unit
    key: `@keyed`, or `@keyed(reaches_members=True)` (see `Keyed`)."""
    reuse = Keyed(reaches_members, carries_returns)
    if fact is None:
        return lambda fact: _declare(fact, reuse)
    return _declare(fact, reuse)


def at_document_lines(fact):
    """Declare a fact of the model whose answers are at document lines (`AtDocumentLines`)."""
    return _declare(fact, AT_DOCUMENT_LINES)


def asked_at_unit_start(fact):
    """Declare a method of the model asked with the unit's first line (`AskedAtUnitStart`)."""
    return _declare(fact, ASKED_AT_UNIT_START)


def keyed_metadata(
    reaches_members: bool | Callable[[object, str], bool] = False,
) -> Mapping[str, Keyed]:
    """The metadata declaring a dataclass field of the model held by the unit key (`Keyed`):
    `field(init=False, metadata=keyed_metadata())`."""
    return MappingProxyType({_DECLARED: Keyed(reaches_members)})


_REUSE: dict[tuple[type, str], FactReuse | None] = {}


def reuse_of(kind: type, name: str) -> FactReuse | None:
    """How the fact `name` of a model of class `kind` declares it is read (None: recorded)."""
    place = (kind, name)
    if place in _REUSE:
        return _REUSE[place]
    found = None
    for klass in kind.__mro__:
        fact = vars(klass).get(name)
        if isinstance(fact, property | cached_property) or callable(fact):
            function = fact.fget if isinstance(fact, property) else getattr(fact, "func", fact)
            found = getattr(function, _DECLARED, None)
            break
    else:
        fields = getattr(kind, "__dataclass_fields__", {})
        if name in fields:
            found = fields[name].metadata.get(_DECLARED)
    _REUSE[place] = found
    return found


class UnitReads:
    """The model as one unit's rules see it: a fact declared `keyed` answers as it is, every
    other fact through a recording wrapper. With no `log` (findings nobody will reuse) every
    fact answers as it is, unrecorded. `unit_start`: the unit's first line, which the log
    notes when a fact at document lines is read."""

    def __init__(
        self,
        model: object,
        log: ReadLog | None,
        recheck: Recheck | None = None,
        unit_start: int = 0,
    ) -> None:
        self._model = model
        self._log = log
        self._unit_start = unit_start
        # The checks of this model, which learn the facts read (so that the next model
        # checks this log cheaply).
        self._facts = recheck.facts if recheck is not None else None
        if log is not None:
            log.recording = recheck.facts_ref if recheck is not None else None

    def __getattr__(self, name: str):
        if self._log is None:
            value = getattr(self._model, name)
        else:
            reuse = reuse_of(type(self._model), name)
            if type(reuse) is Keyed:
                value = self._keyed(name, reuse)
            elif reuse is ASKED_AT_UNIT_START:
                method = getattr(self._model, name)
                value = recorded_call(name, method, self._log, self._unit_start)
            else:
                if reuse is AT_DOCUMENT_LINES:
                    self._log.unit_start = self._unit_start
                value = _wrap(name, getattr(self._model, name), self._log, self._facts)
        object.__setattr__(self, name, value)  # later reads in this unit: a plain attribute
        return value

    def _keyed(self, name: str, reuse: Keyed) -> object:
        value = getattr(self._model, name)
        return _noting_returns(value, self._log) if reuse.carries_returns else value  # type: ignore[arg-type]


def _noting_returns(method: Callable, log: ReadLog) -> Callable:
    """`method`, the return summaries each answer's interpretation asked (`returns_read`)
    noted in `log` as questions of the model's `return_value`."""

    def call(*args):
        found = method(*args)
        for question, answer in found.returns_read:
            log.note("return_value", "call", question, answer)
        return found

    return call


class MethodReads(UnitReads):
    """The model as the rules of one method of a class see it: as `UnitReads`, and `reached`
    tells whether they read a keyed fact that may reach the class's other members (its
    declaration says so: `Keyed.reaches_members`). A recorded fact needs no such care: an
    answer that holds another member changes with the class's parse, and the method's kept
    findings are then not reused."""

    def __init__(
        self,
        model: object,
        log: ReadLog | None,
        own_class: str,
        recheck: Recheck | None = None,
        unit_start: int = 0,
    ) -> None:
        super().__init__(model, log, recheck, unit_start)
        self._own_class = own_class
        # What the guards note, held apart from the view: the view keeps its guards (as every
        # fact it answered), and a guard holding the view would make a cycle that keeps the
        # model until the cycle collector runs (`check` runs without it).
        self._reach = _Reach()

    @property
    def reached(self) -> bool:
        return self._reach.reached

    def _keyed(self, name: str, reuse: Keyed) -> object:
        value = super()._keyed(name, reuse)
        reaches = reuse.reaches_members
        if reaches is True:
            self._reach.reached = True
        elif reaches:
            own_class = self._own_class
            return _SiblingGuard(value, self._reach, lambda key: reaches(key, own_class))  # type: ignore[arg-type, operator]
        return value


def own_class_looked_up(key: object, own_class: str) -> bool:
    """`reaches_members` of a mapping by class name: the method's own class (its node holds
    every member)."""
    return key == own_class


class _Reach:
    """Whether a method's rules read a fact that may reach the class's other members."""

    __slots__ = ("reached",)

    def __init__(self) -> None:
        self.reached = False


class _SiblingGuard(Mapping):
    """A mapping of the module that notes, on `reach`, a lookup of a key that `reaches` or a
    listing of the whole mapping."""

    __slots__ = ("_data", "_reach", "_reaches")

    def __init__(self, data: Mapping, reach: _Reach, reaches: Callable[[object], bool]) -> None:
        self._data = data
        self._reach = reach
        self._reaches = reaches

    def __getitem__(self, key: object) -> object:
        if self._reaches(key):
            self._reach.reached = True
        return self._data[key]

    def __contains__(self, key: object) -> bool:
        return key in self._data

    def __iter__(self) -> Iterator:
        self._reach.reached = True
        return iter(self._data)

    def __len__(self) -> int:
        self._reach.reached = True
        return len(self._data)

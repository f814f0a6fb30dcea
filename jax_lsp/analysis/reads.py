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

The exceptions are the facts in `KEYED`, which `ModuleModel.unit_key` holds (per unit or
whole): the findings are cached under the key, so those answer as they are, unrecorded.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping

from jax_lsp.analysis.recorded import ReadLog, Recheck, _wrap

# Facts rules read that `ModuleModel.unit_key` holds: the unit's own functions' traces,
# objects, carries and explanations; the module's imports (`resolver`, `alias_key`,
# `import_line`), classes (`_class_facts_key`), callee facts (`key_helpers`,
# `static_signatures`), 64-bit facts, attribute writes and module shapes (for the units that
# may read them); methods computing scope values keyed by the same (`scope_kinds`, ...).
# Syntax-level facts of the module (`document`, `summaries`, `records`, `functions`) are
# read where the key's per-function facts and `_returns_key` cover them.
KEYED = frozenset(
    {
        "document",
        "resolver",
        "alias_key",
        "import_bindings",
        "import_line",
        "may_make_explicit_meshes",
        "x64",
        "x64_setting",
        "external",
        "classes",
        "class_of_method",
        "class_defined_twice",
        "records",
        "functions",
        "module_function_names",
        "summaries",
        "trace",
        "key_helpers",
        "key_summaries",
        "key_makers",
        "static_signatures",
        "assigned_attributes",
        "fresh_attribute_writes",
        "attribute_classes",
        "module_shapes",
        "module_kinds",
        "module_key_reuses",
        "module_object_methods",
        "scope_kinds",
        "context_of",
        "enclosing_chain",
        "explain",
        "resolve",
        "resolve_ref",
        "function_node",
        "functions_in",
        "object_params",
        "classes_in",
        "instances",
        "apply_fn_class",
        "ref_params",
        "carry_values",
        "passed_defaults",
        "return_value",
        "module_lambdas",
    }
)

# KEYED facts through which a rule may reach other members of the class it stands in (the
# class node, functions resolved, the document, the class body's flow): a unit's findings
# have its whole text for key, so they may; a method's own findings, kept while another method
# of its class is edited (`jax_lsp.engine`), are not kept once its rules read one of these.
# `classes` and `functions` only reach them through some keys (`MethodReads`).
REACHES_SIBLINGS = frozenset(
    {
        "document",
        "classes",
        "functions",
        "summaries",
        "resolve",
        "resolve_ref",
        "function_node",
        "functions_in",
        "classes_in",
        "instances",
        "apply_fn_class",
        "attribute_classes",
        "module_kinds",
        "module_lambdas",
    }
)
assert REACHES_SIBLINGS <= KEYED


class UnitReads:
    """The model as one unit's rules see it: `KEYED` facts answer as they are, every other
    fact through a recording wrapper. With no `log` (findings nobody will reuse) every fact
    answers as it is, unrecorded."""

    def __init__(self, model: object, log: ReadLog | None, recheck: Recheck | None = None) -> None:
        self._model = model
        self._log = log
        # The checks of this model, which learn the facts read (so that the next model
        # checks this log cheaply).
        self._facts = recheck.facts if recheck is not None else None
        if log is not None:
            log.recording = recheck.facts_ref if recheck is not None else None

    def __getattr__(self, name: str):
        if name in KEYED or self._log is None:
            value = self._keyed(name)
        else:
            value = _wrap(name, getattr(self._model, name), self._log, self._facts)
        object.__setattr__(self, name, value)  # later reads in this unit: a plain attribute
        return value

    def _keyed(self, name: str) -> object:
        return getattr(self._model, name)


class MethodReads(UnitReads):
    """The model as the rules of one method of a class see it: as `UnitReads`, and `reached`
    tells whether they read a fact that may reach the class's other members. Looking up the
    class `own_class` (its node holds them all) or a dotted function path (`Cls.method`), or
    listing all classes or functions, counts; testing membership and looking up module-level
    functions do not."""

    def __init__(
        self, model: object, log: ReadLog | None, own_class: str, recheck: Recheck | None = None
    ) -> None:
        super().__init__(model, log, recheck)
        self._own_class = own_class
        # What the guards note, held apart from the view: the view keeps its guards (as every
        # fact it answered), and a guard holding the view would make a cycle that keeps the
        # model until the cycle collector runs (`check` runs without it).
        self._reach = _Reach()

    @property
    def reached(self) -> bool:
        return self._reach.reached

    def _keyed(self, name: str) -> object:
        value = getattr(self._model, name)
        own_class = self._own_class
        if name == "classes":
            return _SiblingGuard(value, self._reach, lambda key: key == own_class)  # type: ignore[arg-type]
        if name == "functions":
            return _SiblingGuard(value, self._reach, lambda key: "." in key)  # type: ignore[arg-type]
        if name in REACHES_SIBLINGS:
            self._reach.reached = True
        return value


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

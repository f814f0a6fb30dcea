"""What crosses between the modules of a project about tracing: the functions of another
module that a module's traced code calls or transforms (outgoing), and the traces that other
modules give a module's own functions (incoming).

A module's model resolves a name imported from another workspace module through a
`ForeignDefinitions` (the workspace reads that module; nothing is imported or run), traces it
as it would a function of its own, and keeps what it found aside as `outgoing` instead of
analysing the other module's code. The project's trace graph (`jax_lsp.analysis.project`)
hands each module the traces its importers found as `IncomingTrace`s, which its model seeds its
own trace with. Below the model, so that both it and the project graph may use them.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass

from jax_lsp.analysis.passed_values import PassedValue
from jax_lsp.analysis.summary import FunctionNode
from jax_lsp.findings import Span


@dataclass(frozen=True)
class ForeignFunction:
    """A function defined in another workspace module: `path` there ("f", "Cls.method") and
    its definition in that module's parse."""

    file: str  # the module's file, links resolved
    path: str
    node: FunctionNode = None  # type: ignore[assignment]
    method: bool = False  # defined in a class body: a bound call passes `self`


@dataclass(frozen=True)
class ForeignStep:
    """One link of "why is this traced?" in another module: `function` there is traced by
    `label` (a transformation) or called from `caller`, at `span` of `file`."""

    function: str
    label: str | None
    caller: str | None
    file: str
    span: Span


@dataclass(frozen=True)
class IncomingTrace:
    """A trace that code in another module gives this module's function `function` (its
    path): the transformation or the traced call, what it traces, and why (the site in the
    other module first, then why that code is traced)."""

    function: str
    via: str
    abstract: bool
    direct: bool  # a transformation applies to it there (not only reached through calls)
    traced_params: frozenset[str]
    static_params: frozenset[str]
    steps: tuple[ForeignStep, ...]
    all_leaves: frozenset[str] = frozenset()
    # Parameters every trace leaves at a default naming a module or function (qualname), and
    # what every trace gives a parameter (`passed_values`): see `TraceInfo`.
    module_defaults: frozenset[tuple[str, str]] = frozenset()
    literals: frozenset[tuple[str, PassedValue]] = frozenset()
    array_functions: frozenset[str] = frozenset()
    boolean_params: frozenset[str] = frozenset()
    # Parameters the traced calls there give a tracer of their own (not a parameter of the
    # caller with a literal default passed on): a literal default of those is overridden.
    given_tracers: frozenset[str] = frozenset()
    # Library mode: `function` is a glob pattern over the dotted names of the module's
    # top-level functions and methods (`mylib.ops.*`), the module being `module`; each one
    # matched is traced in every parameter.
    module: str | None = None
    # `function` makes optimizers whose `update` the other module runs in this trace
    # (`tx = make_optimizer(lr)`, then `tx.update(grads, state)` under `jax.jit`): the update
    # functions and schedules it gives optax run there. `function` itself is not traced.
    runs_updates: bool = False
    # Parameters every call of `function` in the other module gives an instance of one class
    # (`run(cell, xs)` after `cell = Cell(...)`): (parameter, the class's file, its name).
    param_classes: frozenset[tuple[str, str, str]] = frozenset()
    # Not a trace: only the classes calls outside any trace pass (`param_classes`), which
    # tell what the function's own transformations run (`lax.scan(cell.step, ...)`).
    untraced: bool = False
    # Values of other modules (`settings.SCALE`, qualified) that the other module changes
    # after calling `function` outside any trace: a jitted function that read one while it
    # was traced keeps the old value.
    globals_changed: frozenset[str] = frozenset()
    # A differentiation runs it there; inside an abstract trace (see `TraceInfo`).
    differentiated: bool = False
    differentiated_abstractly: bool = False
    # Every transformation that traces it there directly (see `TraceInfo`).
    transforms: frozenset[str] = frozenset()


def passed_in(incoming: tuple[IncomingTrace, ...]) -> bool:
    """Do these traces pass objects of the project's classes in (`param_classes`)?"""
    return any(seed.param_classes for seed in incoming)


class ForeignDefinitions:
    """The definitions a module's imports name in other workspace modules. The model asks for
    what it cannot resolve in its own code: `function(local)` for a name bound by an import
    (`from utils import clip`), `member(local, attribute)` for `module.f`, `Cls.method`, and
    `method(local, attribute)` for a method of an instance of an imported class (`attribute`
    "" for the object called: `__call__`). This one knows none."""

    @property
    def key(self) -> Hashable:
        """What tells two of them apart: the imports and the versions of the modules they
        name (a memo keyed by it holds no module)."""
        return None

    def function(self, local: str) -> ForeignFunction | None:
        return None

    def member(self, local: str, attribute: str) -> ForeignFunction | None:
        return None

    def method(self, local: str, attribute: str) -> ForeignFunction | None:
        return None

    def is_class(self, local: str) -> bool:
        return False

    def class_names(self) -> frozenset[str]:
        """The local names bound to imported classes."""
        return frozenset()

    def is_property(self, local: str, attribute: str) -> bool:
        """`attribute` of the imported class is a property: reading it runs its getter."""
        return False

    def linen_class(self, local: str) -> bool:
        """An imported flax linen module class: `apply`/`init` run its `__call__`."""
        return False

    def pytree_class(self, local: str) -> bool:
        """An imported PyTree class (an `eqx.Module`, a flax struct, ...): a filtered
        transformation traces the array leaves of its instances."""
        return False

    def imported_names(self) -> frozenset[str]:
        """The local names the module's imports bind to other workspace modules or to
        their definitions."""
        return frozenset()

    def class_origin(self, local: str) -> tuple[str, str] | None:
        """The file and the name of the imported class `local` names."""
        return None

    def class_at(self, file: str, name: str) -> str | None:
        """A local name standing for the class `name` of the module at `file`, which the
        module need not import (an object of it passed in by a caller): the other methods
        answer for it as for an imported name."""
        return None

    def haiku_transformed(self, local: str, called: bool) -> tuple[ForeignFunction, int] | None:
        """The function the `init` and `apply` of a haiku transformed object run, and the
        arguments `apply` takes before its own: of the object the imported name stands for,
        or (`called`) of the one a call of the imported function returns."""
        return None

    def returned_booleans(self, function: ForeignFunction) -> frozenset[int]:
        """The places of what `function` (a top-level function) returns that hold a boolean
        array, as its module's model reads them (`boolean_args.returned_booleans`)."""
        return frozenset()

    def returned_boolean_keys(self, function: ForeignFunction) -> frozenset[str]:
        """The keys under which every dict `function` (a top-level function) returns holds
        a boolean array (`boolean_entries.returned_boolean_keys`)."""
        return frozenset()


NO_FOREIGN = ForeignDefinitions()

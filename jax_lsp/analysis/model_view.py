"""What a fact module of the model reads of the model: `ModelView`, and `ModelFact`, the base
of the fact objects `ModuleModel` composes (`analysis/model.py`). Below every fact module, so
that none of them imports the model's module."""

from __future__ import annotations

import ast
import copy
import weakref
from collections.abc import Mapping
from typing import Any, Protocol, Self

from jax_lsp.analysis.crossing import ForeignDefinitions, IncomingTrace
from jax_lsp.analysis.document import Document, UnitSource
from jax_lsp.analysis.external import ExternalFacts
from jax_lsp.analysis.imports import Resolver
from jax_lsp.analysis.summary import ClassRecord, FunctionNode, FunctionRecord, UnitSummary
from jax_lsp.analysis.unit_memo import Keyed
from jax_lsp.analysis.x64 import X64Facts


class ModelView(Protocol):
    """The module's model as its fact objects see it: the document, the resolver and the
    summaries the model holds, and the other fact objects, by the names the model gives
    them (typed loosely here: their modules are above this one)."""

    document: Document
    x64_setting: bool
    external: Mapping[str, ExternalFacts] | None
    incoming: tuple[IncomingTrace, ...]
    resolver: Resolver
    aliases: Keyed[Resolver]
    imported: Keyed[Mapping[str, ExternalFacts]]
    alias_key: int
    import_bindings: dict[str, str]
    summaries: list[UnitSummary]
    unit_names: list[Any]  # each unit's `module_globals.UnitNames`
    functions: dict[str, FunctionRecord]
    records: dict[FunctionNode, FunctionRecord]
    classes: dict[str, ClassRecord]
    import_line: int
    classes_passed_to_calls: frozenset[str]
    _source_of: dict[ast.AST, UnitSource]
    _foreign: ForeignDefinitions
    _generation: object
    _class_facts_key: int
    # The fact objects (`ModuleModel` composes them).
    module_globals: Any
    references: Any
    objects: Any
    tracing: Any
    steps: Any
    foreign: Any
    scopes: Any
    key_facts: Any
    staging: Any
    unit_keys: Any

    @property
    def module_function_names(self) -> frozenset[str]: ...

    @property
    def may_make_explicit_meshes(self) -> bool: ...

    @property
    def x64(self) -> X64Facts: ...

    def state_holders(self) -> list[object]: ...

    def function_node(self, path: str) -> FunctionNode | None: ...

    def enclosing_chain(self, node: ast.AST) -> list[FunctionNode]: ...

    def _summary(self, source: UnitSource) -> UnitSummary: ...


class ModelFact:
    """One part of a module's model: its state and memos, and what it computes from the
    model's other parts. The model is held weakly: it holds this object, and a strong
    reference back would make every model garbage only the cycle collector frees (`check`
    runs with it off), and keep `Lineage.last_model` alive."""

    def __init__(self, model: ModelView) -> None:
        self.model: ModelView = weakref.proxy(model)

    def for_copy(self, model: ModelView) -> Self:
        """This fact, its memos as they are now, for a copy of its model (`ModuleModel.of`)."""
        fact = copy.copy(self)
        fact.model = weakref.proxy(model)
        return fact

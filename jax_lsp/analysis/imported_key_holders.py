"""Objects of an imported class whose methods draw from a key the class stores once
(`explore = GaussianExploration(2)`, then `explore.perturb(a)` twice or in a loop), at module
level or in a function: as the defining module's model found it
(`ExternalFacts.stored_key_draws`), unless this module subclasses the class or assigns the
attribute."""

from __future__ import annotations

import ast
from collections.abc import Callable, Mapping

from jax_lsp.analysis.attributes import ANY_ATTRIBUTE
from jax_lsp.analysis.keys import object_key
from jax_lsp.analysis.local_key_helpers import bound_once
from jax_lsp.analysis.model_view import ModelView
from jax_lsp.analysis.nodes import dotted_name


def imported_object_key_draws(model: ModelView) -> dict[str, tuple[str, str]]:
    """`KeyFacts.object_key_draws` of the module-level names bound once to an instance of an
    imported class: "explore.perturb" -> ("GaussianExploration.perturb", "rng")."""
    return _object_draws(model, model.module_globals.stable_globals)


def held_imported_role(
    function: ast.FunctionDef | ast.AsyncFunctionDef,
    classify: Callable[[ast.Call], object],
    model: ModelView,
) -> Callable[[ast.Call], object] | None:
    """`classify` of the calls in `function`, with the draws of the objects of imported
    classes its own names hold (bound once: `explore = GaussianExploration(2)`) known: None
    when it holds none."""
    external = model.external
    if not external or not any(facts.stored_key_draws for facts in external.values()):
        return None  # no imported class's object draws (its names bound once not looked for)
    draws = _object_draws(model, bound_once(function))
    if not draws:
        return None
    return lambda call: object_key(call, draws) or classify(call)


def _object_draws(model: ModelView, values: Mapping[str, ast.AST]) -> dict[str, tuple[str, str]]:
    external = model.external
    if not external:
        return {}
    found: dict[str, tuple[str, str]] = {}
    for name, value in values.items():
        if not isinstance(value, ast.Call):
            continue
        spelling = dotted_name(value.func)
        facts = external.get(spelling) if spelling else None
        if facts is None or not facts.stored_key_draws:
            continue
        class_name = spelling.rpartition(".")[2]
        if class_name in model.objects.subclassed:
            continue  # a class here may derive from it and assign the key
        attributes = frozenset(attribute for _, attribute in facts.stored_key_draws)
        outside = model.objects.assigned_outside(attributes)
        for method, attribute in facts.stored_key_draws:
            if ANY_ATTRIBUTE in outside or attribute in outside:
                continue
            call_spelling = name if method == "__call__" else f"{name}.{method}"
            found[call_spelling] = (f"{class_name}.{method}", attribute)
    return found

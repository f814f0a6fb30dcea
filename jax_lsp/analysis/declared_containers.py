"""What a parameter's annotation declares it holds when that is a Python container: `dict[str,
Array]`, `Optional[tuple[...]]`, `cache: config.Cache | None` of an alias another module
makes (`Cache = dict[str, LayerCache]`). A traced parameter so annotated is a pytree node
whose leaves are tracers: its truth, keys and items are Python's."""

from __future__ import annotations

import ast
from collections.abc import Mapping

from jax_lsp.analysis.external import ExternalFacts
from jax_lsp.analysis.flow import annotation_container
from jax_lsp.analysis.imports import Resolver
from jax_lsp.analysis.nodes import dotted_name


def without_none(annotation: ast.expr, resolver: Resolver) -> ast.expr:
    """`T` of `T | None` and `Optional[T]`; else the annotation."""
    if isinstance(annotation, ast.BinOp) and isinstance(annotation.op, ast.BitOr):
        sides = [annotation.left, annotation.right]
        others = [s for s in sides if not (isinstance(s, ast.Constant) and s.value is None)]
        return others[0] if len(others) == 1 else annotation
    if (
        isinstance(annotation, ast.Subscript)
        and resolver.qualname(annotation.value) == "typing.Optional"
    ):
        return annotation.slice
    return annotation


def declared_container(
    annotation: ast.expr | None, resolver: Resolver, imported: Mapping[str, ExternalFacts]
) -> str | None:
    """ "dict", "list" or "tuple" when the annotation (None aside) is such a container type,
    or an alias of one that another module binds."""
    if annotation is None:
        return None
    inner = without_none(annotation, resolver)
    form = annotation_container(inner, resolver)
    if form is not None:
        return form
    spelling = dotted_name(inner)
    facts = imported.get(spelling) if spelling else None
    return facts.container_form if facts is not None else None

"""Children of a PyTree class moved to its aux data (JAX403): the flatten function returns them
in the aux data and the unflatten function puts them back where they stood among the children,
or `register_dataclass` lists them in `meta_fields` instead of `data_fields`."""

from __future__ import annotations

import ast
from collections.abc import Sequence

from jax_lsp.analysis.nodes import contains, walk_nodes
from jax_lsp.analysis.pytree_children import StaticChild, returned_children
from jax_lsp.codeactions.site import FixSite, node_edit
from jax_lsp.findings import Applicability, Edit, Fix, Span


def aux_data_fix(site: FixSite, moved: Sequence[StaticChild]) -> Fix | None:
    """The fix moving every child in `moved` (one registration's) to the aux data, when the
    registration's code is in the unit the site stands in and has a form the fix knows."""
    if not moved:
        return None
    first = moved[0]
    names = ", ".join(f"`{child.attribute}`" for child in moved)
    if first.form == "data_fields" and first.registration is not None:
        edits = _meta_fields_edits(site, first.registration, {c.attribute for c in moved})
    elif isinstance(first.flatten, ast.FunctionDef) and isinstance(
        first.unflatten, ast.FunctionDef
    ):  # a lambda has no body to take the moved values back out in
        edits = _flatten_edits(site, first.flatten, first.unflatten, moved)
    else:
        return None
    if edits is None:
        return None
    return Fix(f"Move {names} to the aux data", tuple(edits), Applicability.UNSAFE)


def _in_unit(site: FixSite, node: ast.AST) -> bool:
    return bool(site.ancestors) and contains(site.ancestors[0], node)


def _sequence(elements: Sequence[str], like: ast.expr) -> str:
    if isinstance(like, ast.List):
        return f"[{', '.join(elements)}]"
    return f"({elements[0]},)" if len(elements) == 1 else f"({', '.join(elements)})"


def _meta_fields_edits(site: FixSite, call: ast.Call, moved: set[str]) -> list[Edit] | None:
    if not _in_unit(site, call):
        return None
    keywords = {keyword.arg: keyword.value for keyword in call.keywords}
    data = keywords.get("data_fields")
    if not isinstance(data, ast.List | ast.Tuple):
        return None
    kept = [e for e in data.elts if not (isinstance(e, ast.Constant) and e.value in moved)]
    taken = [e for e in data.elts if isinstance(e, ast.Constant) and e.value in moved]
    taken_text = [site.segment(e) for e in taken]
    edits = [node_edit(site, data, _sequence([site.segment(e) for e in kept], data))]
    meta = keywords.get("meta_fields")
    if meta is None:
        end = site.span(data).end
        edits.append(Edit(Span(end, end), f", meta_fields={_sequence(taken_text, data)}"))
    elif isinstance(meta, ast.List | ast.Tuple):
        present = [site.segment(e) for e in meta.elts]
        edits.append(node_edit(site, meta, _sequence([*present, *taken_text], meta)))
    else:
        return None
    return edits


def _free_name(function: ast.FunctionDef, wanted: str) -> str:
    used = {n.id for n in walk_nodes(function) if isinstance(n, ast.Name)}
    used |= {a.arg for a in walk_nodes(function) if isinstance(a, ast.arg)}
    name, count = wanted, 1
    while name in used:
        count += 1
        name = f"{wanted}_{count}"
    return name


def _flatten_edits(
    site: FixSite,
    flatten: ast.FunctionDef,
    unflatten: ast.FunctionDef,
    moved: Sequence[StaticChild],
) -> list[Edit] | None:
    if not (_in_unit(site, flatten) and _in_unit(site, unflatten)):
        return None
    literals = returned_children(flatten)
    if literals is None or len({id(literal) for literal in literals}) != 1:
        return None
    literal = literals[0]
    moved_nodes = {id(child.listed) for child in moved}
    kept = [e for e in literal.elts if id(e) not in moved_nodes]
    taken = [e for e in literal.elts if id(e) in moved_nodes]
    if not kept or not taken:
        return None  # an empty children tuple is fine for JAX, but then nothing is traced
    params = unflatten.args.posonlyargs + unflatten.args.args
    if unflatten.args.vararg or len(params) < 2 or not unflatten.body:
        return None
    aux, children = params[-2].arg, params[-1].arg
    edits = [node_edit(site, literal, _sequence([site.segment(e) for e in kept], literal))]
    taken_text = _sequence([site.segment(e) for e in taken], ast.Tuple())
    for statement in (n for n in walk_nodes(flatten) if isinstance(n, ast.Return)):
        if not (isinstance(statement.value, ast.Tuple) and len(statement.value.elts) == 2):
            return None
        returned_aux = statement.value.elts[1]
        edits.append(node_edit(site, returned_aux, f"({site.segment(returned_aux)}, {taken_text})"))
    # The unflatten function takes the moved values back out of the aux data and rebuilds the
    # children as they were, so the rest of its body is unchanged.
    holder = _free_name(unflatten, "aux_children")
    rebuilt, kept_index, taken_index = [], 0, 0
    for element in literal.elts:
        if id(element) in moved_nodes:
            rebuilt.append(f"{holder}[{taken_index}]")
            taken_index += 1
        else:
            rebuilt.append(f"{children}[{kept_index}]")
            kept_index += 1
    body = unflatten.body
    first = body[1] if _docstring(body[0]) and len(body) > 1 else body[0]
    if first is body[0] and _docstring(first):
        return None
    start = site.span(first).start
    indent = " " * first.col_offset
    lines = (
        f"{aux}, {holder} = {aux}\n{indent}{children} = {_sequence(rebuilt, ast.Tuple())}\n{indent}"
    )
    edits.append(Edit(Span(start, start), lines))
    return edits


def _docstring(statement: ast.stmt) -> bool:
    return (
        isinstance(statement, ast.Expr)
        and isinstance(statement.value, ast.Constant)
        and isinstance(statement.value.value, str)
    )

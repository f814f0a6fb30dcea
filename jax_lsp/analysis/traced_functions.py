"""Which functions JAX traces, and how each parameter arrives, in document coordinates: what the
server's inlay hints and code lenses show (through `jax_lsp.engine.traced_functions`)."""

from __future__ import annotations

import ast
from dataclasses import dataclass

from jax_lsp.analysis.crossing import ForeignStep
from jax_lsp.analysis.document import Unit
from jax_lsp.analysis.model import ModuleModel
from jax_lsp.analysis.pytrees import is_registered_pytree
from jax_lsp.analysis.traced import TraceInfo
from jax_lsp.findings import Position, Span
from jax_lsp.text import byte_col_to_char


@dataclass(frozen=True)
class TracedParam:
    name: str
    kind: str  # "traced" or "static"
    end: Position  # just after the parameter's name


@dataclass(frozen=True)
class TracedFunction:
    name: str
    name_span: Span
    via: str
    params: tuple[TracedParam, ...]
    # Traced by code in another module of the project: why, there (the call into this module
    # first, the transformation last).
    elsewhere: tuple[ForeignStep, ...] = ()

    def summary(self, via: str | None = None) -> str:
        """E.g. `jit · traced: x, y · static: n`; `via`: said instead of `self.via`."""
        parts = [via or self.via]
        for kind in ("traced", "static"):
            names = [p.name for p in self.params if p.kind == kind]
            if names:
                parts.append(f"{kind}: {', '.join(names)}")
        return " · ".join(parts)


def _arguments(node: ast.FunctionDef | ast.AsyncFunctionDef) -> list[ast.arg]:
    args = node.args
    extra = [a for a in (args.vararg, args.kwarg) if a is not None]
    return [*args.posonlyargs, *args.args, *args.kwonlyargs, *extra]


def _position(unit: Unit, lines: list[str], line: int, byte_col: int) -> Position:
    """An `ast` (unit-relative line, UTF-8 byte column) as a document position."""
    absolute = unit.start_line + line - 1
    return Position(absolute, byte_col_to_char(lines[absolute], byte_col))


def _describe(
    node: ast.FunctionDef | ast.AsyncFunctionDef,
    info: TraceInfo,
    unit: Unit,
    lines: list[str],
    self_traced: bool,
) -> TracedFunction:
    def_start = _position(unit, lines, node.lineno, node.col_offset)
    # After the `def` keyword: a function named `f` or `e` is not the letter inside `def`.
    line = lines[def_start.line]
    after_def = line.find("def", def_start.column) + len("def")
    name_column = max(line.find(node.name, after_def), 0)
    params = []
    for arg in _arguments(node):
        if arg.arg == "self" and not self_traced:
            continue
        if arg.arg in info.traced_params:
            kind = "traced"
        elif arg.arg in info.static_params:
            kind = "static"
        else:
            continue
        start = _position(unit, lines, arg.lineno, arg.col_offset)
        params.append(TracedParam(arg.arg, kind, Position(start.line, start.column + len(arg.arg))))
    return TracedFunction(
        node.name,
        Span.of(def_start.line, name_column, def_start.line, name_column + len(node.name)),
        info.via,
        tuple(params),
        info.origin.foreign if info.origin is not None else (),
    )


def _methods_of_pytrees(tree: ast.Module, model: ModuleModel) -> dict[ast.AST, bool]:
    """Each method defined in a class body: whether its class is a registered PyTree (only
    then can `self` be traced; otherwise the transform raises, which JAX401 reports)."""
    found: dict[ast.AST, bool] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            record = model.classes.get(node.name)
            pytree = record is not None and record.node is node
            pytree = pytree and is_registered_pytree(record, model.summaries)
            for statement in node.body:
                found[statement] = pytree
    return found


def traced_functions(model: ModuleModel) -> list[TracedFunction]:
    """The traced functions of the model's document, in order."""
    document = model.document
    found = []
    for unit in document.units:
        if unit.tree is None:
            continue
        methods = _methods_of_pytrees(unit.tree, model)
        found += [
            _describe(node, model.trace[node], unit, document.lines, methods.get(node, True))
            for node in ast.walk(unit.tree)
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node in model.trace
        ]
    return sorted(found, key=lambda f: f.name_span.start)

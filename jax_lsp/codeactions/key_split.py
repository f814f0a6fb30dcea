"""JAX602's fix: a PRNG key used twice split before each use, every use drawing from a
subkey nothing else consumed (`key, subkey = jax.random.split(key)`). Unsafe: the numbers
drawn change."""

from __future__ import annotations

import ast

from jax_lsp.analysis.imports import Resolver
from jax_lsp.analysis.keys import Reuse
from jax_lsp.analysis.names import binds_locally
from jax_lsp.analysis.text import document_span
from jax_lsp.codeactions.site import FixSite, node_edit
from jax_lsp.findings import Applicability, Edit, Fix, Span


def _statement_of(body: list[ast.stmt]) -> dict[ast.AST, ast.stmt]:
    """Each node of the scope -> the innermost statement containing it."""
    owner: dict[ast.AST, ast.stmt] = {}
    stack: list[tuple[ast.AST, ast.stmt | None]] = [(s, None) for s in body]
    while stack:
        node, statement = stack.pop()
        if isinstance(node, ast.stmt):
            statement = node
        elif statement is not None:
            owner[node] = statement
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Lambda):
            continue
        stack.extend((child, statement) for child in ast.iter_child_nodes(node))
    return owner


def _fresh(names: set[str]) -> str:
    candidate, index = "subkey", 1
    while candidate in names:
        index += 1
        candidate = f"subkey{index}"
    names.add(candidate)
    return candidate


# Statements a line cannot be inserted before to run once per use: a `while` test runs on
# every iteration, a decorated def's line is not its first.
_NO_INSERT = (ast.While, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


class SplitFixer:
    """The JAX602 fix: before the first use and before the reuse, split the key (rebinding
    it) and give that use the new subkey, so every use draws from a key nothing else
    consumed: `key, subkey = jax.random.split(key)`."""

    def __init__(
        self,
        ctx: FixSite,
        resolver: Resolver,
        body: list[ast.stmt],
        names: set[str],
        scope: ast.AST,
    ) -> None:
        self.ctx, self.resolver, self.names, self.scope = ctx, resolver, names, scope
        self.statements = _statement_of(body)

    def fix(self, reuse: Reuse) -> Fix | None:
        if not isinstance(reuse.key, ast.Name):
            return None  # `self.key`, `state.key`: the holder may not take a new attribute
        if reuse.in_comprehension:
            return None  # no statement goes inside a comprehension's element
        ctx, key = self.ctx, reuse.key.id
        split = self._split_spelling(reuse.call)
        if split is None or reuse.first_key is None:
            return None
        if not isinstance(self.scope, ast.Module) and not binds_locally(key, self.scope):
            return None  # a closed-over key: rebinding it here would make it local
        names = set(self.names)
        second = self._place(self.statements.get(reuse.call), ctx.lines, 0)
        if second is None:
            return None
        if reuse.across_iterations:
            second_sub = _fresh(names)
            inserts = [(second, f"{key}, {second_sub} = {split}({key})")]
            replacements = [node_edit(ctx, reuse.key, second_sub)]
        else:
            first = self._first_place(reuse)
            if first is None:
                return None
            first_sub, second_sub = _fresh(names), _fresh(names)
            anchored = first[2]
            first_edit = Edit(
                document_span(ctx.model.document.lines, reuse.first_unit, reuse.first_key)
                if anchored
                else ctx.span(reuse.first_key),
                first_sub,
                anchored,
            )
            inserts = [
                (first, f"{key}, {first_sub} = {split}({key})"),
                (second, f"{key}, {second_sub} = {split}({key})"),
            ]
            replacements = [first_edit, node_edit(ctx, reuse.key, second_sub)]
        edits: list[Edit] = []
        if len(inserts) == 2 and inserts[0][0] == inserts[1][0]:
            inserts = [(inserts[0][0], f"{inserts[0][1]}\n{inserts[0][0][1]}{inserts[1][1]}")]
        for (line, indent, anchored), text in inserts:
            edits.append(Edit(Span.of(line, 0, line, 0), f"{indent}{text}\n", anchored))
        return Fix(
            f"Split `{key}` before each use and draw from the new subkeys",
            (*edits, *replacements),
            Applicability.UNSAFE,
        )

    def _split_spelling(self, call: ast.Call) -> str | None:
        func = call.func
        if isinstance(func, ast.Attribute) and self.resolver.qualname(func.value) == "jax.random":
            return f"{self.ctx.segment(func.value)}.split"  # the spelling the code already uses
        return self.resolver.alias_of("jax.random.split")

    def _first_place(self, reuse: Reuse) -> tuple[int, str, bool] | None:
        if reuse.first_unit == self.ctx.unit_start:
            return self._place(self.statements.get(reuse.first), self.ctx.lines, 0)
        # The first use sits in an earlier top-level statement: edit it in the document.
        for unit in self.ctx.model.document.units:
            if unit.start_line == reuse.first_unit and unit.tree is not None:
                statement = _statement_of(unit.tree.body).get(reuse.first)
                lines = self.ctx.model.document.lines
                return self._place(statement, lines, unit.start_line, anchored=True)
        return None

    @staticmethod
    def _place(
        statement: ast.stmt | None, lines: list[str], offset: int, anchored: bool = False
    ) -> tuple[int, str, bool] | None:
        """Where a line goes before `statement`: (line, indentation, document-anchored)."""
        if statement is None or isinstance(statement, _NO_INSERT):
            return None
        line = offset + statement.lineno - 1
        text = lines[line]
        indent = text[: len(text) - len(text.lstrip())]
        if text.lstrip().startswith("elif") or len(indent) != statement.col_offset:
            return None  # an `elif` header, or several statements on the line
        return line, indent, anchored

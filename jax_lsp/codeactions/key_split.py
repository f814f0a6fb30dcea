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
        self.body = body

    def fix(self, reuse: Reuse) -> Fix | None:
        if not isinstance(reuse.key, ast.Name):
            return None  # `self.key`, `state.key`: the holder may not take a new attribute
        if reuse.in_comprehension:
            # No statement goes inside a comprehension's element: its loop splits instead.
            return self._comprehension_fix(reuse, reuse.key.id)
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

    def _comprehension_fix(self, reuse: Reuse, key: str) -> Fix | None:
        """`[draw(key) for i in range(n)]` -> `[draw(subkey) for subkey in split(key, n)]`
        (`for i, subkey in enumerate(split(key, n))` when the element reads `i`): one key per
        element, `key` split once. Only for a draw that is the key's only use in the
        comprehension and its first use (an earlier draw needs a split before it too), in the
        one loop of the comprehension, over `range` of one argument."""
        if reuse.first is not reuse.call or not reuse.across_iterations:
            return None
        comprehension = self._comprehension_of(reuse.call)
        split = self._split_spelling(reuse.call)
        if comprehension is None or split is None or len(comprehension.generators) != 1:
            return None
        if self._in_loop(self.statements[reuse.call]):
            return None  # each iteration would split the same key into the same keys
        loop = comprehension.generators[0]
        target, iterable = loop.target, loop.iter
        if not (
            not loop.is_async
            and isinstance(target, ast.Name)
            and isinstance(iterable, ast.Call)
            and self.resolver.qualname(iterable.func) == "builtins.range"
            and len(iterable.args) == 1
            and not iterable.keywords
            and not isinstance(iterable.args[0], ast.Starred)
        ):
            return None
        reads = [
            node.id
            for node in ast.walk(comprehension)
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)
        ]
        if reads.count(key) != 1 or target.id == key:
            return None  # another use of the key in the comprehension would still repeat
        ctx, subkey = self.ctx, _fresh(set(self.names))
        keys = f"{split}({key}, {ctx.segment(iterable.args[0])})"
        if target.id in reads:
            looped = (f"{target.id}, {subkey}", f"enumerate({keys})")
        else:
            looped = (subkey, keys)
        edits = (
            node_edit(ctx, target, looped[0]),
            node_edit(ctx, iterable, looped[1]),
            node_edit(ctx, reuse.key, subkey),
        )
        return Fix(
            f"Split `{key}` into one key per element and draw from each",
            edits,
            Applicability.UNSAFE,
        )

    def _in_loop(self, statement: ast.stmt) -> bool:
        """Whether `statement` runs in a loop of the scope."""
        return any(
            isinstance(node, ast.For | ast.AsyncFor | ast.While)
            and any(inner is statement for inner in ast.walk(node))
            for top in self.body
            for node in ast.walk(top)
        )

    def _comprehension_of(self, call: ast.Call) -> ast.expr | None:
        """The innermost comprehension whose element (or key, value) holds `call`."""
        statement = self.statements.get(call)
        found = None
        for node in ast.walk(statement) if statement is not None else ():
            if isinstance(node, ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp):
                parts = [node.key, node.value] if isinstance(node, ast.DictComp) else [node.elt]
                if any(call is inner for part in parts for inner in ast.walk(part)):
                    found = node  # walked outside in: the last one found is the innermost
        return found

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

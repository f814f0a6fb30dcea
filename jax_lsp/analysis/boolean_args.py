"""Boolean arrays passed into a trace: the parameters a call that runs a traced function
gives a boolean array (`loss(x, mask)` where `mask = np.zeros(n, bool)`, or `x, y, mask =
load_batch()` of a function returning one), and the places of a function's result that hold
one. Indexing with such a parameter under abstract tracing fails as `x[x > 0]` does."""

from __future__ import annotations

import ast

from jax_lsp.analysis.booleans import is_boolean
from jax_lsp.analysis.crossing import NO_FOREIGN, ForeignFunction
from jax_lsp.analysis.model_view import ModelView
from jax_lsp.analysis.names import binds_locally
from jax_lsp.analysis.nodes import dotted_name, own_returns
from jax_lsp.analysis.summary import FunctionNode

WHOLE = -1  # the place of a function's whole result


class CallerScope:
    """Where a call stands, for `is_boolean`: the calling function's own bindings, the
    parameters a run of it is given boolean arrays (`boolean_params`), and what the functions
    it calls return (those of the module, and imported ones as their modules tell)."""

    def __init__(
        self,
        model: ModelView,
        caller: FunctionNode | None,
        boolean_params: frozenset[str] = frozenset(),
        pending: frozenset[ast.AST] = frozenset(),
    ) -> None:
        self.model = model
        self.functions: list[ast.AST] = [caller] if caller is not None else []
        self._boolean_params = boolean_params
        self._pending = pending  # functions whose results are being read (recursion)

    def qualname(self, node: ast.AST) -> str | None:
        return self.model.resolver.qualname(node)

    def boolean_parameter(self, name: str) -> bool:
        return name in self._boolean_params

    def module_binding(self, name: str) -> ast.expr | None:
        """The value of a name bound once at module level, unless a function enclosing the
        caller binds it."""
        caller = self.functions[-1] if self.functions else None
        record = self.model.records.get(caller) if caller is not None else None
        while record is not None and record.parent is not None:
            if binds_locally(name, record.parent):
                return None
            record = self.model.records.get(record.parent)
        return self.model.module_globals.stable_globals.get(name)

    def returned_boolean(self, call: ast.Call, place: int) -> bool:
        spelling = dotted_name(call.func)
        if spelling is None:
            return False
        places = self._returned_places(call, spelling)
        if place not in places:
            return False
        caller = self.functions[-1] if self.functions else None
        # Not a name the calling function binds itself.
        return caller is None or not binds_locally(spelling.partition(".")[0], caller)

    def _returned_places(self, call: ast.Call, spelling: str) -> frozenset[int]:
        """`returned_booleans` of the module-level function or imported one `spelling`
        names."""
        if "." not in spelling:
            record = self.model.functions.get(spelling)
            if record is not None:
                if record.parent is not None or record.class_name is not None:
                    return frozenset()
                if len(self.model.tracing.definitions.get(spelling, ())) != 1:
                    return frozenset()  # defined twice: which one runs depends on the line
                return returned_booleans(self.model, record.node, self._pending)
        facts = (self.model.external or {}).get(spelling)
        if facts is not None:
            return facts.returned_booleans
        found = foreign_callee(self.model, call)
        return self.model._foreign.returned_booleans(found) if found is not None else frozenset()


def foreign_callee(model: ModelView, call: ast.Call) -> ForeignFunction | None:
    """The function of another module a call names (`loss(...)`, `losses.loss(...)`), where
    the model traces into other modules (`outgoing_traces`) and knows their definitions."""
    foreign = model._foreign
    if foreign is NO_FOREIGN:
        return None
    func = call.func
    if type(func) is ast.Name:
        return foreign.function(func.id)
    if type(func) is ast.Attribute and type(func.value) is ast.Name:
        return foreign.member(func.value.id, func.attr)
    return None


def returned_booleans(
    model: ModelView, node: FunctionNode, pending: frozenset[ast.AST] = frozenset()
) -> frozenset[int]:
    """The places of what `node` returns that every return statement fills with a boolean
    array: `WHOLE` for the value itself, or an index of the tuple each one returns (`return
    x, y, mask`). Its parameters count as unknown."""
    if isinstance(node, ast.Lambda) or node in pending:
        return frozenset()
    memo = model.objects.returned_booleans_memo
    found = memo.get(node)
    if found is None:
        found = memo[node] = _returned_booleans(model, node, pending | {node})
    return found


def _returned_booleans(
    model: ModelView, node: FunctionNode, pending: frozenset[ast.AST]
) -> frozenset[int]:
    returns = own_returns(node)  # type: ignore[arg-type]
    if not returns or any(value is None for value in returns):
        return frozenset()
    scope = CallerScope(model, node, pending=pending)
    if all(type(value) is ast.Tuple for value in returns):
        sizes = {len(value.elts) for value in returns}  # type: ignore[union-attr]
        if len(sizes) != 1 or any(
            type(item) is ast.Starred
            for value in returns
            for item in value.elts  # type: ignore[union-attr]
        ):
            return frozenset()
        return frozenset(
            place
            for place in range(sizes.pop())
            if all(is_boolean(value.elts[place], scope) for value in returns)  # type: ignore[union-attr]
        )
    if all(is_boolean(value, scope) for value in returns):  # type: ignore[arg-type]
        return frozenset((WHOLE,))
    return frozenset()

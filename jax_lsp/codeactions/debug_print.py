"""JAX101's fix: `print(...)` of traced values in traced code rewritten to `jax.debug.print`,
its arguments as one `str.format` template (`print("loss", x)` ->
`jax.debug.print("loss {}", x)`), importing `jax` when the module has no spelling for it.
An f-string's format spec is kept (`f"{l:.4f}"` -> `"{:.4f}"`): `jax.debug.print` applies
`str.format` to the values as arrays, and a 0-d array formats as its scalar (a spec the
original meant for a scalar, or it failed without jit too). A conversion (`!r`, `f"{x=}"`)
would show the callback's array (`Array(1.5, dtype=float32)`), and a spec computed from
expressions may be traced: those keep no fix. Unsafe: the output now comes at run time, on
every call."""

from __future__ import annotations

import ast

from jax_lsp.analysis.nodes import is_text
from jax_lsp.codeactions.import_edits import ensure_import
from jax_lsp.codeactions.site import FixSite, Located, node_edit
from jax_lsp.findings import Applicability, Fix


def _escape(text: str) -> str:
    return text.replace("{", "{{").replace("}", "}}")


def _quote(text: str) -> str:
    """A Python string literal for `text`, double-quoted where possible."""
    literal = repr(text)
    if literal.startswith("'") and '"' not in text:
        literal = '"' + literal[1:-1].replace("\\'", "'") + '"'
    return literal


def _source_of(expr: ast.expr, at: Located) -> str:
    """The expression's own text when positions are trustworthy, else its unparsed form."""
    text = at.segment(expr)
    try:
        if ast.dump(ast.parse(text.strip(), mode="eval").body) == ast.dump(expr):
            return text
    except SyntaxError:
        pass
    return ast.unparse(expr)


def _constant_spec(spec: ast.expr | None) -> str | None:
    """An f-string field's format spec as text ("" for none); None when it holds expressions."""
    if spec is None:
        return ""
    if isinstance(spec, ast.JoinedStr) and all(
        isinstance(part, ast.Constant) and isinstance(part.value, str) for part in spec.values
    ):
        text = "".join(part.value for part in spec.values)
        return None if "{" in text or "}" in text else text
    return None


def _format_arguments(call: ast.Call, at: Located) -> tuple[str, list[str]] | None:
    """`print`'s arguments as a `str.format` string and its operands; None if not expressible."""
    if any(keyword.arg != "flush" for keyword in call.keywords):
        return None  # sep=, end=, file= have no jax.debug.print equivalent
    pieces: list[str] = []
    operands: list[str] = []
    for argument in call.args:
        if isinstance(argument, ast.Starred):
            return None
        if isinstance(argument, ast.Constant) and isinstance(argument.value, str):
            pieces.append(_escape(argument.value))
        elif isinstance(argument, ast.JoinedStr):
            text = ""
            for part in argument.values:
                if isinstance(part, ast.Constant):
                    text += _escape(str(part.value))
                elif part.conversion != -1 or (spec := _constant_spec(part.format_spec)) is None:
                    return None  # f"{x!r}", f"{x:.{digits}f}": keep the user's formatting by hand
                else:
                    text += "{" + (f":{spec}" if spec else "") + "}"
                    operands.append(_source_of(part.value, at))
            pieces.append(text)
        elif is_text(argument):
            return None  # `str(y)`, `"{}".format(y)`: text made at trace time, tracer and all
        else:
            pieces.append("{}")
            operands.append(at.segment(argument))
    return " ".join(pieces), operands


def debug_print_fix(node: ast.Call, ctx: FixSite) -> Fix | None:
    """The `print(...)` call replaced by `jax.debug.print(...)`, when its arguments fit."""
    formatted = _format_arguments(node, ctx)
    if formatted is None:
        return None
    template, operands = formatted
    imported = ensure_import(ctx, "jax")
    if imported is None:
        return None
    jax_name, import_edits = imported
    replacement = f"{jax_name}.debug.print({', '.join([_quote(template), *operands])})"
    return Fix(
        "Replace with `jax.debug.print`",
        (node_edit(ctx, node, replacement), *import_edits),
        Applicability.UNSAFE,
    )

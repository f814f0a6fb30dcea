"""Code actions: per-diagnostic quickfixes and noqa, and the source actions fix-all and
enable-debug-NaNs. Quickfix edits come from the diagnostic's `data`; source actions may be
resolved lazily (`codeAction/resolve`)."""

from __future__ import annotations

from collections.abc import Sequence

from lsprotocol import types

from jax_lsp.lsp.diagnostics import SOURCE, fixes_of, text_edits

QUICKFIX = types.CodeActionKind.QuickFix
FIX_ALL = f"{types.CodeActionKind.SourceFixAll.value}.{SOURCE}"  # source.fixAll.jax-lsp
DEBUG_NANS = f"{types.CodeActionKind.Source.value}.{SOURCE}.enableDebugNans"


def wanted(kind: str, only: Sequence[str] | None) -> bool:
    """Whether an action of `kind` answers a request limited to `only` (kinds are hierarchical)."""
    if not only:
        return True
    return any(kind == prefix or kind.startswith(f"{prefix}.") for prefix in only)


def ours(diagnostics: Sequence[types.Diagnostic]) -> list[types.Diagnostic]:
    return [d for d in diagnostics if d.source == SOURCE and isinstance(d.code, str)]


def quickfixes(diagnostic: types.Diagnostic, make_edit) -> list[types.CodeAction]:
    """One action per fix in the diagnostic's data; the first safe one is preferred."""
    actions = []
    preferred_taken = False
    for fix in fixes_of(diagnostic):
        preferred = bool(fix.get("safe")) and not preferred_taken
        preferred_taken = preferred_taken or preferred
        actions.append(
            types.CodeAction(
                title=f"{SOURCE} ({diagnostic.code}): {fix['title']}",
                kind=QUICKFIX,
                diagnostics=[diagnostic],
                is_preferred=preferred,
                edit=make_edit(text_edits(fix)),
            )
        )
    return actions

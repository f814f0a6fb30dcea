"""Fixes: every edit a finding offers, and their application.

The modules here build edits from analysis facts and `findings` only, never from a rule module
(rules import them to build their fixes). This module runs the codemods that build fixes from
the whole module on demand (libcst): rules name them in `Finding.deferred` by `Codemod`; the
server builds them when a client asks for code actions (or resolves one), `check --fix` when it
fixes a file.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from dataclasses import replace

from jax_lsp.findings import Applicability, Codemod, DeferredFix, Finding, Fix

log = logging.getLogger(__name__)


def _pytree(source: str, line: int, column: int) -> tuple[Fix, ...]:
    from jax_lsp.codeactions.pytree import pytree_fixes

    return pytree_fixes(source, line, column)


def _pytree_unstatic(source: str, line: int, column: int) -> tuple[Fix, ...]:
    from jax_lsp.codeactions.pytree import unstatic_register_fix

    fix = unstatic_register_fix(source, line, column)
    return (fix,) if fix is not None else ()


def _where_mask(source: str, line: int, column: int) -> tuple[Fix, ...]:
    from jax_lsp.codeactions.where_mask import mask_reduction_fixes

    return mask_reduction_fixes(source, line, column)


def _static_jit(source: str, line: int, column: int) -> tuple[Fix, ...]:
    from jax_lsp.codeactions.static_argnames import static_jit_fixes

    return static_jit_fixes(source, line, column)


# Imported lazily: libcst costs start-up time the server should not pay before it is needed.
CODEMODS: dict[Codemod, Callable[[str, int, int], tuple[Fix, ...]]] = {
    Codemod.PYTREE: _pytree,
    Codemod.PYTREE_UNSTATIC: _pytree_unstatic,
    Codemod.WHERE_MASK: _where_mask,
    Codemod.STATIC_JIT: _static_jit,
}


@functools.cache
def _warn_missing(module: str) -> None:
    log.warning("%s is not installed: the fixes that need it are not offered", module)


def build_deferred(deferred: DeferredFix, source: str) -> tuple[Fix, ...]:
    """The fixes a deferred codemod offers on `source` (none if it cannot rewrite safely)."""
    codemod = CODEMODS[deferred.codemod]
    try:
        fixes = codemod(source, deferred.anchor.line, deferred.anchor.column)
        if deferred.unsafe:
            return tuple(replace(fix, applicability=Applicability.UNSAFE) for fix in fixes)
        return fixes
    except ModuleNotFoundError as error:  # e.g. libcst, left out of the VS Code extension's bundle
        _warn_missing(error.name or str(error))
        return ()
    except Exception:  # a codemod bug must never cost the user their diagnostics
        log.exception("codemod %s failed at %s", deferred.codemod, deferred.anchor)
        return ()


def with_deferred_fixes(finding: Finding, source: str) -> Finding:
    """`finding` with its deferred fixes built: the first becomes `fix` if it had none."""
    if not finding.deferred:
        return finding
    built = [fix for deferred in finding.deferred for fix in build_deferred(deferred, source)]
    if not built:
        return finding
    if finding.fix is None:
        return replace(finding, fix=built[0], alternatives=(*finding.alternatives, *built[1:]))
    return replace(finding, alternatives=(*finding.alternatives, *built))

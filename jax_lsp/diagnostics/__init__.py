"""The rule registry: every rule class of every family, by code."""

from __future__ import annotations

from jax_lsp.diagnostics import (
    api_changes,
    control_flow,
    dtypes,
    indexing,
    inplace,
    inputs,
    key_defaults,
    methods,
    performance,
    purity,
    random,
    shapes,
)
from jax_lsp.diagnostics.base import Rule

_FAMILIES = (
    purity,
    inplace,
    indexing,
    methods,
    inputs,
    random,
    key_defaults,
    control_flow,
    shapes,
    dtypes,
    performance,
    api_changes,
)


def _code_key(code: str) -> tuple[int, str]:
    return int(code[3:]), code


ALL_RULES: tuple[type[Rule], ...] = tuple(
    sorted(
        (rule for family in _FAMILIES for rule in family.RULES),
        key=lambda rule: _code_key(rule.code),
    )
)
RULES_BY_CODE: dict[str, type[Rule]] = {rule.code: rule for rule in ALL_RULES}

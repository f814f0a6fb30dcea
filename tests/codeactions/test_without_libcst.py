"""Without libcst (the VS Code extension's bundled server) the codemods are skipped quietly."""

from __future__ import annotations

import logging
import sys

import pytest

from jax_lsp.codeactions import build_deferred
from jax_lsp.findings import DeferredFix, Position
from tests.codeactions.helpers import source

JITTED_METHOD = source(
    """
    import jax


    class Scaler:
        @jax.jit
        def scale(self, y):
            return y
    """
)


def test_codemod_without_libcst_offers_nothing_and_warns_once(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setitem(sys.modules, "libcst", None)  # `import libcst` raises ModuleNotFoundError
    monkeypatch.delitem(sys.modules, "jax_lsp.codeactions.pytree", raising=False)
    deferred = DeferredFix("pytree", Position(4, 4))
    with caplog.at_level(logging.WARNING, logger="jax_lsp.codeactions"):
        assert build_deferred(deferred, JITTED_METHOD) == ()
        assert build_deferred(deferred, JITTED_METHOD) == ()
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert warnings == ["libcst is not installed: the fixes that need it are not offered"]
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]

"""The collection pause of pending publications (jax_lsp/lsp/gc_pause.py)."""

from __future__ import annotations

import gc

import pytest

from jax_lsp.lsp.gc_pause import CollectionPause


@pytest.fixture
def collector_on():
    was_enabled = gc.isenabled()
    gc.enable()
    yield
    if not was_enabled:
        gc.disable()


def test_collection_is_back_when_the_last_holder_is_done(collector_on) -> None:
    pause = CollectionPause()
    with pause.held():
        assert not gc.isenabled()
        with pause.held():
            assert not gc.isenabled()
        assert not gc.isenabled()  # the first publication is still pending
    assert gc.isenabled()


def test_a_holder_that_fails_gives_collection_back(collector_on) -> None:
    pause = CollectionPause()
    with pytest.raises(RuntimeError), pause.held():
        raise RuntimeError("cancelled")
    assert gc.isenabled()


def test_collection_switched_off_by_someone_else_stays_off(collector_on) -> None:
    pause = CollectionPause()
    gc.disable()
    with pause.held():
        pass
    assert not gc.isenabled()

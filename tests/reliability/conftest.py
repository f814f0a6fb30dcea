"""A fresh, initialised server over a raw pipe for each test that asks for `server`."""

from __future__ import annotations

import pytest

from tests.reliability.rawclient import RawServer


@pytest.fixture
def server():
    raw = RawServer()
    raw.initialize()
    yield raw
    raw.close()

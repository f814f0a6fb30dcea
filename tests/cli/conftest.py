"""The e2e harness's `client` fixture (the real server over stdio), for the faces test."""

from tests.e2e.conftest import client  # noqa: F401

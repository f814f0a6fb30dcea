"""What a file's path says about how its code runs."""

from __future__ import annotations

from pathlib import PurePath


def is_test_path(path: str) -> bool:
    """A pytest/unittest file: its functions run once each, often under a conftest we cannot
    see (which may, for instance, enable x64)."""
    name = PurePath(path).name
    return name.startswith(("test_", "conftest")) or name.endswith("_test.py")

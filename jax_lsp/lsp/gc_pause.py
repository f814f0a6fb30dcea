"""Python's automatic garbage collection held off while diagnostics are on their way.

An analysis allocates tens of thousands of objects, so automatic collections start in the
middle of it, and one of them (a young one, now and then an older one over the whole heap of
trees and memos) delays that keystroke's diagnostics by its whole length; it finds little, as
the engine's models hold no reference cycles (see `jax_lsp.parallel`). While a publication is
pending, collection waits; when the last one is out, it is allowed again and runs at the next
allocation: after the diagnostics were sent, while the user reads them, not before. Nothing is
skipped: every cycle is still collected, only later.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


class CollectionPause:
    """`held()`: no automatic collection until every holder is done (if it was on at all)."""

    def __init__(self) -> None:
        self._holders = 0
        self._switched_off = False  # we turned it off (and turn it on again)

    @contextmanager
    def held(self) -> Iterator[None]:
        if self._holders == 0 and gc.isenabled():
            gc.disable()
            self._switched_off = True
        self._holders += 1
        try:
            yield
        finally:
            self._holders -= 1
            if self._holders == 0 and self._switched_off:
                self._switched_off = False
                gc.enable()


# One for the process, as the collector's switch is.
COLLECTION_PAUSE = CollectionPause()

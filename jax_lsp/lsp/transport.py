"""Staying in step with the client over stdio, and not outliving it.

- `ResyncingInput`: pygls reads a header line, then the body. After a frame with a bad header
  (`Content-Length: abc`) or a body shorter than announced, the next header arrives glued to
  the tail of the broken body and pygls would skip every later frame. Cutting a header line at
  its `Content-Length:` puts the reader back in step at the next well-formed frame.
- `watch_parent`: the LSP `processId` is the editor's; when it dies while our stdin is still
  held open by someone else, exit rather than linger as an orphan.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from typing import BinaryIO

_HEADER = b"Content-Length:"
PARENT_POLL_SECONDS = 1.0


class ResyncingInput:
    """A binary stdin whose header lines start at `Content-Length:` when one is in them."""

    def __init__(self, stream: BinaryIO) -> None:
        self._stream = stream

    def readline(self) -> bytes:
        line = self._stream.readline()
        start = line.find(_HEADER)
        return line[start:] if start > 0 else line

    def read(self, size: int) -> bytes:
        return self._stream.read(size)

    def close(self) -> None:
        self._stream.close()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # exists, owned by someone else
        return True
    return True


def watch_parent(pid: int | None, poll: float = PARENT_POLL_SECONDS) -> None:
    """Exit the process (status 1, as LSP asks for an exit without shutdown) once `pid` dies."""
    if not pid or sys.platform == "win32" or pid == os.getpid():
        return  # os.kill(pid, 0) would terminate the process on Windows

    def watch() -> None:
        while _alive(pid):
            time.sleep(poll)
        os._exit(1)

    threading.Thread(target=watch, name="jax-lsp-parent-watch", daemon=True).start()

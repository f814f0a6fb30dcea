"""Staying in step with the client over stdio, and not outliving it.

- `ResyncingInput`: pygls reads a header line, then the body. After a frame with a bad header
  (`Content-Length: abc`) or a body shorter than announced, the next header arrives glued to
  the tail of the broken body and pygls would skip every later frame. Cutting a header line at
  its `Content-Length:` puts the reader back in step at the next well-formed frame.
- `serve_stdio`: pygls reads stdin through its thread pool, a hop to a worker thread and back
  for each header line and each body (three round trips per message). When stdin is a pipe or
  a socket, the event loop reads it itself instead: no thread between a keystroke and its
  handler. pygls's own message loop still cuts the frames.
- `serve_tcp`: pygls's `start_tcp`, quiet at a clean end. pygls ends the process at `exit` by
  raising SystemExit from the handler; over TCP that handler runs in the connection's callback,
  where asyncio logged it as an unhandled exception (a traceback ending in `SystemExit: 0`)
  before it ended the event loop, and `serve`'s own clean-up was skipped.
- `watch_parent`: the LSP `processId` is the editor's; when it dies while our stdin is still
  held open by someone else, exit rather than linger as an orphan.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import stat
import sys
import threading
import time
from typing import TYPE_CHECKING, BinaryIO

from pygls.io_ import StdoutWriter, run_async

if TYPE_CHECKING:
    from pygls.server import JsonRPCServer

log = logging.getLogger(__name__)

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


class PipeInput:
    """`ResyncingInput`'s reading for pygls's asynchronous message loop, from a pipe the event
    loop reads itself."""

    def __init__(self, reader: asyncio.StreamReader) -> None:
        self._reader = reader

    async def readline(self) -> bytes:
        try:
            line = await self._reader.readline()
        except ValueError:  # a line over the reader's limit (noise): dropped, not a header
            return b"?"
        start = line.find(_HEADER)
        return line[start:] if start > 0 else line

    async def readexactly(self, size: int) -> bytes:
        try:
            return await self._reader.readexactly(size)
        except asyncio.IncompleteReadError as error:  # end of input: what came, as read() does
            return error.partial


def _is_pipe(stream: BinaryIO) -> bool:
    """A pipe or socket (never a terminal or file: the loop would make it non-blocking)."""
    try:
        mode = os.fstat(stream.fileno()).st_mode
    except (OSError, ValueError, AttributeError):
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)


def serve_stdio(server: JsonRPCServer, stdin: BinaryIO, stdout: BinaryIO) -> None:
    """pygls's `start_io`, reading stdin on the event loop when it is a pipe."""
    if sys.platform == "win32" or not _is_pipe(stdin):
        server.start_io(stdin=ResyncingInput(stdin), stdout=stdout)
        return
    server._stop_event = threading.Event()  # what pygls's start_io sets up, its loop checks
    server.protocol.set_writer(StdoutWriter(stdout))

    async def serve() -> None:
        loop = asyncio.get_running_loop()
        reader = asyncio.StreamReader(limit=2**24)
        await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), stdin)
        await run_async(
            stop_event=server._stop_event,
            reader=PipeInput(reader),
            protocol=server.protocol,
            logger=log,
            error_handler=server.report_server_error,
        )

    try:
        asyncio.run(serve())
    except BrokenPipeError:
        log.error("Connection to the client is lost! Shutting down the server.")
    except (KeyboardInterrupt, SystemExit):
        pass
    finally:
        server.shutdown()


def serve_tcp(server: JsonRPCServer, host: str, port: int) -> None:
    """pygls's `start_tcp` (one client, then the server ends), its frames read as stdin's are
    (`PipeInput`); `exit` ends the connection without a traceback (the exit status is
    `serve`'s), a client gone without one is logged in a line, as `serve_stdio` logs a broken
    pipe. Any other error still reaches asyncio's handler, which logs it whole."""
    log.info("Starting TCP server on %s:%s", host, port)
    server._stop_event = stop_event = threading.Event()

    async def connection(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        server.protocol.set_writer(writer)  # type: ignore[arg-type]  # as pygls's start_tcp
        try:
            await run_async(
                stop_event=stop_event,
                reader=PipeInput(reader),
                protocol=server.protocol,
                logger=log,
                error_handler=server.report_server_error,
            )
        except SystemExit:  # `exit`, raised by pygls's handler to end the process
            pass
        except ConnectionError as error:  # reset by the client, or written to once it left
            log.error("Connection to the client is lost (%s): shutting down the server.", error)
        finally:
            server.shutdown()  # closes the listening socket: `serve_forever` ends

    async def listen() -> None:
        server._server = await asyncio.start_server(connection, host, port)
        async with server._server:
            await server._server.serve_forever()

    with contextlib.suppress(asyncio.CancelledError):  # the listening socket closed
        asyncio.run(listen())


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

"""Loaded first by every Python process of the security tests (PYTHONPATH): an audit hook that
records network use, process launches, imports of workspace modules and files opened for writing,
one event a line, in the file JAX_LSP_AUDIT_LOG names. The network is also refused outright."""

import os
import sys

_LOG_PATH = os.environ.get("JAX_LSP_AUDIT_LOG")
_WATCHED_MODULES = frozenset(filter(None, os.environ.get("JAX_LSP_AUDIT_MODULES", "").split(",")))
_NETWORK = frozenset(
    ("socket.connect", "socket.bind", "socket.getaddrinfo", "socket.sendto", "socket.sendmsg")
)
_PROCESSES = frozenset(("subprocess.Popen", "os.system", "os.exec", "os.posix_spawn", "os.spawn"))
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_APPEND | os.O_CREAT


class NetworkRefused(OSError):
    pass


def _writes(mode, flags) -> bool:
    if isinstance(mode, str):
        return any(char in mode for char in "wax+")
    return isinstance(flags, int) and bool(flags & _WRITE_FLAGS)


def _install(log) -> None:
    def hook(event, args):
        if event in _NETWORK:
            log.write(f"{event} {args!r}\n")
            raise NetworkRefused(f"network access refused in tests: {event}")
        if event in _PROCESSES:
            log.write(f"{event} {args[:2]!r}\n")
        elif event == "import" and args[0].split(".")[0] in _WATCHED_MODULES:
            log.write(f"import {args[0]}\n")
        elif event == "open" and len(args) >= 3 and _writes(args[1], args[2]):
            path = args[0]
            if isinstance(path, (str, bytes)) and not str(path).startswith("/dev/"):
                log.write(f"write {os.fsdecode(path)}\n")

    sys.addaudithook(hook)


if _LOG_PATH:
    _install(open(_LOG_PATH, "a", buffering=1, encoding="utf-8"))  # noqa: SIM115 (kept open)

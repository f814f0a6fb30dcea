"""Keeping the user's folder off `sys.path`: jax-lsp never imports the code it analyzes.

`python -m jax_lsp` and `python -c` put the working directory first on `sys.path`, and an editor
starts the server in the user's project: a `typing.py`, `random.py` or `json.py` there would be
imported in place of the standard library's (and run). Python 3.11 leaves it out with `-P` or
PYTHONSAFEPATH; for 3.10 the entry point removes it before importing anything else, and the
Python processes the server starts are told to do the same before their first import.
"""

# No `from __future__ import`: it imports the `__future__` module, and this module runs while
# the working directory may still be on the path.
import os
import sys

# `python -c` runs this before anything is imported: the first entry is the working directory
# ('') unless -P / PYTHONSAFEPATH (3.11+) left it out, in which case there is nothing to remove.
_BOOTSTRAP = (
    "import sys\n"
    "if not getattr(sys.flags, 'safe_path', False): del sys.path[0]\n"
    "import runpy\n"
    "runpy.run_module({module!r}, run_name='__main__', alter_sys=True)\n"
)


def drop_working_directory() -> None:
    """Take off `sys.path` the working directory that `python -m` put first, and keep it off
    the path of the Python processes started from here (PYTHONSAFEPATH, read by 3.11+)."""
    os.environ["PYTHONSAFEPATH"] = "1"
    if getattr(sys.flags, "safe_path", False) or not sys.path:  # no such flag before 3.11
        return
    first = sys.path[0]
    if first == "" or os.path.abspath(first) == os.getcwd():
        del sys.path[0]


def module_command(module: str) -> list[str]:
    """`python -m module` that imports nothing from the working directory, on any Python."""
    if sys.version_info >= (3, 11):
        return [sys.executable, "-P", "-m", module]
    return [sys.executable, "-c", _BOOTSTRAP.format(module=module)]

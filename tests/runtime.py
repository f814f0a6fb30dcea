"""Running example snippets under real JAX, in this process (JAX is imported once)."""

from __future__ import annotations

import contextlib
import importlib
import io
import sys
import types
import warnings
from dataclasses import dataclass


@dataclass
class Outcome:
    error: BaseException | None
    stdout: str
    namespace: dict


def run_snippet(source: str, check: str | None = None) -> Outcome:
    """Exec `source` (then `check`, with `_stdout` holding what was printed) in a fresh module."""
    module = types.ModuleType("__example__")  # registered: dataclasses look their module up
    namespace: dict = module.__dict__
    buffer = io.StringIO()
    error: BaseException | None = None
    previous = sys.modules.get(module.__name__)
    sys.modules[module.__name__] = module
    with contextlib.redirect_stdout(buffer), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            exec(compile(source, "<example>", "exec"), namespace)
            if check:
                namespace["_stdout"] = buffer.getvalue()
                exec(compile(check, "<check>", "exec"), namespace)
        except Exception as caught:
            error = caught
        finally:
            if previous is None:
                del sys.modules[module.__name__]
            else:
                sys.modules[module.__name__] = previous
    return Outcome(error, buffer.getvalue(), namespace)


def exception_class(name: str) -> type[BaseException]:
    module, _, attribute = name.rpartition(".")
    return getattr(importlib.import_module(module or "builtins"), attribute)

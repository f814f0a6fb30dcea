"""jedi, for the imported functions our engine cannot answer (a return built by yet another
module's helper, say): does calling it return a `jax.Array`? It runs in the jedi worker and
speaks plain data (spellings and positions): the server turns its answers into the engine's
facts (`lsp/crossmodule.py`).

Safe by construction: `jedi.Script` with a `jedi.Project` (never `jedi.Interpreter`) parses
sources with parso and infers statically. jedi's default environment starts one subprocess
of the same Python (or of $VIRTUAL_ENV / $CONDA_PREFIX's) to read its `sys.path`, locate modules
with importlib's path finders (which read the file system, not module code) and introspect
compiled modules; with `load_unsafe_extensions=False` (jedi's default, kept here) compiled
extensions are loaded only from the environment's own `sys.path`, never from the project's
folders. Project `.py` files are read, never imported. Slow (seconds cold, tens of ms warm):
the server runs it in a worker process of its own (`jax_lsp.lsp.jedi_worker`, so its pure-Python
inference never holds the server's GIL) and waits for it within a time budget.

jedi would also pickle every parsed file into its disk cache (~/.cache/jedi); the server keeps
its parses in memory only, so it writes nothing outside the files a user's fix applies to.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Mapping
from pathlib import Path

log = logging.getLogger(__name__)

JAX_ARRAY = "jax._src.basearray.Array"
_WARM_UP = "import jax.numpy as jnp\nx = jnp.zeros(3)\nx\n"


def _keep_parses_in_memory() -> None:
    """Keep parso (under jedi) off the disk cache: no pickles written, none read (reading
    creates the cache folder); its memory cache stays."""
    import parso.cache

    for disk_access in ("_save_to_file_system", "_remove_cache_and_update_lock"):
        if hasattr(parso.cache, disk_access):
            setattr(parso.cache, disk_access, lambda *args, **kwargs: None)
    if hasattr(parso.cache, "_load_from_file_system"):
        parso.cache._load_from_file_system = lambda *args, **kwargs: None


class JediOracle:
    """One jedi project per workspace root. Use from one thread at a time."""

    def __init__(self, root: str | None) -> None:
        self.root = root
        self._project = None
        self._lock = threading.Lock()

    def _jedi_project(self):
        import jedi  # imported lazily: 150-250 ms

        _keep_parses_in_memory()

        if self._project is None:
            path = Path(self.root) if self.root else Path.cwd()
            self._project = jedi.Project(path=path, smart_sys_path=True)
        return self._project

    def warm(self) -> None:
        """Load jedi and the jax stubs it infers with (seconds when cold)."""
        import jedi

        with self._lock:
            try:
                jedi.Script(_WARM_UP, project=self._jedi_project()).infer(3, 0)
            except Exception:  # a jedi bug costs the extra facts only
                log.exception("warming jedi failed")

    def returns_array(
        self, text: str, path: str | None, sites: Mapping[str, tuple[int, int]]
    ) -> set[str]:
        """The spellings called at `sites` (0-based line, column of the name's last part) whose
        call jedi infers to return a jax.Array."""
        import jedi

        arrays: set[str] = set()
        with self._lock:
            try:
                script = jedi.Script(text, path=path, project=self._jedi_project())
                for spelling, (line, column) in sites.items():
                    if self._infers_array(script, line, column):
                        arrays.add(spelling)
            except Exception:
                log.exception("jedi inference failed on %s", path)
        return arrays

    def _infers_array(self, script, line: int, column: int) -> bool:
        definitions = script.goto(line + 1, column, follow_imports=True)
        functions = [d for d in definitions if d.type == "function"]
        if not functions or not all(self._in_workspace(d.module_path) for d in functions):
            return False
        results = [r for d in functions for r in d.execute()]
        return bool(results) and all(r.full_name == JAX_ARRAY for r in results)

    def _in_workspace(self, module_path) -> bool:
        if module_path is None or not self.root:
            return module_path is not None
        return Path(self.root).resolve() in Path(module_path).resolve().parents

"""Which settings apply to a document in the editor.

Precedence, highest first:
1. editor settings: the `jax-lsp` section of `workspace/configuration` (re-read on
   `workspace/didChangeConfiguration`), else the settings sent with `didChangeConfiguration`,
   else `initializationOptions` (also when the client answers `workspace/configuration`
   with null: it has no `jax-lsp` section, as a client configured by its initialization
   options alone answers). Keys: `select`, `ignore`, `severity`, `fixAll`, `unsafeFixes`
   (plus the other `config.py` keys, camelCase or kebab-case); a key the editor sets replaces
   the project's value, it does not extend it; a key whose value does not parse is reported
   (window/logMessage) and left out, the others still apply; `severity` levels may use LSP's
   name `information` for `info`;
2. `[tool.jax-lsp]` in the nearest pyproject.toml above the document (reloaded when the client
   reports a pyproject.toml change through `workspace/didChangeWatchedFiles`); a file that
   cannot be used (it does not parse, a key names no setting, a value does not parse) is
   reported (window/logMessage) and the defaults apply to the documents under it;
3. the defaults (`config.Settings()`: the rules on by default, fix-all on, unsafe fixes off).

Two settings are the editor's alone: `codeLens` (on by default: `jit · traced: x · static: n`
above each traced function) and `inlayHints` (off by default: `traced`/`static` after each
parameter says the same again, parameter by parameter).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from jax_lsp.config import ConfigError, Settings, load_settings

SECTION = "jax-lsp"
# Editor-only switches: (camelCase key, kebab-case key, default).
_CODE_LENS = ("codeLens", "code-lens", True)
_INLAY_HINTS = ("inlayHints", "inlay-hints", False)
# LSP's name for a level (what an editor's settings schema may offer) -> jax-lsp's.
_LSP_LEVELS = {"information": "info"}


def editor_section(raw: Any) -> dict[str, Any]:
    """The jax-lsp settings inside what an editor sent: `{"jax-lsp": {...}}`,
    `{"settings": {...}}` or the bare mapping."""
    if not isinstance(raw, Mapping):
        return {}
    for key in (SECTION, "settings"):
        inner = raw.get(key)
        if isinstance(inner, Mapping):
            return editor_section(inner) if key == "settings" else dict(inner)
    return dict(raw)


def _with_jax_lsp_levels(section: dict[str, Any]) -> dict[str, Any]:
    """`severity` levels named as LSP names them (`information`) read as jax-lsp's (`info`)."""
    severity = section.get("severity")
    if not isinstance(severity, Mapping):
        return section
    levels = {code: _LSP_LEVELS.get(str(level).lower(), level) for code, level in severity.items()}
    return {**section, "severity": levels}


class SettingsStore:
    def __init__(self, root: str | None = None) -> None:
        self.root = root
        self.editor: dict[str, Any] = {}  # the editor's settings in force
        self._initial: dict[str, Any] = {}  # those of `initializationOptions`
        self.generation = 0  # bumped on every change: analyses under older settings are stale
        self._projects: dict[str, Settings] = {}
        # path -> ((root, generation) it was made under, its settings): one object while
        # nothing changes, so what it memoises (the rules chosen, the severities) stands.
        self._for_path: dict[str | None, tuple[tuple[str | None, int], Settings]] = {}
        self.errors: list[str] = []  # problems not yet reported to the client

    def set_initial(self, raw: Any) -> None:
        """The settings of `initializationOptions`: in force until the editor sends others."""
        self._initial = self._valid(_with_jax_lsp_levels(editor_section(raw)))
        self._apply(self._initial)

    def set_editor(self, raw: Any) -> None:
        """The settings of `workspace/configuration` or `didChangeConfiguration`; None: the
        client has no `jax-lsp` section, and the initialization options stay in force."""
        if raw is None:
            self._apply(self._initial)
        else:
            self._apply(self._valid(_with_jax_lsp_levels(editor_section(raw))))

    def _apply(self, section: dict[str, Any]) -> None:
        if section != self.editor:
            self.editor = section
            self.generation += 1

    def _valid(self, section: dict[str, Any]) -> dict[str, Any]:
        """The keys that parse; each one that does not is reported and left out, so that one
        bad value does not take the editor's other settings with it."""
        valid: dict[str, Any] = {}
        for key, value in section.items():
            try:
                Settings().merged({key: value})
            except ConfigError as error:
                self.errors.append(f"jax-lsp: editor settings ignored: {error}")
                continue
            valid[key] = value
        return valid

    def _switch(self, keys: tuple[str, str, bool]) -> bool:
        for key in keys[:2]:
            value = self.editor.get(key)
            if isinstance(value, bool):
                return value
        return keys[2]

    @property
    def code_lens(self) -> bool:
        return self._switch(_CODE_LENS)

    @property
    def inlay_hints(self) -> bool:
        return self._switch(_INLAY_HINTS)

    def reload_projects(self) -> None:
        self._projects.clear()
        self.generation += 1

    def _project(self, path: str | None) -> Settings:
        folder = str(Path(path).parent) if path else (self.root or "")
        if not folder:
            return Settings()
        cached = self._projects.get(folder)
        if cached is None:
            try:
                cached = load_settings(Path(folder))
            except ConfigError as error:
                self.errors.append(f"jax-lsp: settings file ignored, using the defaults: {error}")
                cached = Settings()
            self._projects[folder] = cached
        return cached

    def for_path(self, path: str | None) -> Settings:
        """The settings of the file at `path` (asked on every keystroke)."""
        made_under = (self.root, self.generation)
        cached = self._for_path.get(path)
        if cached is not None and cached[0] == made_under:
            return cached[1]
        settings = self._merged_for(path)
        self._for_path[path] = (made_under, settings)
        return settings

    def _merged_for(self, path: str | None) -> Settings:
        project = self._project(path)
        try:
            return project.merged(self.editor)
        except ConfigError:  # checked in set_editor; kept for safety
            return project

    def take_errors(self) -> list[str]:
        errors, self.errors = self.errors, []
        return errors

"""Publishing: diagnostics pushed to the client, and the refresh requests that make a pulling
client (and its code lenses and inlay hints) ask again. The first publication starts jedi
(`first_out`): by then the first diagnostics no longer compete with its start-up."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from lsprotocol import types

from jax_lsp.lsp.client import ClientFeatures
from jax_lsp.lsp.conversion import diagnostic_json


class Publisher:
    """`server`: what sends the messages (pygls's `LanguageServer`)."""

    def __init__(self, server: Any, client: ClientFeatures, first_out: Callable[[], None]) -> None:
        self._server = server
        self._client = client
        self._first_out = first_out

    def publish(
        self, uri: str, diagnostics: list[types.Diagnostic], version: int | None = None
    ) -> None:
        params: dict[str, Any] = {
            "uri": uri,
            "diagnostics": [diagnostic_json(diagnostic) for diagnostic in diagnostics],
        }
        if version is not None:
            params["version"] = version
        # As JSON already: pygls would pass the diagnostics through lsprotocol's converter.
        self._server.notify_json(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS, params)
        self._first_out()  # once: the first diagnostics are out

    def refresh_pulled(self) -> None:
        """A pulling client asked to pull every document's diagnostics again."""
        if self._client.pull and self._client.supports(
            "workspace", "diagnostics", "refresh_support"
        ):
            self._server.workspace_diagnostic_refresh(None)

    def refresh_views(self) -> None:
        """The client asked to get its code lenses and inlay hints again (settings changed)."""
        if self._client.supports("workspace", "code_lens", "refresh_support"):
            self._server.workspace_code_lens_refresh(None)
        if self._client.supports("workspace", "inlay_hint", "refresh_support"):
            self._server.workspace_inlay_hint_refresh(None)

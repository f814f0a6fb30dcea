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
        # What was last published for each document: the same diagnostics of the same
        # version are not sent again (see `publish`).
        self._last: dict[str, dict[str, Any]] = {}

    def publish(
        self, uri: str, diagnostics: list[types.Diagnostic], version: int | None = None
    ) -> None:
        """Push `diagnostics` of `uri` at `version`, unless they are what the client holds.

        A notebook's cells are analysed together, and a late jedi answer analyses a document
        again at the same version: each time every cell got its diagnostics again. A client
        takes any publication as a change of the cell's markers, and VS Code then asks for the
        cell's code actions anew, cancelling a Source Action request of the user's still
        pending 500 ms later (on a loaded machine, the list never showed)."""
        params: dict[str, Any] = {
            "uri": uri,
            "diagnostics": [diagnostic_json(diagnostic) for diagnostic in diagnostics],
        }
        if version is not None:
            params["version"] = version
        if self._last.get(uri) == params:
            return
        self._last[uri] = params
        # As JSON already: pygls would pass the diagnostics through lsprotocol's converter.
        self._server.notify_json(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS, params)
        self._first_out()  # once: the first diagnostics are out

    def forget(self, uri: str) -> None:
        """The document was closed: what it is sent next is sent whatever it holds."""
        self._last.pop(uri, None)

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

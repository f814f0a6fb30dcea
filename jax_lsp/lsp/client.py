"""What the client supports, read from the capabilities it sent with `initialize`: the position
encoding, whether it pulls diagnostics (then nothing is pushed to its text documents), whether
it pulls notebook cells too, and the optional protocol features the handlers ask about."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from jax_lsp.lsp.documents import OpenDocument
from jax_lsp.lsp.positions import UTF16

log = logging.getLogger(__name__)

# Clients that declare `publishDiagnostics.relatedInformation` but show it nowhere: Neovim
# (0.11's capabilities say true; neither `vim.diagnostic`'s float nor its signs read it).
_HIDE_RELATED = frozenset({"Neovim"})


def _has(capabilities: Any, *path: str) -> Any:
    for name in path:
        capabilities = getattr(capabilities, name, None)
        if capabilities is None:
            return None
    return capabilities


class ClientFeatures:
    """The client's capabilities (`capabilities()`: pygls's `client_capabilities`, set at
    `initialize`) as the questions the server asks of them."""

    def __init__(self, capabilities: Callable[[], Any]) -> None:
        self._capabilities = capabilities
        self.encoding: str = UTF16
        self.pull = False  # the client pulls diagnostics: never push to it
        # The client pulled a notebook cell's diagnostics. Until then cells are pushed to even
        # in pull mode: vscode-languageclient 9 pulls text documents but never cells.
        self.pulls_cells = False
        self.name = ""  # the client's own name (`clientInfo`), if it sent one

    def initialize(self, position_encoding: Any, client_info: Any = None) -> None:
        """Read the negotiated position encoding, the diagnostics mode and the client's name
        at `initialize`."""
        encoding = position_encoding or UTF16
        self.encoding = getattr(encoding, "value", encoding)  # a plain "utf-16", not the enum
        self.pull = self.supports("text_document", "diagnostic")
        self.name = getattr(client_info, "name", "") or ""

    def shows_related(self) -> bool:
        """Whether the client shows a diagnostic's relatedInformation itself (VS Code does,
        under the message): then the hover need not list those places again."""
        declared = self.supports(
            "text_document", "publish_diagnostics", "related_information"
        ) or self.supports("text_document", "diagnostic", "related_information")
        return declared and self.name not in _HIDE_RELATED

    def supports(self, *path: str) -> bool:
        """The capability at `path` ("workspace", "configuration") is present and not false."""
        return bool(_has(self._capabilities(), *path))

    def lazy_edits(self) -> bool:
        """The client resolves code action edits lazily (`codeAction/resolve`)."""
        properties = _has(self._capabilities(), "text_document", "code_action")
        properties = _has(properties, "resolve_support", "properties") or []
        return "edit" in properties

    def versioned_edits(self) -> bool:
        """The client takes workspace edits as versioned `documentChanges`."""
        return self.supports("workspace", "workspace_edit", "document_changes")

    def pushes_to(self, document: OpenDocument) -> bool:
        """Whether `document`'s diagnostics are pushed (the client does not pull them)."""
        return not self.pull or (document.notebook is not None and not self.pulls_cells)

    def pushes_notebooks(self) -> bool:
        """Whether notebook cells' diagnostics are pushed."""
        return not self.pull or not self.pulls_cells

    def cells_pulled(self) -> bool:
        """The client pulled a cell: True the first time (what was pushed to cells must be
        withdrawn: push and pull diagnostics are shown side by side)."""
        if self.pulls_cells:
            return False
        self.pulls_cells = True
        log.info("the client pulls notebook cell diagnostics: no longer pushed")
        return True

"""The server is what its collaborators take it for: every part `lsp/server_view.py` names (its
analyzer's and its lenses' methods too) is on a real `JaxLanguageServer`, with the parameters
named there."""

from __future__ import annotations

import inspect

from jax_lsp.lsp import server_view
from jax_lsp.lsp.language_server import JaxLanguageServer


def _members(protocol: type) -> set[str]:
    hinted = set(protocol.__annotations__)
    defined = {name for name in vars(protocol) if not name.startswith("_")}
    return hinted | defined


def _parameters(function) -> list[str]:
    return [name for name in inspect.signature(function).parameters if name != "self"]


def test_the_server_has_every_part_its_view_names():
    ls = JaxLanguageServer()
    try:
        for name in _members(server_view.ServerView):
            assert name in vars(ls) or hasattr(type(ls), name), name
        for part, protocol in [
            ("analyzer", server_view.NotebookAnalyzer),
            ("traced_shown", server_view.ShownLenses),
        ]:
            for name in _members(protocol):
                method = getattr(getattr(ls, part), name)
                assert _parameters(method) == _parameters(getattr(protocol, name)), name
        for name in ("log_to_client", "report_settings_errors"):
            assert _parameters(getattr(ls, name)) == _parameters(
                getattr(server_view.ServerView, name)
            )
    finally:
        ls.cross.close()

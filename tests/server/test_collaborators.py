"""The server's collaborators, each on its own with stand-ins for the rest: what the client
supports (`ClientFeatures`), publishing (`Publisher`), when diagnostics are published
(`Scheduler`) and when jedi starts and what its late answers do (`JediBacklog`)."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace

from lsprotocol import types

from jax_lsp.lsp.client import ClientFeatures
from jax_lsp.lsp.documents import AnalysisResult, DocumentStore
from jax_lsp.lsp.jedi_backlog import JediBacklog
from jax_lsp.lsp.publisher import Publisher
from jax_lsp.lsp.scheduler import Scheduler

URI = "file:///work/collaborators.py"


def _capabilities(pull: bool = False, refresh: bool = False, lazy: bool = False):
    return types.ClientCapabilities(
        text_document=types.TextDocumentClientCapabilities(
            diagnostic=types.DiagnosticClientCapabilities() if pull else None,
            code_action=types.CodeActionClientCapabilities(
                resolve_support=types.ClientCodeActionResolveOptions(properties=["edit"])
                if lazy
                else None
            ),
        ),
        workspace=types.WorkspaceClientCapabilities(
            diagnostics=types.DiagnosticWorkspaceClientCapabilities(refresh_support=True)
            if refresh
            else None,
            workspace_edit=types.WorkspaceEditClientCapabilities(document_changes=True),
        ),
    )


class _Server:
    """What the publisher sends through: records every message."""

    def __init__(self) -> None:
        self.sent: list[tuple[str, object]] = []

    def notify_json(self, method, params) -> None:
        assert method == "textDocument/publishDiagnostics"
        self.sent.append(("publish", params))

    def workspace_diagnostic_refresh(self, params) -> None:
        self.sent.append(("refresh", params))

    def workspace_code_lens_refresh(self, params) -> None:
        self.sent.append(("lens", params))

    def workspace_inlay_hint_refresh(self, params) -> None:
        self.sent.append(("hints", params))


def _open(documents: DocumentStore, uri: str = URI, notebook: str | None = None):
    item = types.TextDocumentItem(uri=uri, language_id="python", version=1, text="x = 1\n")
    return documents.open(item, notebook=notebook)


def test_client_features_read_the_capabilities():
    client = ClientFeatures(lambda: _capabilities(pull=True, lazy=True))
    client.initialize(types.PositionEncodingKind.Utf8)
    assert client.encoding == "utf-8" and client.pull
    assert client.lazy_edits() and client.versioned_edits()
    assert not client.supports("workspace", "configuration")
    cell = _open(DocumentStore(), notebook="file:///n.ipynb")
    assert client.pushes_to(cell) and client.pushes_notebooks()  # until a cell is pulled
    assert client.cells_pulled() and not client.cells_pulled()  # True the first time only
    assert not client.pushes_to(cell) and not client.pushes_notebooks()

    default = ClientFeatures(lambda: _capabilities())
    default.initialize(None)
    assert default.encoding == "utf-16" and not default.pull and not default.lazy_edits()


def test_publisher_publishes_starts_jedi_and_refreshes_what_the_client_supports():
    server, started = _Server(), []
    client = ClientFeatures(lambda: _capabilities(pull=True, refresh=True))
    client.initialize(None)
    publisher = Publisher(server, client, lambda: started.append(True))
    publisher.publish(URI, [], 3)
    publisher.refresh_pulled()
    publisher.refresh_views()  # neither lenses nor hints can be refreshed by this client
    assert [kind for kind, _ in server.sent] == ["publish", "refresh"]
    assert server.sent[0][1] == {"uri": URI, "diagnostics": [], "version": 3}
    assert started == [True]


async def test_scheduler_publishes_the_current_result_once():
    documents, server = DocumentStore(), _Server()
    client = ClientFeatures(lambda: _capabilities())
    client.initialize(None)
    publisher = Publisher(server, client, lambda: None)
    analyzed = []

    async def result(document):
        analyzed.append(document.version)
        document.result = AnalysisResult(document.version, 0, [], [])
        return document.result

    async def analyze_notebook(uri):
        return True

    async def first_pass(document):
        return None  # the project's traces are known: the full analysis alone

    scheduler = Scheduler(
        documents,
        client,
        publisher,
        result,
        analyze_notebook,
        lambda: 0,
        lambda *a: None,
        first_pass,
    )
    document = _open(documents)
    scheduler.schedule(document, 0)
    scheduler.schedule(document, 0)  # replaces the first
    assert scheduler.busy()
    await asyncio.sleep(0.05)
    assert not scheduler.busy() and analyzed == [1]
    assert [(kind, params["uri"]) for kind, params in server.sent] == [("publish", URI)]

    client.pull = True  # a pulling client asks when it wants them
    scheduler.schedule(document, 0)
    assert not scheduler.busy()


async def test_scheduler_publishes_a_first_pass_before_the_full_result_and_survives_its_failure():
    documents, server = DocumentStore(), _Server()
    client = ClientFeatures(lambda: _capabilities())
    client.initialize(None)
    publisher = Publisher(server, client, lambda: None)
    early = types.Diagnostic(
        range=types.Range(types.Position(0, 0), types.Position(0, 1)), message="early"
    )
    passes: list[object] = [[early], RuntimeError("engine bug")]

    async def result(document):
        document.result = AnalysisResult(document.version, 0, [], [])
        return document.result

    async def first_pass(document):
        found = passes.pop(0)
        if isinstance(found, Exception):
            raise found
        return found

    scheduler = Scheduler(
        documents,
        client,
        publisher,
        result,
        lambda uri: None,
        lambda: 0,
        lambda *a: None,
        first_pass,
    )
    for uri in (URI, URI + "2"):  # the first pass publishes; then it fails
        scheduler.schedule(_open(documents, uri), 0)
        await asyncio.sleep(0.05)
    published = [(params["uri"], len(params["diagnostics"])) for _, params in server.sent]
    assert published == [(URI, 1), (URI, 0), (URI + "2", 0)]


async def test_jedi_starts_when_idle_and_a_late_answer_analyzes_again():
    documents = DocumentStore()
    cross = SimpleNamespace(started=False, roots=[])
    cross.start_jedi = lambda root: (cross.roots.append(root), setattr(cross, "started", True))
    engine = SimpleNamespace(jobs=0, invalidated=[])
    engine.invalidate = engine.invalidated.append
    client = ClientFeatures(lambda: _capabilities())
    client.initialize(None)
    scheduled = []
    scheduler = SimpleNamespace(busy=lambda: True, schedule=lambda d, delay: scheduled.append(d))
    publisher = Publisher(_Server(), client, lambda: None)
    jedi = JediBacklog(cross, documents, engine, client, publisher, scheduler, lambda: "/root")

    jedi.start_when_idle(0.01)  # an analysis is pending: later
    assert cross.roots == []
    scheduler.busy = lambda: False
    await asyncio.sleep(0.05)
    assert cross.roots == ["/root"]

    document = _open(documents)
    document.result = AnalysisResult(1, 0, [], [])
    jedi.answered(document)
    assert document.result is None and engine.invalidated == [URI] and scheduled == [document]


def test_a_late_answer_about_a_notebook_analyzes_its_cells_again():
    documents, notebook = DocumentStore(), "file:///work/demo.ipynb"
    cells = [_open(documents, f"{notebook}#cell{i}", notebook) for i in range(2)]
    other = _open(documents)
    for document in [*cells, other]:
        document.result = AnalysisResult(1, 0, [], [])
    engine = SimpleNamespace(jobs=0, invalidated=[])
    engine.invalidate = engine.invalidated.append
    client = ClientFeatures(lambda: _capabilities())
    client.initialize(None)
    scheduled = []
    scheduler = SimpleNamespace(schedule_notebook=lambda uri, delay: scheduled.append(uri))
    publisher = Publisher(_Server(), client, lambda: None)
    jedi = JediBacklog(None, documents, engine, client, publisher, scheduler, lambda: None)
    jedi.notebook_answered(notebook)
    assert [cell.result for cell in cells] == [None, None] and other.result is not None
    assert engine.invalidated == [notebook] and scheduled == [notebook]

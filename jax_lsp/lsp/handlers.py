"""The server's handlers of lifecycle, document and notebook sync, pulled diagnostics and
settings messages: named functions of (server, params), registered by `jax_lsp.server`. The
handlers of code actions, hover, inlay hints and code lenses live in their feature modules."""

from __future__ import annotations

import asyncio
import logging
import os
from pathlib import Path

from lsprotocol import types
from pygls.uris import to_fs_path

from jax_lsp import __version__
from jax_lsp.config import SETTINGS_FILES
from jax_lsp.files import VIRTUAL_DOCUMENTS, UnreadableFile, read_source
from jax_lsp.lsp.language_server import JaxLanguageServer
from jax_lsp.lsp.settings import SECTION
from jax_lsp.lsp.transport import watch_parent

log = logging.getLogger(__name__)

# jedi starts once the first diagnostics are out, or this many seconds after start-up when no
# analysis is pending.
WARM_JEDI_AFTER = 1.0


def initialize(ls: JaxLanguageServer, params: types.InitializeParams) -> None:
    ls.client.initialize(ls.workspace.position_encoding, params.client_info)
    if params.root_uri:
        root = to_fs_path(params.root_uri)
        # jupyterlab-lsp roots its server in the folder of its virtual documents (a notebook's
        # cells joined): the project is the folder that holds it.
        if os.path.basename(root) == VIRTUAL_DOCUMENTS:
            root = os.path.dirname(root)
        ls.settings.root = ls.cross.workspace.root = root
    ls.settings.set_initial(params.initialization_options or {})
    watch_parent(params.process_id)


async def initialized(ls: JaxLanguageServer, params: types.InitializedParams) -> None:
    log.info(
        "jax-lsp %s initialized (%s, %s diagnostics)",
        __version__,
        ls.client.encoding,
        "pull" if ls.client.pull else "push",
    )
    asyncio.get_running_loop().call_later(WARM_JEDI_AFTER, ls.jedi.start_when_idle, WARM_JEDI_AFTER)
    generation = ls.settings.generation
    await fetch_configuration(ls)
    await register_pyproject_watcher(ls)
    if ls.settings.generation != generation:
        ls.scheduler.refresh_all()


def did_open(ls: JaxLanguageServer, params: types.DidOpenTextDocumentParams) -> None:
    ls.scheduler.schedule(ls.documents.open(params.text_document), 0)


def did_change(ls: JaxLanguageServer, params: types.DidChangeTextDocumentParams) -> None:
    document = ls.documents.get(params.text_document.uri)
    if document is None:
        return
    ls.dependents.seen(document)  # an import the edit removes still names what it traced
    document.apply(params.content_changes, params.text_document.version, ls.client.encoding)
    ls.scheduler.schedule(document)
    ls.dependents.changed(document)


def did_save(ls: JaxLanguageServer, params: types.DidSaveTextDocumentParams) -> None:
    document = ls.documents.get(params.text_document.uri)
    if document is not None:
        ls.scheduler.schedule(document, 0)
        ls.dependents.changed(document, 0)


def did_close(ls: JaxLanguageServer, params: types.DidCloseTextDocumentParams) -> None:
    document = ls.documents.get(params.text_document.uri)
    ls.close(params.text_document.uri)
    if document is not None:
        ls.dependents.changed(document, 0)  # its unsaved edits are gone: the file counts again


def notebook_open(ls: JaxLanguageServer, params: types.DidOpenNotebookDocumentParams) -> None:
    uri = params.notebook_document.uri
    for item in params.cell_text_documents:
        ls.documents.open(item, notebook=uri)
    ls.scheduler.schedule_notebook(uri, 0)


def notebook_change(ls: JaxLanguageServer, params: types.DidChangeNotebookDocumentParams) -> None:
    uri = params.notebook_document.uri
    cells = params.change.cells
    if cells and cells.structure:
        for item in cells.structure.did_open or []:
            ls.documents.open(item, notebook=uri)
        for closed in cells.structure.did_close or []:
            ls.close(closed.uri)
    for content in (cells.text_content if cells else None) or []:
        cell = ls.documents.get(content.document.uri)
        if cell is not None:
            cell.apply(content.changes, content.document.version, ls.client.encoding)
    ls.scheduler.schedule_notebook(uri)


def notebook_save(ls: JaxLanguageServer, params: types.DidSaveNotebookDocumentParams) -> None:
    ls.scheduler.schedule_notebook(params.notebook_document.uri, 0)


def notebook_close(ls: JaxLanguageServer, params: types.DidCloseNotebookDocumentParams) -> None:
    ls.forget_notebook(params.notebook_document.uri)
    for cell in params.cell_text_documents:
        ls.close(cell.uri)


async def pull_diagnostics(
    ls: JaxLanguageServer, params: types.DocumentDiagnosticParams
) -> types.DocumentDiagnosticReport:
    document = ls.documents.get(params.text_document.uri)
    if document is None:
        return types.RelatedFullDocumentDiagnosticReport(items=[])
    if document.notebook:
        ls.scheduler.cells_pulled()
    result = await ls.analyzer.current_result(document)
    ls.jedi.start()  # once: the first diagnostics are (about to be) out
    result_id = result.result_id
    if params.previous_result_id == result_id:
        return types.RelatedUnchangedDocumentDiagnosticReport(result_id=result_id)
    return types.RelatedFullDocumentDiagnosticReport(items=result.diagnostics, result_id=result_id)


async def workspace_diagnostics(
    ls: JaxLanguageServer, params: types.WorkspaceDiagnosticParams
) -> types.WorkspaceDiagnosticReport:
    return await ls.workspace_diagnostics.pull(params)


def show_trace_site(ls: JaxLanguageServer, uri: str, site: types.Range) -> None:
    """The code lens's command (`hints.SHOW_TRACE_SITE`): the client is asked to show the
    other module at the site that traces the function. The command is answered at once, not
    after the client's reply: a reply pygls cannot read (`null` for a ShowDocumentResult)
    would leave it unanswered."""
    shown = asyncio.ensure_future(
        ls.window_show_document_async(
            types.ShowDocumentParams(uri=uri, take_focus=True, selection=site)
        )
    )
    shown.add_done_callback(_log_show_failure)


def _log_show_failure(shown: asyncio.Future) -> None:
    if not shown.cancelled() and shown.exception() is not None:
        log.warning("window/showDocument failed: %s", shown.exception())


async def did_change_configuration(
    ls: JaxLanguageServer, params: types.DidChangeConfigurationParams
) -> None:
    generation = ls.settings.generation
    if ls.client.supports("workspace", "configuration"):
        await fetch_configuration(ls)
    elif params.settings:
        ls.settings.set_editor(params.settings)
        ls.report_settings_errors()
    if ls.settings.generation != generation:
        ls.scheduler.refresh_all()


async def did_change_watched_files(
    ls: JaxLanguageServer, params: types.DidChangeWatchedFilesParams
) -> None:
    open_uris = {document.uri for document in ls.documents}
    modules = {
        change.uri: change.type
        for change in params.changes
        if change.uri.endswith(".py") and change.uri not in open_uris
    }
    if modules:
        # What another module's traced code does to a helper here, or what a helper there
        # returns, may have changed (a `git checkout`, a `--fix` in a terminal).
        paths = [to_fs_path(uri) for uri in modules]
        await ls.engine.run(ls.engine.workspace.files_changed, paths)
        ls.workspace_diagnostics.files_changed(
            any(kind != types.FileChangeType.Changed for kind in modules.values())
        )
        texts = await asyncio.to_thread(lambda: {uri: _disk_text(uri) for uri in modules})
        ls.dependents.changed_on_disk(texts)  # read off the loop: a checkout changes many
    if any(change.uri.endswith(SETTINGS_FILES) for change in params.changes):
        ls.settings.reload_projects()
        ls.scheduler.refresh_all()


def _disk_text(uri: str) -> str | None:
    try:
        return read_source(Path(to_fs_path(uri)))
    except UnreadableFile:
        return None  # removed, or not text


def shutdown(ls: JaxLanguageServer, params: None) -> None:
    ls.shut_down = True
    ls.cross.close(wait=False)  # answered at once; the worker is reaped at exit


async def fetch_configuration(ls: JaxLanguageServer) -> None:
    """The editor's `jax-lsp` settings, asked of a client that answers `workspace/configuration`."""
    if not ls.client.supports("workspace", "configuration"):
        return
    try:
        values = await ls.workspace_configuration_async(
            types.ConfigurationParams(items=[types.ConfigurationItem(section=SECTION)])
        )
    except Exception as error:  # a client bug must not stop the server
        ls.log_to_client(f"jax-lsp: could not read the editor settings: {error}")
        return
    if values:
        ls.settings.set_editor(values[0])
    ls.report_settings_errors()


async def register_pyproject_watcher(ls: JaxLanguageServer) -> None:
    """Ask the client to tell us when a pyproject.toml or requirements.txt changes (the
    settings and the JAX release they give apply), and when a Python file changes on disk
    (the traces and facts other modules take from it)."""
    if not ls.client.supports("workspace", "did_change_watched_files", "dynamic_registration"):
        return
    options = types.DidChangeWatchedFilesRegistrationOptions(
        watchers=[
            types.FileSystemWatcher(glob_pattern=f"**/{name}") for name in (*SETTINGS_FILES, "*.py")
        ]
    )
    registration = types.Registration(
        id="jax-lsp-pyproject",
        method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
        register_options=options,
    )
    try:
        await ls.client_register_capability_async(
            types.RegistrationParams(registrations=[registration])
        )
    except Exception as error:
        log.warning("could not watch pyproject.toml files: %s", error)

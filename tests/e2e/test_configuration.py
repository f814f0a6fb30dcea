"""Settings: initializationOptions, workspace/configuration, didChangeConfiguration, pyproject.toml
reloaded on didChangeWatchedFiles, precedence, and problems reported through window/logMessage."""

from __future__ import annotations

import sys

from lsprotocol import types
from pytest_lsp import ClientServerConfig

from tests.e2e.conftest import SERVER_ENV, codes, diagnostics_for, open_document, start, wait_for

TEXT = "import jax.numpy as jnp\n\nx = jnp.arange(5.0)\nx[1] += 5.0\nx.at[0].set(1.0)\n"


def watched_change(client, uri: str) -> None:
    client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams(
            changes=[types.FileEvent(uri=uri, type=types.FileChangeType.Changed)]
        )
    )


async def test_initialization_options(client, tmp_path):
    await start(client, options={"ignore": ["JAX202"], "severity": {"JAX203": "info"}})
    uri = open_document(client, tmp_path / "a.py", TEXT)
    (found,) = await diagnostics_for(client, uri, bool)
    assert found.code == "JAX203"
    assert found.severity == types.DiagnosticSeverity.Information


async def test_workspace_configuration_and_change(client, tmp_path):
    client.set_configuration({"ignore": ["JAX202"]}, section="jax-lsp")
    await start(client, configuration=True)
    uri = open_document(client, tmp_path / "a.py", TEXT)
    await diagnostics_for(client, uri, lambda found: codes(found) == ["JAX203"])

    client.set_configuration({"select": ["JAX202"]}, section="jax-lsp")
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
    await diagnostics_for(client, uri, lambda found: codes(found) == ["JAX202"])


async def test_initialization_options_stay_when_the_client_has_no_section(client, tmp_path):
    """A client configured by its initialization options alone answers
    `workspace/configuration` with null: the options stay in force."""
    await start(client, configuration=True, options={"ignore": ["JAX202"]})
    uri = open_document(client, tmp_path / "a.py", TEXT)
    await diagnostics_for(client, uri, lambda found: codes(found) == ["JAX203"])
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
    client.set_configuration({"ignore": ["JAX203"]}, section="jax-lsp")
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
    await diagnostics_for(client, uri, lambda found: codes(found) == ["JAX202"])


async def test_did_change_configuration_without_pull(client, tmp_path):
    await start(client)
    uri = open_document(client, tmp_path / "a.py", TEXT)
    await diagnostics_for(client, uri, lambda found: codes(found) == ["JAX202", "JAX203"])
    client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"jax-lsp": {"ignore": ["JAX203"]}})
    )
    await diagnostics_for(client, uri, lambda found: codes(found) == ["JAX202"])


async def test_pull_client_is_asked_to_refresh(client, tmp_path):
    await start(client, pull=True)
    open_document(client, tmp_path / "a.py", TEXT)
    client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"jax-lsp": {"ignore": ["JAX203"]}})
    )
    await wait_for(lambda: client.diagnostic_refresh_count >= 1)


async def test_pyproject_reloaded_and_editor_settings_win(client, tmp_path):
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text('[tool.jax-lsp]\nignore = ["JAX203"]\n')
    await start(client, root=tmp_path)
    uri = open_document(client, tmp_path / "pkg" / "a.py", TEXT)
    await diagnostics_for(client, uri, lambda found: codes(found) == ["JAX202"])

    pyproject.write_text('[tool.jax-lsp]\nignore = ["JAX202"]\n')
    watched_change(client, pyproject.as_uri())
    await diagnostics_for(client, uri, lambda found: codes(found) == ["JAX203"])

    # An editor `ignore` replaces the project's: editor settings over pyproject.
    client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"jax-lsp": {"ignore": []}})
    )
    await diagnostics_for(client, uri, lambda found: codes(found) == ["JAX202", "JAX203"])


async def test_requirements_reloaded_give_the_jax_release(client, tmp_path):
    requirements = tmp_path / "requirements.txt"
    requirements.write_text("jax==0.4.20\n")
    await start(client, root=tmp_path)
    uri = open_document(client, tmp_path / "a.py", "import jax\n\ny = jax.tree_map(abs, [1])\n")
    await diagnostics_for(client, uri, lambda found: codes(found) == [])

    requirements.write_text("jax>=0.6\n")
    watched_change(client, requirements.as_uri())
    await diagnostics_for(client, uri, lambda found: codes(found) == ["JAX1101"])


async def test_bad_settings_are_logged_and_ignored(client, tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.jax-lsp\n")
    await start(client, root=tmp_path, options={"select": ["NOPE1"]})
    uri = open_document(client, tmp_path / "a.py", TEXT)
    await diagnostics_for(client, uri, lambda found: codes(found) == ["JAX202", "JAX203"])
    messages = [m.message for m in client.log_messages]
    assert any("editor settings ignored" in m and "NOPE1" in m for m in messages)
    assert any("pyproject.toml" in m and "using the defaults" in m for m in messages)


async def test_an_unknown_pyproject_key_is_reported_once_and_the_defaults_apply(client, tmp_path):
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text('[tool.jax-lsp]\nignroe = ["JAX203"]\n')
    await start(client, root=tmp_path)
    uri = open_document(client, tmp_path / "a.py", TEXT)
    await diagnostics_for(client, uri, lambda found: codes(found) == ["JAX202", "JAX203"])
    # Analysed again (an edit): the file's problem is not reported again.
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=TEXT + "\n")],
        )
    )
    await diagnostics_for(client, uri, lambda found: codes(found) == ["JAX202", "JAX203"])
    (message,) = [m for m in client.log_messages if "ignroe" in m.message]
    assert message.type == types.MessageType.Error
    assert message.message == (
        "jax-lsp: settings file ignored, using the defaults: "
        f"{pyproject}:2: unknown setting `ignroe` in `[tool.jax-lsp]`; did you mean `ignore`?"
    )

    pyproject.write_text('[tool.jax-lsp]\nignore = ["JAX203"]\n')  # corrected: read again
    watched_change(client, pyproject.as_uri())
    await diagnostics_for(client, uri, lambda found: codes(found) == ["JAX202"])


async def test_lsp_level_name_and_one_bad_key_keep_the_other_settings(client, tmp_path):
    # VS Code's settings offer LSP's `information`; a value the server cannot read (`hint`) is
    # reported and dropped alone: the `ignore` sent with it still applies.
    await start(client, options={"ignore": ["JAX202"], "severity": {"JAX203": "information"}})
    uri = open_document(client, tmp_path / "a.py", TEXT)
    (found,) = await diagnostics_for(client, uri, bool)
    assert (found.code, found.severity) == ("JAX203", types.DiagnosticSeverity.Information)

    client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(
            settings={"jax-lsp": {"ignore": ["JAX203"], "severity": {"JAX202": "hint"}}}
        )
    )
    (found,) = await diagnostics_for(client, uri, lambda found: codes(found) == ["JAX202"])
    assert found.severity == types.DiagnosticSeverity.Error  # the bad level left out
    messages = [m.message for m in client.log_messages]
    assert any("editor settings ignored" in m and "hint" in m for m in messages)
    assert not any("information" in m for m in messages)


async def test_log_file(tmp_path):
    log_file = tmp_path / "server.log"
    config = ClientServerConfig(
        server_command=[sys.executable, "-m", "jax_lsp", "serve", "--log-file", str(log_file)],
        server_env=SERVER_ENV,
    )
    client = await config.start()
    try:
        await start(client)
        uri = open_document(client, tmp_path / "a.py", TEXT)
        await diagnostics_for(client, uri, bool)
        await client.shutdown_session()
    finally:
        await client.stop()
    assert "jax-lsp 0.1.0 initialized (utf-16, push diagnostics)" in log_file.read_text()

"""The project's trace graph over LSP: a helper in one module traced by a jitted step in
another is checked as traced code, in its own file, with the jit site as related information;
editing the module that traces it re-publishes the helper's diagnostics, or, to a client that
pulls the workspace's diagnostics, changes those of the helper's file though it is not open.
The helper's code lens and inlay hints name the jit site in the other module."""

from __future__ import annotations

import asyncio

from lsprotocol import types

from tests.e2e.conftest import (
    TIMEOUT,
    capabilities,
    change,
    codes,
    diagnostics_for,
    open_document,
    start,
    wait_for,
)

TRAIN = """import jax

from utils import clip_update


@jax.jit
def step(params, grads):
    return clip_update(params, grads, 0.1)
"""

UTILS = """import jax.numpy as jnp


def clip_update(params, grads, lr):
    if jnp.linalg.norm(grads) > 1.0:
        grads = grads / jnp.linalg.norm(grads)
    print("clipping", grads)
    params[0] = params[0] - lr * grads[0]
    return params
"""

EXPECTED = ["JAX201", "JAX701", "JAX101"]


def _sorted_codes(found) -> list[str]:
    return [d.code for d in sorted(found, key=lambda d: d.range.start.line)]


async def test_a_helper_traced_from_another_module_is_checked_in_its_own_file(client, tmp_path):
    (tmp_path / "train.py").write_text(TRAIN)
    (tmp_path / "utils.py").write_text(UTILS)
    await start(client, root=tmp_path)
    uri = open_document(client, tmp_path / "utils.py", UTILS)
    found = await diagnostics_for(client, uri, lambda found: len(found) == 3)
    assert _sorted_codes(found) == ["JAX701", "JAX101", "JAX201"]
    branch = next(d for d in found if d.code == "JAX701")
    assert "train.py" in branch.message
    places = [
        (info.location.uri, info.location.range.start.line) for info in branch.related_information
    ]
    train_uri = (tmp_path / "train.py").as_uri()
    assert (train_uri, 7) in places  # the call from `step`
    assert (train_uri, 5) in places  # `@jax.jit` on `step`


async def test_editing_the_jit_site_republishes_the_helper(client, tmp_path):
    """Removing `@jax.jit` in train.py makes utils.py's findings go; restoring it brings them
    back. utils.py is not edited."""
    (tmp_path / "train.py").write_text(TRAIN)
    (tmp_path / "utils.py").write_text(UTILS)
    await start(client, root=tmp_path)
    train_uri = open_document(client, tmp_path / "train.py", TRAIN)
    utils_uri = open_document(client, tmp_path / "utils.py", UTILS)
    assert len(await diagnostics_for(client, utils_uri, lambda found: len(found) == 3)) == 3
    # Line 5 is `@jax.jit`: removed.
    change(client, train_uri, 2, "", (5, 0), (6, 0))
    assert await diagnostics_for(client, utils_uri, lambda found: found == []) == []
    change(client, train_uri, 3, "@jax.jit\n", (5, 0))
    found = await diagnostics_for(client, utils_uri, lambda found: len(found) == 3)
    assert sorted(codes(found)) == sorted(EXPECTED)


async def _pull_workspace(
    client, given: dict[str, str]
) -> dict[str, types.WorkspaceDocumentDiagnosticReport]:
    """One `workspace/diagnostic` pull, with the result ids of what the client holds
    (`given`, updated as VS Code's client keeps them)."""
    result = await client.workspace_diagnostic_async(
        types.WorkspaceDiagnosticParams(
            previous_result_ids=[types.PreviousResultId(uri, value) for uri, value in given.items()]
        )
    )
    reports = {item.uri: item for item in result.items}
    for uri, item in reports.items():
        if item.result_id is None:
            given.pop(uri, None)
        else:
            given[uri] = item.result_id
    return reports


async def _pulled(
    client, given, uri: str, accept, timeout: float = TIMEOUT
) -> list[types.Diagnostic]:
    """Pull the workspace until `uri`'s full report satisfies `accept` (a client pulls again
    after each answer)."""
    deadline = asyncio.get_running_loop().time() + timeout
    while True:
        report = (await _pull_workspace(client, given)).get(uri)
        if report is not None and report.kind == "full" and accept(list(report.items)):
            return list(report.items)
        assert asyncio.get_running_loop().time() < deadline, "timed out pulling the workspace"
        await asyncio.sleep(0.1)


async def test_a_pulling_client_sees_the_helpers_file_without_opening_it(client, tmp_path):
    """utils.py is never opened: its findings come with the workspace's diagnostics, go when
    train.py's `@jax.jit` is removed (the client is asked to pull again), and come back."""
    (tmp_path / "train.py").write_text(TRAIN)
    (tmp_path / "utils.py").write_text(UTILS)
    (tmp_path / "excluded").mkdir()
    (tmp_path / "excluded" / "gone.py").write_text(
        "import jax\n\n\n@jax.jit\ndef f(x):\n    print(x)\n"
    )
    (tmp_path / "pyproject.toml").write_text('[tool.jax-lsp]\nextend-exclude = ["excluded"]\n')
    result = await start(client, root=tmp_path, pull=True)
    assert result.capabilities.diagnostic_provider.workspace_diagnostics
    assert result.capabilities.diagnostic_provider.inter_file_dependencies
    train_uri = open_document(client, tmp_path / "train.py", TRAIN)
    utils_uri = (tmp_path / "utils.py").as_uri()
    given: dict[str, str] = {}
    found = await _pulled(client, given, utils_uri, lambda found: len(found) == 3)
    assert sorted(codes(found)) == sorted(EXPECTED)
    branch = next(d for d in found if d.code == "JAX701")
    assert (train_uri, 5) in [
        (info.location.uri, info.location.range.start.line) for info in branch.related_information
    ]
    reports = await _pull_workspace(client, given)
    assert train_uri not in reports  # open: pulled on its own
    assert (tmp_path / "excluded" / "gone.py").as_uri() not in reports  # as `check` excludes
    assert reports[utils_uri].kind == "unchanged"
    # Line 5 is `@jax.jit`: removed. The client is asked to pull again.
    refreshes = client.diagnostic_refresh_count
    change(client, train_uri, 2, "", (5, 0), (6, 0))
    await wait_for(lambda: client.diagnostic_refresh_count > refreshes)
    assert await _pulled(client, given, utils_uri, lambda found: found == []) == []
    change(client, train_uri, 3, "@jax.jit\n", (5, 0))
    found = await _pulled(client, given, utils_uri, lambda found: len(found) == 3)
    assert sorted(codes(found)) == sorted(EXPECTED)
    assert utils_uri not in client.diagnostics  # pulled, never pushed
    # Changed on disk, then deleted, by another program.
    (tmp_path / "utils.py").write_text(UTILS.replace('    print("clipping", grads)\n', ""))
    found = await _pulled(client, given, utils_uri, lambda found: len(found) == 2)
    assert sorted(codes(found)) == ["JAX201", "JAX701"]
    (tmp_path / "utils.py").unlink()
    assert await _pulled(client, given, utils_uri, lambda found: found == []) == []


async def test_a_pushing_client_gets_nothing_for_files_it_has_not_opened(client, tmp_path):
    (tmp_path / "train.py").write_text(TRAIN)
    (tmp_path / "utils.py").write_text(UTILS)
    await start(client, root=tmp_path)
    train_uri = open_document(client, tmp_path / "train.py", TRAIN)
    assert await diagnostics_for(client, train_uri, lambda found: True) == []
    change(client, train_uri, 2, "", (5, 0), (6, 0))
    change(client, train_uri, 3, "@jax.jit\n", (5, 0))
    await asyncio.sleep(1.0)  # the edits settle: the open documents importing it are renewed
    assert set(client.diagnostics) == {train_uri}
    assert client.diagnostic_refresh_count == 0


async def test_the_lens_and_hints_name_the_jit_site_in_the_other_module(client, tmp_path):
    (tmp_path / "train.py").write_text(TRAIN)
    (tmp_path / "utils.py").write_text(UTILS)
    await start(client, root=tmp_path, show_document=True, options={"inlayHints": True})
    uri = open_document(client, tmp_path / "utils.py", UTILS)
    lenses = await client.text_document_code_lens_async(
        types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    [lens] = lenses
    assert lens.command.title == (
        "traced by jax.jit in train.py:6 through step · traced: params, grads · static: lr"
    )
    train_uri = (tmp_path / "train.py").as_uri()
    site = types.Range(types.Position(5, 1), types.Position(5, 8))  # `jax.jit` after the `@`
    await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command=lens.command.command, arguments=lens.command.arguments)
    )
    [shown] = await wait_for(lambda: client.shown_documents)
    assert (shown.uri, shown.selection) == (train_uri, site)
    hints = await client.text_document_inlay_hint_async(
        types.InlayHintParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=types.Range(types.Position(0, 0), types.Position(20, 0)),
        )
    )
    params = hints[0]
    [part] = params.label
    assert part.value == "traced"
    assert part.location == types.Location(uri=train_uri, range=site)
    assert params.tooltip.startswith("Traced (by jax.jit in train.py:6 through step)")


CLIPPING = """from norms import too_big


def clip_update(params, grads, lr):
    if too_big(grads):
        grads = grads / 2
    return params - lr * grads
"""

NORMS = """import jax.numpy as jnp


def too_big(grads):
    print("checking", grads)
    return jnp.linalg.norm(grads) > 1.0
"""


def _two_hops(tmp_path) -> None:
    (tmp_path / "train.py").write_text(TRAIN)
    (tmp_path / "utils.py").write_text(CLIPPING)
    (tmp_path / "norms.py").write_text(NORMS)


async def test_a_file_two_imports_away_is_traced_too(client, tmp_path):
    """train.py jits `step`, which calls utils.py's `clip_update`, which calls norms.py's
    `too_big`: norms.py is not open, and its `print` finding shows; its lens names the jit."""
    _two_hops(tmp_path)
    await start(client, root=tmp_path, pull=True)
    open_document(client, tmp_path / "train.py", TRAIN)
    norms_uri = (tmp_path / "norms.py").as_uri()
    found = await _pulled(client, {}, norms_uri, lambda found: len(found) == 1)
    assert codes(found) == ["JAX101"]
    open_document(client, tmp_path / "norms.py", NORMS)
    assert norms_uri not in await _pull_workspace(client, {})  # open: pulled on its own
    lenses = await client.text_document_code_lens_async(
        types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=norms_uri))
    )
    assert [lens.command.title for lens in lenses] == [
        "traced by jax.jit in train.py:6 through step → clip_update · traced: grads"
    ]


async def test_an_edit_reaches_a_file_two_imports_away(client, tmp_path):
    """The server analyses norms.py again when train.py changes (two imports away), but the
    engine answers from its cache."""
    _two_hops(tmp_path)
    await start(client, root=tmp_path, pull=True)
    train_uri = open_document(client, tmp_path / "train.py", TRAIN)
    norms_uri = (tmp_path / "norms.py").as_uri()
    given: dict[str, str] = {}
    await _pulled(client, given, norms_uri, lambda found: len(found) == 1)
    change(client, train_uri, 2, "", (5, 0), (6, 0))
    assert await _pulled(client, given, norms_uri, lambda found: found == [], 8.0) == []


def _files_changed(client, *files) -> None:
    """The editor's file watcher reports `files` changed on disk."""
    client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams(
            changes=[
                types.FileEvent(uri=file.as_uri(), type=types.FileChangeType.Changed)
                for file in files
            ]
        )
    )


async def test_a_jit_site_changed_on_disk_republishes_the_helper(client, tmp_path):
    """train.py is not open: `@jax.jit` removed from it on disk (a `git checkout`, a `--fix`
    in a terminal) makes utils.py's findings go once the watcher says so; restored, they come
    back. Within a second of the first analysis, as a quick checkout would be."""
    train = tmp_path / "train.py"
    train.write_text(TRAIN)
    (tmp_path / "utils.py").write_text(UTILS)
    await start(client, root=tmp_path)
    utils_uri = open_document(client, tmp_path / "utils.py", UTILS)
    assert len(await diagnostics_for(client, utils_uri, lambda found: len(found) == 3)) == 3
    train.write_text(TRAIN.replace("@jax.jit\n", ""))
    _files_changed(client, train)
    assert await diagnostics_for(client, utils_uri, lambda found: found == []) == []
    train.write_text(TRAIN)
    _files_changed(client, train)
    found = await diagnostics_for(client, utils_uri, lambda found: len(found) == 3)
    assert sorted(codes(found)) == sorted(EXPECTED)


async def test_a_new_file_on_disk_that_jits_a_helper_is_seen(client, tmp_path):
    """A module made on disk (not opened) whose jitted step calls the open helper: the
    helper's findings appear once the watcher reports the new file."""
    (tmp_path / "utils.py").write_text(UTILS)
    await start(client, root=tmp_path)
    utils_uri = open_document(client, tmp_path / "utils.py", UTILS)
    assert await diagnostics_for(client, utils_uri, lambda found: found == []) == []
    train = tmp_path / "train.py"
    train.write_text(TRAIN)
    client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams(
            changes=[types.FileEvent(uri=train.as_uri(), type=types.FileChangeType.Created)]
        )
    )
    found = await diagnostics_for(client, utils_uri, lambda found: len(found) == 3)
    assert sorted(codes(found)) == sorted(EXPECTED)


async def test_the_server_asks_to_be_told_of_python_files_changed_on_disk(client, tmp_path):
    """A client that registers file watchers dynamically is asked to watch the Python files
    as well as the settings files (the other modules' traces come from them)."""
    registered: list[types.RegistrationParams] = []

    def register(params: types.RegistrationParams) -> None:
        registered.append(params)

    client.feature(types.CLIENT_REGISTER_CAPABILITY)(register)
    supported = capabilities()
    supported.workspace.did_change_watched_files = types.DidChangeWatchedFilesClientCapabilities(
        dynamic_registration=True
    )
    await client.initialize_session(
        types.InitializeParams(capabilities=supported, root_uri=tmp_path.as_uri())
    )
    await wait_for(lambda: registered)
    (registration,) = registered[0].registrations
    assert registration.method == types.WORKSPACE_DID_CHANGE_WATCHED_FILES
    patterns = [watcher["globPattern"] for watcher in registration.register_options["watchers"]]
    assert sorted(patterns) == ["**/*.py", "**/pyproject.toml", "**/requirements.txt"]


# `step` passes `zero_first` what `clip` (imported too) returned: the helper's parameter is an
# array because `clip`'s facts say it returns one, as `check .` knows from train.py's analysis.
CLIPPED_TRAIN = """import jax

from utils import clip, zero_first


@jax.jit
def step(params):
    grads = jax.grad(lambda p: (p ** 2).sum())(params)
    grads = clip(grads)
    grads = zero_first(grads)
    return grads
"""

CLIPPED_UTILS = """import jax.numpy as jnp


def clip(grads):
    return jnp.where(grads > 1.0, 1.0, grads)


def zero_first(x):
    x[0] = 0.0
    return x
"""


async def test_what_an_imported_function_returned_is_traced_into_a_helper(client, tmp_path):
    """Both files open: the helper's finding is published, its lens names its traced
    parameter."""
    (tmp_path / "train.py").write_text(CLIPPED_TRAIN)
    (tmp_path / "utils.py").write_text(CLIPPED_UTILS)
    await start(client, root=tmp_path)
    open_document(client, tmp_path / "train.py", CLIPPED_TRAIN)
    utils_uri = open_document(client, tmp_path / "utils.py", CLIPPED_UTILS)
    found = await diagnostics_for(client, utils_uri, lambda found: len(found) == 1)
    assert [(d.code, d.range.start.line) for d in found] == [("JAX201", 8)]
    lenses = await client.text_document_code_lens_async(
        types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=utils_uri))
    )
    assert [lens.command.title for lens in lenses] == [
        "traced by jax.jit in train.py:6 through step · traced: grads",
        "traced by jax.jit in train.py:6 through step · traced: x",
    ]


async def test_the_workspace_pull_traces_what_an_imported_function_returned(client, tmp_path):
    (tmp_path / "train.py").write_text(CLIPPED_TRAIN)
    (tmp_path / "utils.py").write_text(CLIPPED_UTILS)
    await start(client, root=tmp_path, pull=True)
    open_document(client, tmp_path / "train.py", CLIPPED_TRAIN)
    utils_uri = (tmp_path / "utils.py").as_uri()
    found = await _pulled(client, {}, utils_uri, lambda found: len(found) == 1)
    assert [(d.code, d.range.start.line) for d in found] == [("JAX201", 8)]


COMPILE = """import jax


def compiled(fn):
    return jax.jit(fn)
"""

LOSS = """def loss(x):
    if x > 0:
        return x
    return -x
"""


async def test_a_wrapper_that_stops_jitting_in_a_third_module_clears_the_traced_function(
    client, tmp_path
):
    """train.py (not open) hands `loss` to `compiled`, a wrapper in compile.py: editing the
    wrapper so that it no longer jits makes losses.py's finding go, though losses.py neither
    imports compile.py nor is imported by it; restoring it brings the finding back."""
    (tmp_path / "compile.py").write_text(COMPILE)
    (tmp_path / "losses.py").write_text(LOSS)
    (tmp_path / "train.py").write_text(
        "from compile import compiled\nfrom losses import loss\n\nstep = compiled(loss)\n"
    )
    await start(client, root=tmp_path)
    compile_uri = open_document(client, tmp_path / "compile.py", COMPILE)
    losses_uri = open_document(client, tmp_path / "losses.py", LOSS)
    found = await diagnostics_for(client, losses_uri, lambda found: len(found) == 1)
    assert codes(found) == ["JAX701"]
    assert "train.py" in found[0].message
    # Line 4 is `    return jax.jit(fn)`: `jax.jit(fn)` becomes `fn`.
    change(client, compile_uri, 2, "fn", (4, 11), (4, 22))
    assert await diagnostics_for(client, losses_uri, lambda found: found == []) == []
    change(client, compile_uri, 3, "jax.jit(fn)", (4, 11), (4, 13))
    found = await diagnostics_for(client, losses_uri, lambda found: len(found) == 1)
    assert codes(found) == ["JAX701"]


async def test_the_edited_modules_own_wrapper_that_stops_jitting_clears_its_function(
    client, tmp_path
):
    """b.py (not open) hands `loss` to `compiled`, both defined in the open a.py: what a.py
    tells its importers of its own functions changes with the edit, and once the edits
    pause, the traces b.py gives it follow."""
    text = COMPILE + "\n\n" + LOSS
    (tmp_path / "a.py").write_text(text)
    (tmp_path / "b.py").write_text("from a import compiled, loss\n\nstep = compiled(loss)\n")
    await start(client, root=tmp_path)
    uri = open_document(client, tmp_path / "a.py", text)
    found = await diagnostics_for(client, uri, lambda found: len(found) == 1)
    assert codes(found) == ["JAX701"]
    change(client, uri, 2, "fn", (4, 11), (4, 22))
    assert await diagnostics_for(client, uri, lambda found: found == []) == []
    change(client, uri, 3, "jax.jit(fn)", (4, 11), (4, 13))
    found = await diagnostics_for(client, uri, lambda found: len(found) == 1)
    assert codes(found) == ["JAX701"]

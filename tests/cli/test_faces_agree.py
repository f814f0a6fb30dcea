"""The editor and the command line agree: every fixture and example, and a module whose array
comes from another module, give the same diagnostics and fixability in the server (over stdio)
as `check` gives, and the server's `source.fixAll` makes the text `check --fix` writes."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from lsprotocol import types

from tests.cli.helpers import jax_lsp
from tests.e2e.conftest import apply_edits, diagnostics_for, edits_of, open_document, start

pytestmark = pytest.mark.slow  # a real server started over stdio

ROOT = Path(__file__).resolve().parents[2]
FIX_ALL = "source.fixAll.jax-lsp"
_SEVERITY = {
    types.DiagnosticSeverity.Error: "error",
    types.DiagnosticSeverity.Warning: "warning",
    types.DiagnosticSeverity.Information: "info",
}
MAKER = "import jax.numpy as jnp\n\n\ndef make():\n    return jnp.zeros(3)\n"
USER = "from maker import make\n\nx = make()\nx[0] = 1.0\n"


def _project(tmp_path: Path) -> list[Path]:
    for folder in ("examples", "tests/fixtures"):
        shutil.copytree(ROOT / folder, tmp_path / Path(folder).name)
    (tmp_path / "maker.py").write_text(MAKER)
    (tmp_path / "user.py").write_text(USER)
    (tmp_path / "pyproject.toml").write_text('[tool.jax-lsp]\nselect = ["ALL"]\n')
    return [*sorted(tmp_path.glob("*/*.py")), tmp_path / "user.py"]


Fixes = tuple[str, ...]  # the title of each fix offered, sorted (fix-all tests their safety)


def _cli_findings(path: Path, root: Path) -> list[tuple[int, int, str, str, Fixes]]:
    run = jax_lsp("check", "--output-format", "json", str(path.relative_to(root)), cwd=root)
    rows = json.loads(run.stdout)
    return sorted(
        (
            r["location"]["row"] - 1,
            r["location"]["column"] - 1,
            r["code"],
            r["severity"],
            tuple(
                sorted(fix["message"] for fix in [r["fix"], *r["alternatives"]] if fix is not None)
            ),
        )
        for r in rows
    )


def _cli_fixed(path: Path, root: Path) -> str:
    copy = path.with_name(f"cli_{path.name}")
    shutil.copy(path, copy)
    jax_lsp("check", "--fix", str(copy.relative_to(root)), cwd=root)
    fixed = copy.read_text()
    copy.unlink()
    return fixed


async def _server_fixes(client, uri: str, diagnostic: types.Diagnostic) -> Fixes:
    """The fixes the editor offers for `diagnostic`: those in its data, and the deferred
    codemods it builds when asked."""
    data = diagnostic.data if isinstance(diagnostic.data, dict) else {}
    fixes = [fix["title"] for fix in data.get("fixes", [])]
    if not data.get("deferred"):
        return tuple(sorted(fixes))
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=diagnostic.range,
            context=types.CodeActionContext(
                diagnostics=[diagnostic], only=[types.CodeActionKind.QuickFix]
            ),
        )
    )
    prefix = f"jax-lsp ({diagnostic.code}): "
    titles = [
        a.title.removeprefix(prefix).removesuffix(" (unsafe)")  # the editor's safety mark
        for a in actions or []
        if a.title.startswith(prefix)
        and a.kind == types.CodeActionKind.QuickFix
        and not a.title.endswith("Disable for this line")  # the noqa action: not a fix
    ]
    return tuple(sorted({*fixes, *titles}))


async def _server_fixed(client, uri: str, text: str) -> str:
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=types.Range(types.Position(0, 0), types.Position(0, 0)),
            context=types.CodeActionContext(diagnostics=[], only=[FIX_ALL]),
        )
    )
    fix_all = [a for a in actions or [] if a.kind == FIX_ALL]
    return apply_edits(text, edits_of(fix_all[0].edit, uri), "utf-16") if fix_all else text


async def test_server_and_cli_agree_on_every_fixture_and_example(client, tmp_path: Path):
    files = _project(tmp_path)
    await start(client, root=tmp_path)
    disagreements = []
    for path in files:
        text = path.read_text()
        uri = open_document(client, path, text)
        published = await diagnostics_for(client, uri, lambda found: True)
        server = sorted(
            [
                (d.range.start.line, d.range.start.character, str(d.code), severity, fixes)
                for d in published
                for severity in [_SEVERITY[d.severity]]
                for fixes in [await _server_fixes(client, uri, d)]
            ]
        )
        cli = _cli_findings(path, tmp_path)
        if server != cli:
            disagreements.append((path.name, sorted(set(server) ^ set(cli))))
        if await _server_fixed(client, uri, text) != _cli_fixed(path, tmp_path):
            disagreements.append((path.name, "fix-all"))
    assert disagreements == []
    assert len(files) == 23  # every fixture and example file


async def test_an_array_from_another_module_is_fixed_by_both_faces(client, tmp_path: Path):
    (tmp_path / "maker.py").write_text(MAKER)
    (tmp_path / "user.py").write_text(USER)
    await start(client, root=tmp_path)
    uri = open_document(client, tmp_path / "user.py", USER)
    published = await diagnostics_for(client, uri, bool)
    assert [str(d.code) for d in published] == ["JAX201"]
    expected = USER.replace("x[0] = 1.0", "x = x.at[0].set(1.0)")
    assert await _server_fixed(client, uri, USER) == expected
    assert _cli_fixed(tmp_path / "user.py", tmp_path) == expected

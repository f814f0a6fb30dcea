"""Code actions on a CRLF document over the real server: every edit's line breaks are the
document's (the fixes write "\\n"; `check --fix` already writes the file's own), and the fixed
program runs."""

from __future__ import annotations

import pytest
from lsprotocol import types

from tests.e2e.conftest import apply_edits, diagnostics_for, edits_of, open_document, start
from tests.runtime import run_snippet

CRLF = (
    "import jax\r\n"
    "import jax.numpy as jnp  # numerics\r\n"
    "\r\n"
    "\r\n"
    "def init(key):\r\n"
    "    w = jax.random.normal(key, (2,))  # weights\r\n"
    "    b = jax.random.normal(key, (2,))  # bias\r\n"
    "    return w, b\r\n"
    "\r\n"
    "\r\n"
    "def step(x):\r\n"
    "    x = jnp.asarray(x)\r\n"
    "    x[1] += 1.0\r\n"
    "    return x\r\n"
    "\r\n"
    "\r\n"
    "class M:\r\n"
    "    def __init__(self, w):\r\n"
    "        self.w = jnp.asarray(w)\r\n"
    "\r\n"
    "    @jax.jit\r\n"
    "    def f(self, x):\r\n"
    "        return self.w * x\r\n"
)
# What each fix makes run (a quick fix fixes its own finding only).
CALLS = {
    "JAX602": "init(jax.random.key(0))",
    "JAX202": "assert step(jnp.zeros(3)).tolist() == [0.0, 1.0, 0.0]",
    "JAX401": "assert M(jnp.ones(1)).f(2.0).tolist() == [2.0]",
    "fix-all": "init(jax.random.key(0)); step(jnp.zeros(3))",
}


def _lf_only(text: str) -> int:
    return text.count("\n") - text.count("\r\n")


def _request(uri: str, diagnostics, only, line: int) -> types.CodeActionParams:
    return types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=uri),
        range=types.Range(types.Position(line, 0), types.Position(line, 0)),
        context=types.CodeActionContext(diagnostics=diagnostics, only=only),
    )


@pytest.mark.parametrize("lazy", [False, True])
async def test_every_action_keeps_crlf_and_the_fixed_program_runs(client, tmp_path, lazy):
    await start(client, resolve=lazy)
    uri = open_document(client, tmp_path / "a.py", CRLF)
    found = await diagnostics_for(client, uri, bool)
    assert {"JAX202", "JAX401", "JAX602"} <= {d.code for d in found}
    actions = []
    for diagnostic in found:
        actions += [
            (diagnostic.code, action)
            for action in await client.text_document_code_action_async(
                _request(uri, [diagnostic], None, diagnostic.range.start.line)
            )
        ]
    actions += [
        ("fix-all", action)
        for action in await client.text_document_code_action_async(
            _request(uri, [], [types.CodeActionKind.SourceFixAll], 0)
        )
    ]
    titles = [a.title for _, a in actions]
    assert any("Register the class as a PyTree" in t for t in titles), titles
    assert any("module-level helper" in t for t in titles), titles
    assert any("Split `key`" in t for t in titles), titles
    assert "jax-lsp: Fix all auto-fixable problems" in titles
    for code, action in actions:
        if action.edit is None:
            action = await client.code_action_resolve_async(action)
        edits = edits_of(action.edit, uri)
        assert all(_lf_only(e.new_text) == 0 for e in edits), (action.title, edits)
        fixed = apply_edits(CRLF, edits, "utf-16")
        assert _lf_only(fixed) == 0, action.title
        if "Disable" in action.title or "debug_nans" in action.title:
            compile(fixed, "<fixed>", "exec")  # a config switch run here would outlive the test
            continue
        outcome = run_snippet(fixed, CALLS[code])
        assert outcome.error is None, f"{action.title}: {outcome.error!r}\n{fixed}"

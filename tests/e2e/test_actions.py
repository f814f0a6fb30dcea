"""Code actions: quickfixes from diagnostic data, noqa, fix-all, debug NaNs, stale requests."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types

from jax_lsp.diagnostics import RULES_BY_CODE
from tests.e2e.conftest import (
    apply_edits,
    change,
    codes,
    diagnostics_for,
    edits_of,
    open_document,
    start,
)
from tests.runtime import run_snippet

GOTCHAS = (
    "import jax.numpy as jnp\n\n"
    "x = jnp.arange(5.0)\n"
    "x[1] += 5.0\n"
    "x.at[0].set(1.0)\n"
    "x[2] = 3.0  # noqa: JAX999\n"
)


def request(uri, diagnostics, only=None, line=3):
    return types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=uri),
        range=types.Range(types.Position(line, 0), types.Position(line, 0)),
        context=types.CodeActionContext(diagnostics=diagnostics, only=only),
    )


def by_title(actions) -> dict[str, types.CodeAction]:
    return {action.title: action for action in actions or []}


@pytest.mark.parametrize("document_changes", [False, True])
async def test_quickfix_applies(client, tmp_path, document_changes):
    await start(client, document_changes=document_changes)
    uri = open_document(client, tmp_path / "a.py", GOTCHAS)
    found = await diagnostics_for(client, uri, bool)
    jax202 = [d for d in found if d.code == "JAX202"]
    actions = by_title(
        await client.text_document_code_action_async(
            request(uri, jax202, [types.CodeActionKind.QuickFix])
        )
    )
    assert set(actions) == {
        "jax-lsp (JAX202): Replace with `x = x.at[1].add(5.0)`",
        "jax-lsp (JAX202): Disable for this line",
    }
    fix = actions["jax-lsp (JAX202): Replace with `x = x.at[1].add(5.0)`"]
    assert fix.is_preferred and fix.kind == types.CodeActionKind.QuickFix
    assert list(fix.diagnostics) == jax202
    assert (fix.edit.document_changes is not None) == document_changes
    fixed = apply_edits(GOTCHAS, edits_of(fix.edit, uri), "utf-16")
    assert fixed.splitlines()[3] == "x = x.at[1].add(5.0)"
    assert fixed.replace("x = x.at[1].add(5.0)", "x[1] += 5.0") == GOTCHAS


async def test_noqa_inserts_and_extends(client, tmp_path):
    await start(client)
    uri = open_document(client, tmp_path / "a.py", GOTCHAS)
    found = await diagnostics_for(client, uri, bool)
    by_code = {d.code: d for d in found}
    assert codes(found) == ["JAX201", "JAX202", "JAX203"]

    action = by_title(
        await client.text_document_code_action_async(request(uri, [by_code["JAX202"]]))
    )["jax-lsp (JAX202): Disable for this line"]
    text = apply_edits(GOTCHAS, edits_of(action.edit, uri), "utf-16")
    assert text.splitlines()[3] == "x[1] += 5.0  # noqa: JAX202"

    action = by_title(
        await client.text_document_code_action_async(request(uri, [by_code["JAX201"]], line=5))
    )["jax-lsp (JAX201): Disable for this line"]
    text = apply_edits(GOTCHAS, edits_of(action.edit, uri), "utf-16")
    assert text.splitlines()[5] == "x[2] = 3.0  # noqa: JAX999, JAX201"

    # The editor applies it: the finding goes away.
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
        )
    )
    after = await diagnostics_for(client, uri, lambda found: len(found) == 2)
    assert codes(after) == ["JAX202", "JAX203"]


@pytest.mark.parametrize("lazy", [False, True])
async def test_fix_all(client, tmp_path, lazy):
    await start(client, resolve=lazy)
    uri = open_document(client, tmp_path / "a.py", GOTCHAS)
    await diagnostics_for(client, uri, bool)
    actions = await client.text_document_code_action_async(
        request(uri, [], [types.CodeActionKind.SourceFixAll])
    )
    (action,) = actions
    assert action.kind == "source.fixAll.jax-lsp"
    if lazy:
        assert action.edit is None
        action = await client.code_action_resolve_async(action)
    fixed = apply_edits(GOTCHAS, edits_of(action.edit, uri), "utf-16")
    assert fixed == (
        "import jax.numpy as jnp\n\n"
        "x = jnp.arange(5.0)\n"
        "x = x.at[1].add(5.0)\n"
        "x = x.at[0].set(1.0)\n"
        "x = x.at[2].set(3.0)  # noqa: JAX999\n"
    )


# One function half-typed (a call not yet closed), another with a half-typed `if`: the
# functions that parse are fixed, the two being typed are left byte for byte, their own
# JAX202 included (its unit was analysed as repaired).
HALF_TYPED = (
    "import jax.numpy as jnp\r\n\r\n\r\n"
    "def step():\r\n    x = jnp.zeros(3)\r\n    x[0] = 1.0  # first\r\n    return x\r\n\r\n\r\n"
    "def typing(y):\r\n    z = jnp.sum(y +\r\n    return z\r\n\r\n\r\n"
    "def other():\r\n    x = jnp.zeros(3)\r\n    x[1] += 2.0\r\n    if x.sum() > 0\r\n"
    "    return x\r\n\r\n\r\n"
    "def late():\r\n    x = jnp.zeros(3)\r\n    x.at[1].set(2.0)\r\n    return x\r\n"
)


async def test_fix_all_fixes_the_parts_that_parse_around_half_typed_lines(client, tmp_path):
    await start(client)
    uri = open_document(client, tmp_path / "a.py", HALF_TYPED)
    found = await diagnostics_for(client, uri, bool)
    assert codes(found) == ["JAX201", "JAX202", "JAX203", "invalid-syntax"]
    (action,) = await client.text_document_code_action_async(
        request(uri, [], [types.CodeActionKind.SourceFixAll])
    )
    fixed = apply_edits(HALF_TYPED, edits_of(action.edit, uri), "utf-16")
    assert fixed == HALF_TYPED.replace("x[0] = 1.0", "x = x.at[0].set(1.0)").replace(
        "    x.at[1].set(2.0)", "    x = x.at[1].set(2.0)"
    )
    # The fixed function runs as meant; the half-typed ones are still there, unchanged.
    step = fixed.split("\r\n\r\n\r\ndef typing")[0].replace("\r\n", "\n")
    outcome = run_snippet(step, "assert step().tolist() == [1.0, 0.0, 0.0]")
    assert outcome.error is None, outcome.error
    assert (
        "    z = jnp.sum(y +\r\n" in fixed and "    x[1] += 2.0\r\n    if x.sum() > 0\r\n" in fixed
    )


async def test_stale_markers_get_the_current_findings_at_the_range(client, tmp_path):
    """Ctrl+. right after an edit: the client's markers are of the old text
    (their edits would land one line off), the range is the new text's. The answer is the
    current version's findings at that range, never the old markers' fixes."""
    await start(client, resolve=True)
    uri = open_document(client, tmp_path / "a.py", GOTCHAS)
    found = await diagnostics_for(client, uri, bool)
    fix_all = (
        await client.text_document_code_action_async(
            request(uri, [], [types.CodeActionKind.SourceFixAll])
        )
    )[0]
    change(client, uri, 2, "\n", (0, 0))  # every line moves down: version 1's edits are wrong
    # Line 3 now holds `x = jnp.arange(5.0)`: nothing to fix there, whatever the old markers.
    stale = await client.text_document_code_action_async(request(uri, found))
    assert [action.kind for action in stale or []] == [
        "source.fixAll.jax-lsp",
        "source.jax-lsp.enableDebugNans",
    ]  # no quick fix of the old markers
    # Sent at once after the change, on the line that `x[1] += 5.0` moved to (line 4), with
    # the old JAX202 marker still at line 3: the fix of the new text.
    jax202 = [d for d in found if d.code == "JAX202"]
    change(client, uri, 3, "", (0, 0))  # a version the server has not analysed yet
    actions = by_title(
        await client.text_document_code_action_async(
            request(uri, jax202, [types.CodeActionKind.QuickFix], line=4)
        )
    )
    fix = actions["jax-lsp (JAX202): Replace with `x = x.at[1].add(5.0)`"]
    assert {d.range.start.line for d in fix.diagnostics} == {4}
    assert apply_edits("\n" + GOTCHAS, edits_of(fix.edit, uri), "utf-16") == "\n" + (
        GOTCHAS.replace("x[1] += 5.0", "x = x.at[1].add(5.0)")
    )
    noqa = actions["jax-lsp (JAX202): Disable for this line"]
    assert apply_edits("\n" + GOTCHAS, edits_of(noqa.edit, uri), "utf-16").split("\n")[4] == (
        "x[1] += 5.0  # noqa: JAX202"
    )
    resolved = await client.code_action_resolve_async(fix_all)
    assert resolved.edit is None
    # Fix-all asked with the old markers (saving right after an edit): made on the new text.
    (fresh,) = await client.text_document_code_action_async(
        request(uri, found, [types.CodeActionKind.SourceFixAll])
    )
    fixed = apply_edits(
        "\n" + GOTCHAS,
        edits_of((await client.code_action_resolve_async(fresh)).edit, uri),
        "utf-16",
    )
    assert fixed.startswith(
        "\nimport jax.numpy as jnp\n\nx = jnp.arange(5.0)\nx = x.at[1].add(5.0)\n"
    )


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            '"""Doc."""\nimport jax.numpy as jnp\n\nx = 1\n',
            '"""Doc."""\nimport jax.numpy as jnp\nimport jax\n\n'
            'jax.config.update("jax_debug_nans", True)\n\nx = 1\n',
        ),
        (
            "import jax\r\nfrom jax import numpy as jnp\r\nx = 1\r\n",
            "import jax\r\nfrom jax import numpy as jnp\r\n\r\n"
            'jax.config.update("jax_debug_nans", True)\r\n\r\nx = 1\r\n',
        ),
        ("import jax", 'import jax\n\njax.config.update("jax_debug_nans", True)'),
    ],
)
async def test_enable_debug_nans(client, tmp_path, text, expected):
    await start(client)
    uri = open_document(client, tmp_path / "a.py", text)
    (action,) = await client.text_document_code_action_async(
        request(uri, [], ["source.jax-lsp"], line=0)
    )
    assert action.kind == "source.jax-lsp.enableDebugNans"
    assert apply_edits(text, edits_of(action.edit, uri), "utf-16") == expected


async def test_hover(client, tmp_path):
    await start(client)
    uri = open_document(client, tmp_path / "a.py", GOTCHAS)
    await diagnostics_for(client, uri, bool)
    hover = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(3, 1)
        )
    )
    value = hover.contents.value
    assert hover.contents.kind == types.MarkupKind.Markdown
    assert hover.range == types.Range(types.Position(3, 0), types.Position(3, 4))
    # One short explanation (not the diagnostic's message again), one pair, the link.
    assert value.startswith("**JAX202** index-augassign · `x[idx] += v` reads `x[idx]`")
    assert "`x` is a JAX array" not in value
    assert "```python\n# wrong\nx[1] += 5.0\n# right\nx = x.at[1].add(5.0)\n```" in value
    assert value.count("```python") == 1
    assert value.endswith(f"[JAX202 documentation]({RULES_BY_CODE['JAX202'].url()})")
    assert len(value.splitlines()) <= 10
    nothing = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(2, 1)
        )
    )
    assert nothing is None


TRACED_PRINT = (
    "import jax\n\n\ndef step(x):\n    print(x)\n    return x\n\n\nfast = jax.jit(step)\n"
)
TRACED_HERE = "- line 9: `jax.jit` traces `step` here"


@pytest.mark.parametrize(
    ("related", "client_name", "listed"),
    [
        (True, "Visual Studio Code", False),  # shown under the message: not twice
        (False, None, True),  # the client shows no relatedInformation: the hover does
        (True, "Neovim", True),  # declares relatedInformation, shows it nowhere
    ],
)
async def test_hover_lists_related_places_only_where_the_client_does_not(
    client, tmp_path, related, client_name, listed
):
    await start(client, related=related, client_name=client_name)
    uri = open_document(client, tmp_path / "a.py", TRACED_PRINT)
    (finding,) = await diagnostics_for(client, uri, bool)
    assert [item.message for item in finding.related_information] == [
        "`jax.jit` traces `step` here"
    ]
    hover = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(4, 5)
        )
    )
    value = hover.contents.value
    assert value.startswith("**JAX101**")
    assert (TRACED_HERE in value) is listed
    assert value.endswith(f"[JAX101 documentation]({RULES_BY_CODE['JAX101'].url()})")


UNSAFE_ONLY = "class Model:\n    def reset(self):\n        self.buf.at[0].set(0.0)\n"


@pytest.mark.parametrize("unsafe", [False, True])
async def test_unsafe_fixes_setting(client, tmp_path, unsafe):
    await start(client, options={"unsafeFixes": unsafe})
    uri = open_document(client, tmp_path / "a.py", UNSAFE_ONLY)
    (diagnostic,) = await diagnostics_for(client, uri, bool)
    assert diagnostic.data["fixes"][0]["safe"] is False
    quickfix = by_title(await client.text_document_code_action_async(request(uri, [diagnostic])))[
        "jax-lsp (JAX203): Assign the result: `self.buf = ...` (unsafe)"
    ]
    assert not quickfix.is_preferred
    actions = await client.text_document_code_action_async(
        request(uri, [], [types.CodeActionKind.SourceFixAll], line=2)
    )
    if not unsafe:
        assert actions is None  # nothing fix-all may touch: not offered
        return
    (fix_all,) = actions
    fixed = apply_edits(UNSAFE_ONLY, edits_of(fix_all.edit, uri), "utf-16")
    assert fixed.splitlines()[2] == "        self.buf = self.buf.at[0].set(0.0)"


async def test_client_that_drops_data_still_gets_fixes(client, tmp_path):
    await start(client)
    uri = open_document(client, tmp_path / "a.py", GOTCHAS)
    found = await diagnostics_for(client, uri, bool)
    (jax202,) = [d for d in found if d.code == "JAX202"]
    jax202.data = None
    actions = by_title(await client.text_document_code_action_async(request(uri, [jax202])))
    assert "jax-lsp (JAX202): Replace with `x = x.at[1].add(5.0)`" in actions


MASKED_SUM = (
    "import jax\n"
    "import jax.numpy as jnp\n\n"
    "@jax.jit\n"
    "def positive_sum(x):\n"
    "    return x[x > 0].sum()\n"
)


async def test_deferred_codemod_fixes_are_built_on_request(client, tmp_path):
    await start(client)
    uri = open_document(client, tmp_path / "a.py", MASKED_SUM)
    (diagnostic,) = await diagnostics_for(client, uri, bool)
    assert diagnostic.code == "JAX801"
    assert diagnostic.data["fixes"] == []
    assert diagnostic.data["deferred"] == [{"codemod": "where_mask", "line": 5, "column": 11}]
    actions = await client.text_document_code_action_async(
        request(uri, [diagnostic], [types.CodeActionKind.QuickFix], line=5)
    )
    fixes = [
        a for a in actions if a.title.startswith("jax-lsp (JAX801)") and "Disable" not in a.title
    ]
    assert len(fixes) == 2 and fixes[0].is_preferred and not fixes[1].is_preferred
    fixed = apply_edits(MASKED_SUM, edits_of(fixes[0].edit, uri), "utf-16")
    assert fixed.splitlines()[5] == "    return jnp.where(x > 0, x, 0).sum()"


async def test_named_tuple_field_quickfix_runs_as_meant(client, tmp_path):
    """A tester's program (a discarded `.at[].add` on a NamedTuple field): the editor's quick
    fix rebinds the tuple with `_replace` (assigning the field raised AttributeError), and the
    fixed program moves the particle as its author meant."""
    trials = Path(__file__).parent.parent / "fixtures" / "trials"
    program = (trials / "p31_namedtuple_update.py").read_text()
    await start(client)
    uri = open_document(client, tmp_path / "kick.py", program)
    found = await diagnostics_for(client, uri, bool)
    (jax203,) = [d for d in found if d.code == "JAX203"]
    line = jax203.range.start.line
    actions = by_title(
        await client.text_document_code_action_async(
            request(uri, [jax203], [types.CodeActionKind.QuickFix], line=line)
        )
    )
    fix = actions["jax-lsp (JAX203): Assign the result: `p = ...` (unsafe)"]
    fixed = apply_edits(program, edits_of(fix.edit, uri), "utf-16")
    assert fixed.splitlines()[line] == "    p = p._replace(vel=p.vel.at[i].add(dv))"
    outcome = run_snippet(fixed, "assert p.vel.tolist() == [1.0, 0.0, 0.0]")
    assert outcome.error is None, f"{outcome.error!r}\n{fixed}"

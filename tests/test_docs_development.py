"""docs/development.md stays true: its worked examples run against the code (the rule finds what
its INVALID example marks, with the fix the fix example builds), and every path and dotted name
it cites exists."""

from __future__ import annotations

import asyncio
import importlib
import re
import sys
import textwrap
import types
from pathlib import Path

import pytest
from lsprotocol import types as lsp_types

from jax_lsp.analysis.document import Document
from jax_lsp.analysis.model import ModuleModel
from jax_lsp.config import Settings
from jax_lsp.engine import analyze, check_source, traced_functions
from jax_lsp.findings import Applicability
from jax_lsp.lsp.hover import hover
from jax_lsp.server import _features
from jax_lsp.settings_table import OPTIONS
from jax_lsp.text import split_lines
from jax_lsp.workspace import Workspace
from tests import test_settings_table as table_test

ROOT = Path(__file__).resolve().parent.parent
PAGE = (ROOT / "docs" / "development.md").read_text(encoding="utf-8")


def code_blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", PAGE, re.DOTALL)


def section(title: str) -> str:
    return PAGE.split(f"## {title}\n", 1)[1].split("\n## ", 1)[0]


def blocks_in(title: str, language: str = "python") -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", section(title), re.DOTALL)


@pytest.fixture
def worked_rule(monkeypatch):
    """The page's rule class, with its fix function importable where the page says it lives."""
    (fix_source,) = blocks_in("A new fix")
    fixes = types.ModuleType("jax_lsp.codeactions.breakpoints")
    exec(compile(fix_source, "development.md: fix", "exec"), fixes.__dict__)
    monkeypatch.setitem(sys.modules, fixes.__name__, fixes)
    (rule_source,) = blocks_in("A new rule")
    namespace: dict = {}
    exec(compile(rule_source, "development.md: rule", "exec"), namespace)
    return namespace["LeftoverBreakpoint"]


def test_the_worked_rule_and_fix_run(worked_rule):
    (invalid,) = worked_rule.invalid
    source = textwrap.dedent(invalid.source)
    (finding,) = analyze(Document(source), (worked_rule,)).findings
    marked = [i for i, line in enumerate(source.split("\n")) if line.endswith("# error")]
    assert [finding.span.start.line] == marked and finding.code == "JAX1099"
    (edit,) = finding.fix.edits
    line = source.split("\n")[edit.span.start.line]
    assert line[edit.span.start.column : edit.span.end.column] == "jax.debug.breakpoint()"
    assert edit.content == "None" and finding.fix.applicability is Applicability.UNSAFE
    (valid,) = worked_rule.valid
    assert analyze(Document(textwrap.dedent(valid.source)), (worked_rule,)).findings == []
    # Aliases resolve, as the page says.
    aliased = "from jax import debug as d\n\nd.breakpoint()\n"
    assert len(analyze(Document(aliased), (worked_rule,)).findings) == 1


def test_the_one_entry_example_runs(tmp_path):
    (entry,) = [block for block in blocks_in("The floors") if "check_source" in block]
    entry = entry.replace('"/path/to/project"', repr(str(tmp_path)))
    namespace = {"text": "import jax.numpy as jnp\n\nx = jnp.zeros(3)\nx[0] = 1\n"}
    exec(compile(entry, "development.md: entry", "exec"), namespace)
    assert [f.code for f in namespace["analysis"].findings] == ["JAX201"]


def test_the_lsp_feature_example_converts_what_the_engine_gives(tmp_path):
    conversion, handler = blocks_in("A new LSP feature")
    namespace: dict = {}
    exec(compile(conversion, "development.md: conversion", "exec"), namespace)
    text = "import jax\n\n\n@jax.jit\ndef f(x, n):\n    return x * n\n"
    analysis = check_source(text, str(tmp_path / "f.py"), Settings(), Workspace(str(tmp_path)))
    functions = traced_functions(analysis)
    (symbol,) = namespace["traced_symbols"](functions, split_lines(text), "utf-16")
    assert symbol.name == "f" and symbol.detail == "jit · traced: x, n"
    assert (symbol.range.start.line, symbol.range.start.character) == (4, 4)

    # The handler, with the engine's answer standing in for the engine thread's.
    async def answer(ls, document):
        return functions

    namespace |= {"traced_functions_of": answer}
    exec(compile(handler, "development.md: handler", "exec"), namespace)
    document = types.SimpleNamespace(lines=split_lines(text))
    ls = types.SimpleNamespace(
        documents={"file:///f.py": document}, client=types.SimpleNamespace(encoding="utf-16")
    )
    params = lsp_types.DocumentSymbolParams(lsp_types.TextDocumentIdentifier("file:///f.py"))
    (served,) = asyncio.run(namespace["document_symbols"](ls, params))
    assert served == symbol
    # Registered in the form the page shows: (method, handler, options).
    assert hasattr(lsp_types, "TEXT_DOCUMENT_DOCUMENT_SYMBOL")
    assert (lsp_types.TEXT_DOCUMENT_HOVER, hover, None) in _features()


def test_the_option_example_is_a_row_the_table_test_asks_for(monkeypatch):
    (row,) = blocks_in("A new option")
    imports, expression = row.split("\n\n", 1)
    namespace: dict = {}
    exec(compile(imports, "development.md: option", "exec"), namespace)
    option = eval(compile(expression, "development.md: option", "eval"), namespace)
    assert option.camel == "warnUnusedNoqa" and option.field == "warn_unused_noqa"
    # A row alone is not enough: the table's test names the field and the flag still missing.
    monkeypatch.setattr(table_test, "OPTIONS", (*OPTIONS, option))
    with pytest.raises(AssertionError, match="warn_unused_noqa"):
        table_test.test_every_settings_field_has_one_row()
    with pytest.raises(AssertionError, match="--warn-unused-noqa"):
        table_test.test_the_check_flags_are_the_tables()


def test_the_editor_example_is_the_recipe():
    (snippet,) = code_blocks("toml")
    assert snippet in (ROOT / "editors" / "helix" / "languages.toml").read_text(encoding="utf-8")


def test_every_cited_path_exists():
    cited = set(
        re.findall(
            r"`((?:jax_lsp|tests|editors|docs|analysis|lsp|codeactions|vscode-extension)/[^`<>*]+)`",
            PAGE,
        )
    )
    cited |= set(
        re.findall(r"\b((?:cli|checking|reporting|server|engine|workspace|findings)\.py)\b", PAGE)
    )
    assert cited
    for path in sorted(cited):
        candidates = [ROOT / path, ROOT / "jax_lsp" / path]
        assert any(c.exists() for c in candidates), path


def _resolve(dotted: str) -> object:
    """`jax_lsp.x.y.Name.attribute`: import the longest module prefix, then get attributes."""
    parts = dotted.split(".")
    for split in range(len(parts), 0, -1):
        try:
            found: object = importlib.import_module(".".join(parts[:split]))
        except ModuleNotFoundError:
            continue
        for attribute in parts[split:]:
            found = getattr(found, attribute)
        return found
    raise ModuleNotFoundError(dotted)


NAMES = {
    "ModuleModel.module_state": "jax_lsp.analysis.model.ModuleModel.module_state",
    "unit_keys.UnitKey": "jax_lsp.analysis.unit_keys.UnitKey",
    "UnitKeys.unit_globals_key": "jax_lsp.analysis.unit_keys.UnitKeys.unit_globals_key",
    "UnitKeys.member_keys": "jax_lsp.analysis.unit_keys.UnitKeys.member_keys",
    "StagingFacts.static_signatures": "jax_lsp.analysis.staging.StagingFacts.static_signatures",
    "UnitReads": "jax_lsp.analysis.reads.UnitReads",
    "@keyed": "jax_lsp.analysis.reads.keyed",
    "keyed_metadata()": "jax_lsp.analysis.reads.keyed_metadata",
    "@at_document_lines": "jax_lsp.analysis.reads.at_document_lines",
    "@asked_at_unit_start": "jax_lsp.analysis.reads.asked_at_unit_start",
    "reads.reuse_of": "jax_lsp.analysis.reads.reuse_of",
    "Keyed.reaches_members": "jax_lsp.analysis.reads.Keyed.reaches_members",
    "ReadLog.unit_start": "jax_lsp.analysis.recorded.ReadLog.unit_start",
    "class_named": "jax_lsp.analysis.model.ModuleModel.class_named",
    "UnitKeys.module_facts_key": "jax_lsp.analysis.unit_keys.UnitKeys.module_facts_key",
    "UnitKeys.compute_unit_key": "jax_lsp.analysis.unit_keys.UnitKeys.compute_unit_key",
    "RecordingView": "jax_lsp.analysis.recorded.RecordingView",
    "ReadLog": "jax_lsp.analysis.recorded.ReadLog",
    "Recheck.holds": "jax_lsp.analysis.recorded.Recheck.holds",
    "ModuleState": "jax_lsp.analysis.module_state.ModuleState",
    "UnitSource.memo": "jax_lsp.analysis.document.UnitSource",
    "unit_memo.per_unit": "jax_lsp.analysis.unit_memo.per_unit",
    "Keyed": "jax_lsp.analysis.unit_memo.Keyed",
    "ModuleModel.aliases": "jax_lsp.analysis.model.ModuleModel",
    "ModuleModel.imported": "jax_lsp.analysis.model.ModuleModel",
    "UnitKeys.unit_globals": "jax_lsp.analysis.unit_keys.UnitKeys.unit_globals",
    "UnitMemo.keep": "jax_lsp.analysis.unit_memo.UnitMemo.keep",
    "UnitMemo.kept": "jax_lsp.analysis.unit_memo.UnitMemo.kept",
    "Document.lineage.reuse": "jax_lsp.analysis.lineage.Lineage.reuse",
    "Lineage.reuse_each": "jax_lsp.analysis.lineage.Lineage.reuse_each",
    "scope_facts._local_refs": "jax_lsp.analysis.scope_facts._local_refs",
    "_UnitFindings.methods": "jax_lsp.diagnostics.runner._UnitFindings.methods",
    "UnitSource.spliced_from": "jax_lsp.analysis.document.UnitSource",
    "Lineage.analysed_again": "jax_lsp.analysis.lineage.Lineage",
    "Finding.deferred": "jax_lsp.findings.Finding",
    "DeferredFix": "jax_lsp.findings.DeferredFix",
    "codeactions.with_deferred_fixes": "jax_lsp.codeactions.with_deferred_fixes",
    "engine.traced_functions": "jax_lsp.engine.traced_functions",
    "fix_source": "jax_lsp.engine.fix_source",
    "Workspace": "jax_lsp.workspace.Workspace",
    "RULES": "jax_lsp.diagnostics.inplace.RULES",
    "_features": "jax_lsp.server._features",
    "hints.traced_functions_of": "jax_lsp.lsp.hints.traced_functions_of",
    "ls.client.supports": "jax_lsp.lsp.client.ClientFeatures.supports",
    "ls.settings.code_lens": "jax_lsp.lsp.settings.SettingsStore.code_lens",
    "OPTIONS": "jax_lsp.settings_table.OPTIONS",
    "SETTING_KEYS": "jax_lsp.settings_table.SETTING_KEYS",
    "config._parse": "jax_lsp.config._parse",
    "Settings.merged": "jax_lsp.config.Settings.merged",
    "SettingsStore.for_path": "jax_lsp.lsp.settings.SettingsStore.for_path",
    "build_parser": "jax_lsp.cli.build_parser",
}


@pytest.mark.parametrize("cited", sorted(NAMES))
def test_every_cited_name_exists(cited):
    assert f"`{cited}`" in PAGE or cited in PAGE
    assert _resolve(NAMES[cited]) is not None


def test_the_fact_example_is_memoised_by_its_function_and_arguments():
    (fact_source,) = blocks_in("A new module-level fact")
    namespace: dict = {}
    exec(compile(fact_source, "development.md: fact", "exec"), namespace)
    text = "from jax import debug as d\n\n\ndef f(x):\n    d.breakpoint()\n    return x\n"
    model = ModuleModel(Document(text))
    unit = model.document.units[-1]
    lines = namespace["breakpoint_lines"](unit.source, model.aliases)
    assert lines == (2,)
    assert namespace["breakpoint_lines"](unit.source, model.aliases) is lines  # memoised

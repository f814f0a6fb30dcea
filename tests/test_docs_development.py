"""docs/development.md stays true: its worked examples run against the code (the rule finds what
its INVALID example marks, with the fix the fix example builds), and every path and dotted name
it cites exists."""

from __future__ import annotations

import importlib
import re
import sys
import textwrap
import types
from pathlib import Path

import pytest

from jax_lsp.analysis.document import Document
from jax_lsp.engine import analyze
from jax_lsp.findings import Applicability

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


def test_the_editor_example_is_the_recipe():
    (snippet,) = code_blocks("toml")
    assert snippet in (ROOT / "editors" / "helix" / "languages.toml").read_text(encoding="utf-8")


def test_every_cited_path_exists():
    cited = set(
        re.findall(r"`((?:jax_lsp|tests|editors|docs|analysis|lsp|codeactions)/[^`<>*]+)`", PAGE)
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
    "ModuleModel.unit_key": "jax_lsp.analysis.model.ModuleModel.unit_key",
    "ModuleModel.unit_globals_key": "jax_lsp.analysis.model.ModuleModel.unit_globals_key",
    "UnitReads": "jax_lsp.analysis.reads.UnitReads",
    "RECORDED": "jax_lsp.analysis.reads.RECORDED",
    "KEYED": "jax_lsp.analysis.reads.KEYED",
    "ModuleModel._module_facts_key": "jax_lsp.analysis.model.ModuleModel._module_facts_key",
    "ModuleState": "jax_lsp.analysis.module_state.ModuleState",
    "UnitSource.memo": "jax_lsp.analysis.document.UnitSource",
    "Document.lineage.reuse": "jax_lsp.analysis.lineage.Lineage.reuse",
    "Lineage.reuse_each": "jax_lsp.analysis.lineage.Lineage.reuse_each",
    "ModuleModel._local_refs": "jax_lsp.analysis.model.ModuleModel._local_refs",
    "Finding.deferred": "jax_lsp.findings.Finding",
    "DeferredFix": "jax_lsp.findings.DeferredFix",
    "codeactions.with_deferred_fixes": "jax_lsp.codeactions.with_deferred_fixes",
    "engine.traced_functions": "jax_lsp.engine.traced_functions",
    "fix_source": "jax_lsp.engine.fix_source",
    "Workspace": "jax_lsp.workspace.Workspace",
    "RULES": "jax_lsp.diagnostics.inplace.RULES",
}


@pytest.mark.parametrize("cited", sorted(NAMES))
def test_every_cited_name_exists(cited):
    assert f"`{cited}`" in PAGE or cited in PAGE
    assert _resolve(NAMES[cited]) is not None

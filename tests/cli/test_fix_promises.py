"""What `check` promises is what `--fix` does: for every fixture and example, the findings marked
fixable (`[*]`, the JSON `fix` field, "N fixable"), deferred codemods included, are the ones
`--fix` (and `--fix --unsafe-fixes`) fixes, in every output format."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from tests.cli.helpers import jax_lsp

ROOT = Path(__file__).resolve().parents[2]
FILES = sorted((ROOT / "examples").glob("*.py")) + sorted((ROOT / "tests/fixtures").glob("*.py"))


def _the_fix(row: dict, unsafe: bool) -> bool:
    """Whether `--fix` applies a fix for the JSON row: its first safe fix, or (with
    `--unsafe-fixes`) its only fix; several unsafe choices are left to the user."""
    offered = [fix for fix in (row["fix"], *row["alternatives"]) if fix]
    safe = [fix for fix in offered if fix["applicability"] == "safe"]
    return bool(safe) or (unsafe and len(offered) == 1)


def _fixed_count(stdout: str) -> int:
    match = re.search(r"Fixed (\d+) finding", stdout)
    return int(match.group(1)) if match else 0


@pytest.mark.parametrize("source", FILES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_predicted_fixes_are_the_fixes_applied(source: Path, tmp_path: Path):
    path = tmp_path / source.name
    shutil.copy(source, path)
    name = path.name

    rows = json.loads(
        jax_lsp("check", "--select", "ALL", "--output-format", "json", name, cwd=tmp_path).stdout
    )
    safe = sum(1 for r in rows if _the_fix(r, unsafe=False))
    any_fix = sum(1 for r in rows if _the_fix(r, unsafe=True))
    text = jax_lsp("check", "--select", "ALL", "--output-format", "concise", name, cwd=tmp_path)
    unsafe_text = jax_lsp("check", "--select", "ALL", "--unsafe-fixes", name, cwd=tmp_path)
    sarif = json.loads(
        jax_lsp("check", "--select", "ALL", "--output-format", "sarif", name, cwd=tmp_path).stdout
    )
    results = sarif["runs"][0]["results"]

    assert text.stdout.count(" [*] ") == safe
    assert (f"[*] {safe} fixable" in text.stdout) == bool(safe)
    assert unsafe_text.stdout.count(" [*] ") == any_fix
    assert [r["fixes"][0]["properties"]["applicability"] for r in results if "fixes" in r] == [
        r["fix"]["applicability"] for r in rows if r["fix"]
    ]

    assert (
        _fixed_count(jax_lsp("check", "--select", "ALL", "--fix", name, cwd=tmp_path).stdout)
        == safe
    )
    after = json.loads(
        jax_lsp("check", "--select", "ALL", "--output-format", "json", name, cwd=tmp_path).stdout
    )
    assert not [r for r in after if _the_fix(r, unsafe=False)]

    shutil.copy(source, path)
    unsafe = jax_lsp("check", "--select", "ALL", "--fix", "--unsafe-fixes", name, cwd=tmp_path)
    assert _fixed_count(unsafe.stdout) == any_fix


def test_a_jitted_mask_reduction_and_method_show_their_codemod_fixes(tmp_path: Path):
    source = (
        "import jax\nimport jax.numpy as jnp\n\n\n@jax.jit\ndef positive_sum(x):\n"
        "    return x[x > 0].sum()\n"
    )
    (tmp_path / "mask.py").write_text(source)
    rows = json.loads(jax_lsp("check", "--output-format", "json", "mask.py", cwd=tmp_path).stdout)
    assert [r["code"] for r in rows] == ["JAX801"]
    assert rows[0]["fix"] is not None
    # Two rewrites (`jnp.where(mask, x, 0)`, `where=mask`) that compute the same: the first.
    fixed = jax_lsp("check", "--fix", "--unsafe-fixes", "mask.py", cwd=tmp_path)
    assert "Fixed 1 finding." in fixed.stdout

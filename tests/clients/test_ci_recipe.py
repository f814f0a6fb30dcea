"""The GitHub Actions recipe in docs/ci: its `jax-lsp check` step writes SARIF that code
scanning accepts (version 2.1.0, rules, results with relative file locations)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import yaml

from tests.clients.tools import REPO

RECIPE = REPO / "docs" / "ci" / "github-code-scanning.yml"
GOTCHA = "import jax.numpy as jnp\n\nx = jnp.zeros(3)\nx[0] = 1.0\n"


def check_step() -> str:
    steps = yaml.safe_load(RECIPE.read_text())["jobs"]["jax-lsp"]["steps"]
    (command,) = [step["run"] for step in steps if "jax-lsp check" in step.get("run", "")]
    upload = [step for step in steps if step.get("uses", "").startswith("github/codeql-action")]
    assert upload[0]["with"]["sarif_file"] in command
    return command


def test_recipe_check_step_writes_code_scanning_sarif(tmp_path: Path) -> None:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "gotcha.py").write_text(GOTCHA)
    # The step's `jax-lsp` is this checkout's CLI.
    command = check_step().replace("jax-lsp check", f"{sys.executable} -m jax_lsp check", 1)
    environment = {**os.environ, "PYTHONPATH": str(REPO)}
    run = subprocess.run(command, shell=True, cwd=tmp_path, env=environment, timeout=120)
    assert run.returncode == 0  # --exit-zero: the upload step must still run
    sarif = json.loads((tmp_path / "jax-lsp.sarif").read_text())
    assert sarif["version"] == "2.1.0"
    (only_run,) = sarif["runs"]
    assert only_run["tool"]["driver"]["name"] == "jax-lsp"
    rule_ids = [rule["id"] for rule in only_run["tool"]["driver"]["rules"]]
    (result,) = only_run["results"]
    assert result["ruleId"] == "JAX201" and rule_ids[result["ruleIndex"]] == "JAX201"
    location = result["locations"][0]["physicalLocation"]
    assert location["artifactLocation"]["uri"] == "pkg/gotcha.py"  # relative to the checkout
    assert location["region"]["startLine"] == 4

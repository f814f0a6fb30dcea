"""Absolute imports of a script (a module in a folder that is no package) resolve first in its
own folder, as `python scripts/run.py` puts that folder first on `sys.path`; a module of a
package resolves them from the project's root. The answer is the same wherever `check` runs
and whatever folder the editor opened."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from jax_lsp.engine import analysing_once
from tests.analysis.test_project_traces import check, write
from tests.cli.helpers import jax_lsp

CLEAN_UTILS = """
    import jax.numpy as jnp


    def scale(x, factor):
        return jnp.where(factor > 1.0, x * factor, x)
"""

BRANCHING_UTILS = """
    def scale(x, factor):
        if factor > 1.0:
            x = x * factor
        return x
"""

RUN = """
    import jax

    from utils import scale


    @jax.jit
    def step(x, factor):
        return scale(x, factor)
"""


def check_rows(root: Path, target: str, cwd: Path) -> list[tuple[str, int, str]]:
    try:
        run = jax_lsp("check", "--output-format", "json", "--jobs", "1", target, cwd=cwd)
    finally:
        analysing_once(False)  # as the other tests of this process expect
    return sorted(
        (Path(f["filename"]).relative_to(root).as_posix(), f["location"]["row"], f["code"])
        for f in json.loads(run.stdout)
    )


@pytest.fixture
def scripts_project(tmp_path: Path) -> Path:
    root = tmp_path.resolve()
    write(
        root,
        {"utils.py": CLEAN_UTILS, "scripts/utils.py": BRANCHING_UTILS, "scripts/run.py": RUN},
    )
    return root


def test_a_script_imports_its_sibling_before_the_root_module(scripts_project: Path):
    root = scripts_project
    expected = [("scripts/utils.py", 2, "JAX701")]
    assert check_rows(root, ".", cwd=root) == expected
    assert check_rows(root, "scripts", cwd=root) == expected
    assert check_rows(root, ".", cwd=root / "scripts") == expected
    (root / "pyproject.toml").write_text("[tool.jax-lsp]\n")
    assert check_rows(root, ".", cwd=root) == expected
    # The editor, opened on the root, shows it on the sibling and nothing on the root's module.
    assert [f.code for f in check(root, "scripts/utils.py").findings] == ["JAX701"]
    assert check(root, "utils.py").findings == []


def test_a_package_module_imports_from_the_root(scripts_project: Path):
    root = scripts_project
    (root / "scripts" / "__init__.py").write_text("")
    # `python -m scripts.run` from the root: `utils` is the root's module, which is clean.
    assert check_rows(root, ".", cwd=root) == []
    assert check(root, "scripts/utils.py").findings == []

"""64-bit mode switched on elsewhere in the program: another module of the package, a script
that imports the module, the project's test or tool configuration (JAX901 then stays quiet)."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from jax_lsp.analysis import x64
from jax_lsp.analysis.document import Document
from jax_lsp.analysis.x64 import project_enables_x64
from jax_lsp.config import load_settings
from jax_lsp.diagnostics import RULES_BY_CODE
from jax_lsp.engine import analyze

USER = "import jax.numpy as jnp\n\nx = jnp.zeros(3, dtype=jnp.float64)\n"
ENABLES = 'import jax\n\njax.config.update("jax_enable_x64", True)\n'


def _write(folder: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")
    # Folder answers are reused for a few seconds; a test cannot wait: forget them.
    x64._project_answers.clear()


def _jax901_lines(path: Path, rule: str = "JAX901") -> list[int]:
    document = Document(path.read_text(encoding="utf-8"), str(path))
    findings = analyze(document, (RULES_BY_CODE[rule],)).findings
    return [f.span.start.line for f in findings]


def test_another_module_of_the_package_enables_x64(tmp_path):
    _write(tmp_path, {"pkg/__init__.py": "", "pkg/sub/__init__.py": "", "pkg/sub/ops.py": USER})
    ops = tmp_path / "pkg" / "sub" / "ops.py"
    assert _jax901_lines(ops) == [2]
    _write(tmp_path, {"pkg/workflow.py": ENABLES})
    assert project_enables_x64(str(ops))
    assert _jax901_lines(ops) == []


def test_the_file_s_own_switch_is_not_a_project_fact(tmp_path):
    late = "import jax\nimport jax.numpy as jnp\n\nw = jnp.ones(3)\n" + ENABLES.split("\n\n")[1]
    _write(tmp_path, {"pkg/__init__.py": "", "pkg/main.py": late})
    main = tmp_path / "pkg" / "main.py"
    assert not project_enables_x64(str(main))
    assert _jax901_lines(main, "JAX902") == [4]


def test_scripts_in_a_folder_are_separate_programs(tmp_path):
    _write(tmp_path, {"model.py": USER, "other_script.py": ENABLES})
    model = tmp_path / "model.py"
    assert _jax901_lines(model) == [2]  # the other script does not run this one
    _write(tmp_path, {"train.py": "import model\n" + ENABLES})
    assert _jax901_lines(model) == []  # train.py starts the program with x64 on


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("tox.ini", "[testenv]\nsetenv =\n    JAX_ENABLE_X64=1\n"),
        ("pytest.ini", "[pytest]\nenv =\n    JAX_ENABLE_X64=True\n"),
        ("conftest.py", 'import os\nos.environ["JAX_ENABLE_X64"] = "1"\n'),
        ("conftest.py", 'from jax import config\nconfig.update("jax_enable_x64", True)\n'),
    ],
)
def test_test_configuration_enables_x64(tmp_path, name, text):
    _write(tmp_path, {"pkg/__init__.py": "", "pkg/ops.py": USER})
    ops = tmp_path / "pkg" / "ops.py"
    assert _jax901_lines(ops) == [2]
    _write(tmp_path, {name: text})
    assert _jax901_lines(ops) == []


def test_switching_x64_off_is_not_enabling(tmp_path):
    off = 'import jax\njax.config.update("jax_enable_x64", False)\n'
    _write(tmp_path, {"pkg/__init__.py": "", "pkg/ops.py": USER, "pkg/cli.py": off})
    assert _jax901_lines(tmp_path / "pkg" / "ops.py") == [2]


def test_a_package_setting_passed_to_the_switch_may_enable_x64(tmp_path):
    # netket: a config flag defaulting to on, whose callback passes its value to the switch.
    setting = """
        def _update_x64(value):
            from jax import config as jax_config

            jax_config.update("jax_enable_x64", value)

        config.define("PKG_ENABLE_X64", bool, default=True, callback=_update_x64)
    """
    _write(tmp_path, {"pkg/__init__.py": "", "pkg/ops.py": USER})
    ops = tmp_path / "pkg" / "ops.py"
    assert _jax901_lines(ops) == [2]
    _write(tmp_path, {"pkg/utils/__init__.py": "", "pkg/utils/flags.py": setting})
    assert project_enables_x64(str(ops))
    assert _jax901_lines(ops) == []


def test_namespace_folders_inside_a_package_belong_to_it(tmp_path):
    # netket/_src/stats/online_stats/: `_src` and `stats` have no __init__.py (PEP 420).
    _write(tmp_path, {"pkg/__init__.py": "", "pkg/_src/stats/online/__init__.py": ""})
    _write(tmp_path, {"pkg/_src/stats/online/acc.py": USER, "pkg/_src/stats/loose.py": USER})
    nested = tmp_path / "pkg" / "_src" / "stats" / "online" / "acc.py"
    loose = tmp_path / "pkg" / "_src" / "stats" / "loose.py"
    assert _jax901_lines(nested) == [2] and _jax901_lines(loose) == [2]
    _write(tmp_path, {"pkg/flags.py": ENABLES})
    assert _jax901_lines(nested) == [] and _jax901_lines(loose) == []


def test_a_package_s_folder_is_not_a_namespace_of_the_project_around_it(tmp_path):
    # An unpacked wheel under a tool's cache folder is its own project, not part of the
    # package holding the cache (`.cache` is no module name; a pyproject.toml marks a root).
    _write(tmp_path, {"tool/__init__.py": "", "tool/flags.py": ENABLES})
    _write(
        tmp_path, {"tool/.cache/wheel/pkg/__init__.py": "", "tool/.cache/wheel/pkg/ops.py": USER}
    )
    _write(tmp_path, {"tool/site/pyproject.toml": "", "tool/site/pkg/__init__.py": ""})
    _write(tmp_path, {"tool/site/pkg/ops.py": USER})
    assert _jax901_lines(tmp_path / "tool" / ".cache" / "wheel" / "pkg" / "ops.py") == [2]
    assert _jax901_lines(tmp_path / "tool" / "site" / "pkg" / "ops.py") == [2]


def test_tool_setting_states_x64(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.jax-lsp]\nx64 = true\n", encoding="utf-8")
    assert load_settings(tmp_path).enable_x64


def test_a_script_beside_the_package_that_imports_it_enables_x64(tmp_path):
    _write(tmp_path, {"pkg/__init__.py": "", "pkg/utils.py": USER, "other.py": ENABLES})
    utils = tmp_path / "pkg" / "utils.py"
    assert _jax901_lines(utils) == [2]  # a script that does not import the package
    _write(tmp_path, {"main.py": ENABLES + "from pkg.utils import x\n"})
    assert _jax901_lines(utils) == []  # main.py starts the program with x64 on

"""`check --fix` never picks between meanings: a finding offering several unsafe fixes (JAX901:
enable 64-bit mode, or ask for float32) is left alone, even with `--unsafe-fixes`, and listed
with its choices; a finding's first safe fix is applied over its unsafe alternatives."""

from __future__ import annotations

from pathlib import Path

from tests.cli.helpers import jax_lsp

# JAX901 with two unsafe fixes: which one the author meant cannot be read from the code.
TWO_CHOICES = (
    "import jax.numpy as jnp\n"
    "import numpy as np\n"
    "\n"
    "prices = np.array([100.123456789, 100.123456788])\n"
    "x = jnp.array(prices, dtype=jnp.float64)\n"
)
# JAX901 on converted NumPy float64 data: the x64 switch is its only fix.
ONE_CHOICE = (
    "import jax.numpy as jnp\n"
    "import numpy as np\n"
    "\n"
    "grid = jnp.asarray(np.linspace(0, 1, 5, dtype=np.float64))\n"
)
# JAX701: a safe `jnp.where` rewrite, and an unsafe `static_argnames` alternative.
SAFE_AMONG_UNSAFE = (
    "import jax\n\n\n@jax.jit\ndef relu(x):\n    if x > 0:\n        return x\n    return 0.0 * x\n"
)


def test_several_fixes_none_applied_and_listed(tmp_path: Path):
    (tmp_path / "prices.py").write_text(TWO_CHOICES)
    run = jax_lsp(
        "check", "--fix", "--unsafe-fixes", "--select", "JAX901", "prices.py", cwd=tmp_path
    )
    assert (tmp_path / "prices.py").read_text() == TWO_CHOICES
    assert "Fixed" not in run.stdout
    assert "1 finding with several fixes, none applied (choose one in an editor):" in run.stdout
    (listed,) = [line for line in run.stdout.splitlines() if line.startswith("  prices.py:5:")]
    assert "JAX901: Enable 64-bit mode" in listed and "| Use `jnp.float32`" in listed
    plain = jax_lsp("check", "--unsafe-fixes", "--select", "JAX901", "prices.py", cwd=tmp_path)
    assert " [*] " not in plain.stdout and "fixable" not in plain.stdout
    assert "(1 finding with several fixes: choose one in an editor.)" in plain.stdout


def test_only_fix_applied_with_unsafe_fixes(tmp_path: Path):
    (tmp_path / "grid.py").write_text(ONE_CHOICE)
    run = jax_lsp("check", "--fix", "--unsafe-fixes", "--select", "JAX901", "grid.py", cwd=tmp_path)
    assert "Fixed 1 finding." in run.stdout
    assert 'jax.config.update("jax_enable_x64", True)' in (tmp_path / "grid.py").read_text()


def test_one_safe_fix_applied_over_unsafe_alternatives(tmp_path: Path):
    (tmp_path / "relu.py").write_text(SAFE_AMONG_UNSAFE)
    run = jax_lsp("check", "--fix", "--unsafe-fixes", "--select", "JAX701", "relu.py", cwd=tmp_path)
    assert "Fixed 1 finding." in run.stdout
    fixed = (tmp_path / "relu.py").read_text()
    assert "jax.numpy.where(" in fixed and "static_argnames" not in fixed

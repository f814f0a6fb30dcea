"""The removed/deprecated JAX table (`analysis/api_changes.py`) checked row by row against the
installed JAX: a name removed by the installed release is gone, a deprecated one warns, every
replacement exists, and a safe replacement computes what the old name computed."""

from __future__ import annotations

import importlib
import warnings
from pathlib import Path

import numpy as np
import pytest

from jax_lsp.analysis.api_changes import API_CHANGES, BY_NAME, default_version, status
from jax_lsp.analysis.document import Document
from jax_lsp.config import ConfigError, Settings, declared_jax_version, load_settings
from jax_lsp.engine import analyze_with

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")

INSTALLED = default_version()


def _lookup(name: str):
    """The object `name` names, importing modules on the way (raises as Python would)."""
    parts = name.split(".")
    obj = importlib.import_module(parts[0])
    for index, part in enumerate(parts[1:], start=1):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            obj = importlib.import_module(".".join(parts[: index + 1]))
    return obj


@pytest.mark.parametrize("row", API_CHANGES, ids=[row.name for row in API_CHANGES])
def test_row_holds_for_the_installed_jax(row):
    state = status(row, INSTALLED)
    assert state is not None, f"{row.name}: neither removed nor deprecated in {INSTALLED}"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        if state == "removed":
            with pytest.raises((AttributeError, ImportError)):
                _lookup(row.name)
        else:
            _lookup(row.name)
    if state == "deprecated":
        # JAX warns at the first access only (an earlier test may have made it): its
        # registry of deprecations, which holds the object it still serves, says it too.
        module, _, attribute = row.name.rpartition(".")
        registry = getattr(_lookup(module), "_deprecations", {})
        warned = any(issubclass(w.category, DeprecationWarning) for w in caught)
        assert warned or registry.get(attribute, (None, None))[1] is not None, row.name
    if row.replacement is not None:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            _lookup(row.replacement)  # exists, without a warning of its own
    assert row.use_instead, f"{row.name}: says nothing of what to use instead"


def test_rows_are_ordered_and_unique():
    assert len(BY_NAME) == len(API_CHANGES)
    for row in API_CHANGES:
        if row.deprecated and row.removed:
            assert status(row, tuple(int(p) for p in row.deprecated.split("."))) == "deprecated"


_TREE = {"a": jnp.arange(3.0), "b": [jnp.ones(2), jnp.zeros(1)]}
_X = jnp.arange(1.0, 7.0).reshape(2, 3)
# What each safe replacement computes, against what the old name computed (its NumPy or
# `jax.tree_util` equivalent, the functions it was an alias of).
SAFE_EQUIVALENTS = {
    "jax.tree_map": lambda: (
        jax.tree.map(lambda v: v * 2, _TREE),
        jax.tree_util.tree_map(lambda v: v * 2, _TREE),
    ),
    "jax.tree_flatten": lambda: (jax.tree.flatten(_TREE)[0], jax.tree_util.tree_flatten(_TREE)[0]),
    "jax.tree_leaves": lambda: (jax.tree.leaves(_TREE), jax.tree_util.tree_leaves(_TREE)),
    "jax.numpy.product": lambda: (jnp.prod(_X, axis=1), np.prod(np.asarray(_X), axis=1)),
    "jax.numpy.cumproduct": lambda: (jnp.cumprod(_X), np.cumprod(np.asarray(_X))),
    "jax.numpy.alltrue": lambda: (jnp.all(_X > 1), np.all(np.asarray(_X) > 1)),
    "jax.numpy.sometrue": lambda: (jnp.any(_X > 5), np.any(np.asarray(_X) > 5)),
    "jax.numpy.round_": lambda: (jnp.round(_X / 4, 1), np.round(np.asarray(_X) / 4, 1)),
    "jax.numpy.row_stack": lambda: (jnp.vstack([_X, _X]), np.vstack([np.asarray(_X)] * 2)),
    "jax.numpy.trapz": lambda: (
        jax.scipy.integrate.trapezoid(_X, dx=0.5),
        np.trapezoid(np.asarray(_X), dx=0.5)
        if hasattr(np, "trapezoid")
        else np.trapz(np.asarray(_X), dx=0.5),
    ),
    "jax.numpy.fix": lambda: (jnp.trunc(-_X / 4), np.fix(-np.asarray(_X) / 4)),
    "jax.scipy.linalg.tril": lambda: (jnp.tril(_X), np.tril(np.asarray(_X))),
    "jax.ops.index": lambda: (_X.at[jnp.index_exp[0, 1:]].get(), np.asarray(_X)[0, 1:]),
}


@pytest.mark.parametrize("name", sorted(SAFE_EQUIVALENTS))
def test_safe_replacement_computes_the_same(name):
    assert BY_NAME[name].safe
    new, old = SAFE_EQUIVALENTS[name]()
    for a, b in zip(jax.tree.leaves(new), jax.tree.leaves(old), strict=True):
        assert np.allclose(np.asarray(a), np.asarray(b))


def test_index_updates_become_at_methods():
    x = jnp.arange(4.0)
    reference = {
        "set": [0, 9, 2, 3],
        "add": [0, 10, 2, 3],
        "multiply": [0, 9, 2, 3],
        "min": [0, 1, 2, 3],
        "max": [0, 9, 2, 3],
    }
    for name in ("index_update", "index_add", "index_mul", "index_min", "index_max"):
        method = BY_NAME[f"jax.ops.{name}"].at_method
        result = getattr(x.at[1], method)(9.0)
        assert result.tolist() == reference[method], name


def _codes(text: str, settings: Settings) -> list[str]:
    analysis = analyze_with(Document(text), settings, reuse_findings=False)
    return [f.code for f in analysis.findings if f.code.startswith("JAX11")]


def test_target_version_decides_removed_or_deprecated():
    text = "import jax\n\ny = jax.tree_map(abs, [1])\n"
    assert _codes(text, Settings()) == ["JAX1101"]
    older = Settings().merged({"target-jax-version": "0.4.30"})
    assert _codes(text, older) == ["JAX1102"]
    oldest = Settings().merged({"targetJaxVersion": "0.4.20"})
    assert _codes(text, oldest) == []


@pytest.mark.parametrize(
    ("requirements", "declared"),
    [
        (["jax==0.4.20"], "0.4.20"),
        (["numpy", "jax[cuda12] >= 0.4.30, <0.5"], "0.4.30"),
        (["jax~=0.4.26; python_version >= '3.10'"], "0.4.26"),
        (["jax"], None),
        (["jax-lsp==1.0", "jax_md==0.2", "jaxlib==0.4.20"], None),
    ],
)
def test_the_lowest_release_the_requirements_allow(requirements, declared):
    assert declared_jax_version(requirements) == declared


def test_the_project_declared_release_is_the_target(tmp_path: Path):
    text = "import jax\n\ny = jax.tree_map(abs, [1])\n"
    (tmp_path / "pyproject.toml").write_text('[project]\ndependencies = ["jax==0.4.20"]\n')
    assert _codes(text, load_settings(tmp_path)) == []
    (tmp_path / "pyproject.toml").write_text(
        '[project]\ndependencies = ["jax==0.4.20"]\n[tool.jax-lsp]\ntarget-jax-version = "0.6"\n'
    )
    assert _codes(text, load_settings(tmp_path)) == ["JAX1101"]  # the setting decides
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "p"\n')
    (tmp_path / "requirements.txt").write_text("optax\njax>=0.4.30  # the pin\n")
    assert _codes(text, load_settings(tmp_path)) == ["JAX1102"]
    (tmp_path / "pyproject.toml").unlink()
    assert _codes(text, load_settings(tmp_path / "sub.py")) == ["JAX1102"]


def test_target_version_is_checked():
    with pytest.raises(ConfigError):
        Settings().merged({"target-jax-version": "latest"})


def test_numpy_and_shims_are_not_flagged():
    text = (
        "import numpy as np\nimport jax\n\n"
        "a = np.product([1, 2])\n"
        "jax.tree_map = jax.tree.map\n"
        "if hasattr(jax, 'tree_flatten'):\n    f = jax.tree_flatten\n"
    )
    assert _codes(text, Settings()) == []


def test_names_no_release_defines_are_removed_at_every_version():
    """`jax.tree_reduce` (never a top-level alias) and `jnp.asfarray` (never in jax.numpy):
    AttributeError whatever the release, so reported against the oldest target too."""
    text = (
        "import jax\nimport jax.numpy as jnp\n\n"
        "t = jax.tree_reduce(max, [1, 3, 2])\na = jnp.asfarray([1, 2])\n"
    )
    for version in (None, "0.4.20"):
        settings = (
            Settings() if version is None else Settings().merged({"target-jax-version": version})
        )
        assert _codes(text, settings) == ["JAX1101", "JAX1101"]
    findings = analyze_with(Document(text), Settings()).findings
    assert "no release since 0.3 defines it" in findings[0].message
    assert "jnp.asarray(a, dtype=float)" in findings[1].message
    fixed = text.replace("jax.tree_reduce", "jax.tree_util.tree_reduce")
    assert findings[0].fix is not None and findings[0].fix.is_safe
    assert findings[1].fix is None  # float64 or float32 by the x64 setting: the user picks
    namespace: dict = {}
    exec(fixed.split("a = ")[0], namespace)
    assert namespace["t"] == 3

"""The JupyterLab extension ships prebuilt: `jupyterlab-extension/labextension/` is committed
and the wheel installs it where JupyterLab looks (`share/jupyter/labextensions/<name>`). A fresh
clone's `pip install` needs no Node.js, so the committed build must be the build of the
committed sources (`npm run build` in jupyterlab-extension/ stamps their fingerprint)."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

from packaging.requirements import Requirement

if sys.version_info >= (3, 11):
    import tomllib
else:
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]
EXTENSION = ROOT / "jupyterlab-extension"
BUILT = EXTENSION / "labextension"


def _stamp():
    spec = importlib.util.spec_from_file_location("stamp", EXTENSION / "stamp.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _pyproject() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def test_the_committed_build_is_built_from_the_committed_sources():
    stamp = _stamp()
    recorded = stamp.STAMP.read_text().strip()
    assert recorded == stamp.fingerprint(), (
        "jupyterlab-extension/ changed since labextension/ was built: "
        "run `npm run build` there and commit labextension/ and built-from.sha256"
    )


def test_the_build_loads_its_entry_and_names_the_source_package():
    source = json.loads((EXTENSION / "package.json").read_text())
    built = json.loads((BUILT / "package.json").read_text())
    assert built["name"] == source["name"] and built["version"] == source["version"]
    assert (BUILT / built["jupyterlab"]["_build"]["load"]).is_file()


def test_the_wheel_installs_every_built_file_under_the_extension_s_name():
    name = json.loads((EXTENSION / "package.json").read_text())["name"]
    data_files = _pyproject()["tool"]["setuptools"]["data-files"]
    target = f"share/jupyter/labextensions/{name}"
    installed = {
        (folder, path.name)
        for folder, patterns in data_files.items()
        for pattern in patterns
        for path in ROOT.glob(pattern)
    }
    built = {
        (f"{target}/{path.parent.relative_to(BUILT).as_posix()}".rstrip("/."), path.name)
        for path in BUILT.rglob("*")
        if path.is_file()
    }
    assert built <= installed
    assert (target, "install.json") in installed  # names the Python package that installed it


def test_the_jupyterlab_extra_brings_jupyterlab_lsp():
    extra = _pyproject()["project"]["optional-dependencies"]["jupyterlab"]
    assert {Requirement(text).name for text in extra} == {"jupyterlab", "jupyterlab-lsp"}

"""jax-lsp as jupyter-lsp finds it: the spec its server extension reads from the
`jupyter_lsp_spec_v1` entry point group, so that installing jax-lsp beside jupyterlab-lsp is all
JupyterLab needs (no `jupyter_server_config.d` file written by hand).

Standard library only: the Jupyter server imports this module at its start.
"""

from __future__ import annotations

from typing import Any

from jax_lsp import __version__
from jax_lsp.import_path import module_command

SERVER_KEY = "jax-lsp"
SPEC_VERSION = 2  # the version of jupyter-lsp's spec schema this follows
INSTALL = 'pip install "/path/to/jax-lsp[jupyterlab]"'  # a clone of jax-lsp's repository

# The settings jupyterlab-lsp's settings editor offers under `serverSettings`, and sends
# (dotted keys expanded) as the `jax-lsp` section of the configuration.
_CONFIG_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "jax-lsp.select": {
            "type": "array",
            "items": {"type": "string"},
            "description": "Rule codes or prefixes to report (default: every rule on by default)",
        },
        "jax-lsp.ignore": {
            "type": "array",
            "items": {"type": "string"},
            "description": "Rule codes or prefixes not to report",
        },
        "jax-lsp.severity": {
            "type": "object",
            "additionalProperties": {"enum": ["error", "warning", "info"]},
            "description": 'Severity by rule code, e.g. {"JAX903": "warning"}',
        },
        "jax-lsp.fixAll": {
            "type": "boolean",
            "default": True,
            "description": "The fix-all action applies the safe fixes",
        },
        "jax-lsp.unsafeFixes": {
            "type": "boolean",
            "default": False,
            "description": "Fix-all applies unsafe fixes too",
        },
    },
}


def spec(manager: object = None) -> dict[str, dict[str, Any]]:
    """The language server spec jupyter-lsp reads (keyed by server): started with the Python
    that runs the Jupyter server, where this package is installed; documents are read from the
    messages, so jupyter-lsp need not write its virtual documents to disk."""
    return {
        SERVER_KEY: {
            "version": SPEC_VERSION,
            # Not `python -m`, which would import a `types.py` of the folder Jupyter runs in.
            "argv": [*module_command("jax_lsp"), "serve"],
            "languages": ["python"],
            "mime_types": ["text/python", "text/x-python", "text/x-ipython"],
            "display_name": f"jax-lsp {__version__}",
            "requires_documents_on_disk": False,
            "env": {"PYTHONUNBUFFERED": "1"},
            "urls": {
                "home": "https://github.com/jax-lsp/jax-lsp",
                "issues": "https://github.com/jax-lsp/jax-lsp/issues",
            },
            # Not on PyPI yet: installed from a clone, with the extra JupyterLab needs (not
            # editable: that leaves out the prebuilt JupyterLab extension), as the README says.
            "install": {"pip": INSTALL},
            "config_schema": _CONFIG_SCHEMA,
        }
    }

"""`python -m jax_lsp` is the `jax-lsp` command."""

import sys

from jax_lsp.cli import main

# The guard matters: the server's jedi worker process (multiprocessing, spawn) imports the main
# module again, and must not start a second server when it does.
if __name__ == "__main__":
    sys.exit(main())

"""`python -m jax_lsp` is the `jax-lsp` command."""

import sys

from jax_lsp.cli import main

# The guard matters: `check`'s worker processes (multiprocessing; spawned where forking is not
# safe, `jax_lsp.parallel`) import the main module again, and must not run the command again.
if __name__ == "__main__":
    sys.exit(main())

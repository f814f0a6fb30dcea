"""`python -m jax_lsp` is the `jax-lsp` command."""

import sys

from jax_lsp.cli import main

sys.exit(main())

"""`python -m jax_lsp` is the `jax-lsp` command."""

import sys

from jax_lsp.import_path import drop_working_directory

# Before anything else is imported: `-m` put the working directory (the user's project, when an
# editor starts the server there) first on sys.path. A spawned `check` worker imports this module
# as `__mp_main__`, in another folder and with this process's path, which is already without it.
if __name__ == "__main__":
    drop_working_directory()

from jax_lsp.cli import main

# The guard matters: `check`'s worker processes (multiprocessing; spawned where forking is not
# safe, `jax_lsp.parallel`) import the main module again, and must not run the command again.
if __name__ == "__main__":
    sys.exit(main())

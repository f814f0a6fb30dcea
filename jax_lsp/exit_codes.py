"""The exit statuses of `jax-lsp` (apart from `serve`, whose status LSP defines)."""

EXIT_CLEAN = 0  # no findings (or `--exit-zero`)
EXIT_FINDINGS = 1  # findings, or a file that could not be read or parsed
EXIT_USAGE = 2  # a usage error

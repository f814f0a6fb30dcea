"""jax-lsp: a language server and linter for JAX's common gotchas."""

__version__ = "0.1.0"

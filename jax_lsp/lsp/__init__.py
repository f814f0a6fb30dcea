"""The language server's parts: positions, documents, diagnostics, actions, hover, settings."""

"""Code actions: libcst codemods turning one finding into minimal text edits."""

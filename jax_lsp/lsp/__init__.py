"""The language server's parts: its state and analysis loop (`language_server`, `engine_thread`),
the handlers (`handlers`, `action_handlers`, `hover`, `hints`), protocol conversion
(`conversion`, `positions`), open documents and notebook cells (`documents`, `notebook_cells`),
settings (`settings`), cross-module facts and jedi (`crossmodule`, `jedi_worker`), and the
transport (`protocol`, `transport`)."""

"""ShapeScript's language server: ``shapescript lsp`` (or ``python -m shapescript_lsp``),
over stdio, on pygls. ``server.build()`` makes the server; ``analysis`` answers the
editor's questions from a checked file."""

__version__ = "0.1.0"

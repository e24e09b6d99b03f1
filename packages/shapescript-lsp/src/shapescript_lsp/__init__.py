"""ShapeScript's language server: ``shapescript lsp`` (or ``python -m shapescript_lsp``),
over stdio, on pygls. ``server.build()`` makes the server; the editor's questions are
answered from a checked file (a ``documents.Document``) by ``diagnostics``, ``hover``,
``navigation``, ``completion``, ``signatures``, ``outline`` and ``tokens``."""

__version__ = "0.1.0"

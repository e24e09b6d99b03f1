"""The exporter's own errors (a file's errors are ``shapescript.ShapeScriptError``)."""

from __future__ import annotations


class ExportError(RuntimeError):
    """An export that failed for a reason of its own, not torch's: no C++ compiler for
    ``--aoti``, or a Python that can't trace (no torch there)."""

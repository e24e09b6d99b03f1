"""The errors ShapeScript raises: compile errors, and the run-time checks' failures
(torch-free, so a file with errors is reported without loading torch).

``ShapeError``, ``DeviceError`` and ``DomainError`` are ``ValueError``s raised by the
checked entry points and by ``as``; their message starts with the ``.ss``
location. ``ShapeScriptError`` carries the diagnostics of a file that did not compile.
Standalone modules define their own copies, subclassing these when ShapeScript is
importable.
"""

from __future__ import annotations

# Shown and pickled as ``shapescript.ShapeError`` etc., where users import them from.
_PUBLIC_MODULE = "shapescript"


class ShapeError(ValueError):
    """A tensor's rank, sizes or dtype don't fit its type."""


class DeviceError(ValueError):
    """A tensor is on another device than the program's, or than the other arguments'."""


class DomainError(ValueError):
    """A tensor's values are outside its domain (value checks)."""


class ShapeScriptError(Exception):
    """A ShapeScript file did not compile.

    ``str(err)`` is the rendered diagnostics (rustc layout, no colour); ``diagnostics``
    holds the ``Diagnostic`` values and ``sources`` the texts they point into, so a
    terminal can render them again in colour.
    """

    def __init__(self, rendered: str, diagnostics=(), sources=None) -> None:
        super().__init__(rendered)
        self.rendered = rendered
        self.diagnostics = list(diagnostics)
        self.sources = dict(sources or {})

    def __str__(self) -> str:
        return self.rendered


for _cls in (ShapeError, DeviceError, DomainError, ShapeScriptError):
    _cls.__module__ = _PUBLIC_MODULE
del _cls

"""The errors, as the runtime and standalone modules reach them (their home is the
torch-free ``shapescript.errors``)."""

from shapescript.errors import DeviceError, DomainError, ShapeError, ShapeScriptError

__all__ = ["DeviceError", "DomainError", "ShapeError", "ShapeScriptError"]

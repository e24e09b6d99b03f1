"""``shapescript port``: an existing PyTorch or Hugging Face model in, a checked ``.ss``
program out (docs/port.md). ``port`` is also ``shapescript.port``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from shapescript_port.api import PortReport

__all__ = ["port", "PortError", "PortReport"]


def port(source: str, output: str, *, weights: str | None = None,
         config: dict[str, Any] | None = None, seed: int = 0) -> PortReport:
    """Ports ``source`` (a transformers config folder or model class, or
    ``module:factory``) to the ``.ss`` file ``output``, verified against the source
    before anything is written; see ``shapescript_port.api.port``."""
    from shapescript_port.api import port as _port

    return _port(source, output, weights=weights, config=config, seed=seed)


def __getattr__(name: str) -> Any:
    if name == "PortReport":
        from shapescript_port.api import PortReport

        return PortReport
    if name == "PortError":
        from shapescript_port.errors import PortError

        return PortError
    raise AttributeError(f"module 'shapescript_port' has no attribute {name!r}")

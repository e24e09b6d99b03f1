"""How output meets the terminal: one colour rule and one debug switch for every
command and plugin."""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from typing import TextIO

__all__ = ["debug_enabled", "use_color"]


def use_color(stream: TextIO | None = None, mode: str = "auto",
              environ: Mapping[str, str] | None = None) -> bool:
    """Whether to colour what is written to ``stream`` (stderr by default).

    ``mode`` is ``always``, ``never`` or ``auto``. In ``auto``: never when ``NO_COLOR``
    is set to anything non-empty (no-color.org) or ``TERM`` is ``dumb``; always when
    ``FORCE_COLOR`` is set to anything non-empty; else only on a terminal.

    >>> use_color(mode="auto", environ={"NO_COLOR": "1", "FORCE_COLOR": "1"})
    False
    >>> use_color(mode="never")
    False
    """
    if mode == "always":
        return True
    if mode == "never":
        return False
    env = os.environ if environ is None else environ
    if env.get("NO_COLOR") or env.get("TERM") == "dumb":
        return False
    if env.get("FORCE_COLOR"):
        return True
    stream = sys.stderr if stream is None else stream
    isatty = getattr(stream, "isatty", None)
    try:
        return bool(isatty and isatty())
    except ValueError:  # a closed stream
        return False


def debug_enabled(environ: Mapping[str, str] | None = None) -> bool:
    """``SHAPESCRIPT_DEBUG`` set to anything but ``""`` or ``0``: internal errors show
    their traceback.

    >>> debug_enabled({"SHAPESCRIPT_DEBUG": "0"}), debug_enabled({"SHAPESCRIPT_DEBUG": "1"})
    (False, True)
    """
    env = os.environ if environ is None else environ
    return env.get("SHAPESCRIPT_DEBUG", "") not in ("", "0")

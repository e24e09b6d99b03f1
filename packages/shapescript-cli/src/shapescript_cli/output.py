"""What every command shares: colour detection, the debug switch, command errors."""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from typing import NoReturn, TextIO

import click

__all__ = ["debug_enabled", "fail", "use_color"]


def use_color(stream: TextIO | None = None, environ: Mapping[str, str] | None = None) -> bool:
    """Whether to colour output written to ``stream`` (stdout by default): only on a
    terminal, never when ``NO_COLOR`` is set to anything non-empty (no-color.org) or
    ``TERM`` is ``dumb``.

    >>> use_color(environ={"NO_COLOR": "1"})
    False
    """
    env = os.environ if environ is None else environ
    if env.get("NO_COLOR") or env.get("TERM") == "dumb":
        return False
    stream = sys.stdout if stream is None else stream
    isatty = getattr(stream, "isatty", None)
    try:
        return bool(isatty and isatty())
    except ValueError:  # a closed stream
        return False


def debug_enabled(environ: Mapping[str, str] | None = None) -> bool:
    """``SHAPESCRIPT_DEBUG`` set (and not ``0``): internal errors show their traceback."""
    env = os.environ if environ is None else environ
    return env.get("SHAPESCRIPT_DEBUG", "") not in ("", "0")


def fail(message: str, code: int = 2) -> NoReturn:
    """Print ``error: message`` on stderr and exit with ``code`` (2: an error of the
    command, DECISIONS §28)."""
    click.echo(f"error: {message}", err=True)
    raise click.exceptions.Exit(code)

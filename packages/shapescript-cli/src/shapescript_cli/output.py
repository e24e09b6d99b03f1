"""What every command shares: colour, the debug switch, command errors.

The rules themselves are the core's (``shapescript.term``), so the CLI and every plugin
colour and debug alike; the group's ``--color`` option is kept in Click's context.
"""

from __future__ import annotations

import sys
from typing import NoReturn, TextIO

import click
from shapescript.api import debug_enabled
from shapescript.api import use_color as _use_color

__all__ = ["COLOR_KEY", "debug_enabled", "fail", "use_color"]

COLOR_KEY = "shapescript.color"


def use_color(stream: TextIO | None = None) -> bool:
    """Whether to colour what goes to ``stream`` (stdout by default): ``--color``, else
    ``NO_COLOR``/``FORCE_COLOR``/``TERM=dumb``, else whether it is a terminal."""
    ctx = click.get_current_context(silent=True)
    mode = ctx.find_root().meta.get(COLOR_KEY, "auto") if ctx is not None else "auto"
    return _use_color(sys.stdout if stream is None else stream, mode)


def fail(message: str, code: int = 2) -> NoReturn:
    """Print ``error: message`` on stderr and exit with ``code`` (2: an error of the
    command)."""
    click.echo(f"error: {message}", err=True)
    raise click.exceptions.Exit(code)

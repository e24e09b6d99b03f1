"""Helpers shared by ``run`` and ``build``: rendering diagnostics for the terminal."""

from __future__ import annotations

import os
import sys

import click

MODE_CHOICE = click.Choice(["always", "debug", "never"])


def use_color(stream=None):
    """Colour only on a terminal, and never with ``NO_COLOR`` set."""
    stream = stream or sys.stderr
    return bool(getattr(stream, "isatty", lambda: False)()) and not os.environ.get("NO_COLOR")


def render(diagnostics, sources, fallback=""):
    """The diagnostics for stderr, coloured when it is a terminal."""
    from shapescript.importer import render_diagnostics
    try:
        return render_diagnostics(diagnostics, sources, color=use_color())
    except Exception:
        return fallback or render_diagnostics(diagnostics, sources, color=False)


def print_shapescript_error(err):
    """A ``ShapeScriptError``'s diagnostics on stderr, without a traceback."""
    text = render(err.diagnostics, err.sources, fallback=str(err)) if err.diagnostics else str(err)
    click.echo(text.rstrip("\n"), err=True)

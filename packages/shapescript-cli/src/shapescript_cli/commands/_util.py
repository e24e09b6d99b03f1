"""Helpers shared by ``run`` and ``build``: rendering diagnostics for the terminal."""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from typing import Any

import click

from shapescript_cli.output import use_color

MODE_CHOICE = click.Choice(["always", "debug", "never"])


def render(diagnostics: Sequence[Any], sources: Mapping[str, str], fallback: str = "") -> str:
    """The diagnostics for stderr, coloured when it is a terminal."""
    from shapescript.api import render_full

    try:
        return render_full(list(diagnostics), dict(sources), color=use_color(sys.stderr))
    except Exception:
        return fallback or render_full(list(diagnostics), dict(sources), color=False)


def print_shapescript_error(err: Any) -> None:
    """A ``ShapeScriptError``'s diagnostics on stderr, without a traceback."""
    text = render(err.diagnostics, err.sources, fallback=str(err)) if err.diagnostics else str(err)
    click.echo(text.rstrip("\n"), err=True)

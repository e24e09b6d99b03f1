"""``shapescript check FILE…``: every diagnostic of each file, and an exit code.

Exit codes (DECISIONS §28): 0 clean or warnings only, 1 errors, 2 a missing or
unreadable file, 3 an internal error. Diagnostics go to stdout in the chosen format;
a clean check prints nothing (``[]`` with ``--format json``).

This module must stay light: the compiler is imported when the command runs, and
nothing here imports torch or an exporter.
"""

from __future__ import annotations

import importlib
import os
import traceback
from collections.abc import Sequence
from typing import TYPE_CHECKING

import click

from shapescript_cli.output import debug_enabled, fail, use_color

if TYPE_CHECKING:
    from shapescript.diagnostics import Diagnostic

FORMATS = ("full", "concise", "json")


@click.command("check")
@click.argument("files", nargs=-1, required=True, metavar="FILE...")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="full",
              show_default=True, help="full: rustc's layout; concise: one line each; "
                                      "json: one array.")
def command(files: tuple[str, ...], fmt: str) -> None:
    """Check .ss files and report their diagnostics."""
    from shapescript.render import render

    for path in files:
        _require_readable(path)
    diags, sources, tracebacks = check_files(files)
    color = fmt != "json" and use_color()
    click.echo(render(diags, sources, fmt, color), nl=False, color=color)
    if tracebacks and debug_enabled():
        for tb in tracebacks:
            click.echo(tb, err=True, nl=False)
    raise click.exceptions.Exit(exit_code(diags))


def check_files(paths: Sequence[str],
                ) -> tuple[list[Diagnostic], dict[str, str], list[str]]:
    """Check each file with ``shapescript.compiler.check_file``, in order.

    Returns the diagnostics (each file's as the compiler sorted them), the source texts
    by path, and the tracebacks of the internal failures, each of which became one
    E0000 diagnostic: at the failure's ``span`` when the exception carries one, else at
    the start of the file.
    """
    from shapescript.render import internal_error

    diags: list[Diagnostic] = []
    sources: dict[str, str] = {}
    tracebacks: list[str] = []
    for path in paths:
        try:
            # Looked up in sys.modules at each call (tests put a stand-in there).
            compiler = importlib.import_module("shapescript.compiler")
            found, texts = compiler.check_file(path)
        except Exception as exc:  # any failure in the compiler is a bug in it
            span = getattr(exc, "span", None)
            where = ((span.file, span.line, span.col) if _is_span(span) else (path, 1, 1))
            diags.append(internal_error(*where))
            tracebacks.append(traceback.format_exc())
            continue
        diags.extend(found)
        sources.update(texts)
    return diags, sources, tracebacks


def exit_code(diags: Sequence[Diagnostic]) -> int:
    """3 for an internal error, else 1 for any error, else 0 (warnings allowed)."""
    if any(d.code == "E0000" for d in diags):
        return 3
    return 1 if any(d.severity == "error" for d in diags) else 0


def _is_span(span: object) -> bool:
    return all(hasattr(span, a) for a in ("file", "line", "col"))


def _require_readable(path: str) -> None:
    """Exit 2 unless ``path`` is a regular file the compiler can read (a FIFO, a device
    or a file over the size limit is refused before anything is read from it)."""
    from shapescript.source import SourceDecodeError, read_source

    if not os.path.exists(path):
        fail(f"no such file: {path}")
    if os.path.isdir(path):
        fail(f"{path} is a directory; give the .ss files to check")
    try:
        read_source(path)
    except SourceDecodeError:
        pass  # not UTF-8: a diagnostic of the file (exit 1), reported by the check
    except OSError as exc:
        fail(f"cannot read {path}: {exc.strerror or exc}")

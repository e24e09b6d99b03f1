"""``shapescript check FILE…``: every diagnostic of each file, and an exit code.

Exit codes: 0 clean or warnings only, 1 errors, 2 a missing or unreadable file, 3 an
internal error. Diagnostics go to stdout in the chosen format; a clean check prints
nothing (``[]`` with ``--format json``).

``--vllm`` and ``--gguf`` (with ``--fn``, by default ``forward``) add the serving rules
of an engine: they are check profiles, plugins found through the
``shapescript.check_profiles`` entry points; a known one whose package is missing says
which extra to install, exit 2.

This module must stay light: the compiler is imported when the command runs, and
nothing here imports torch or an exporter.
"""

from __future__ import annotations

import importlib
import os
import traceback
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import click

from shapescript_cli.output import debug_enabled, fail, use_color

if TYPE_CHECKING:
    from shapescript.diagnostics import Diagnostic

FORMATS = ("full", "concise", "json")


class _CheckCommand(click.Command):
    """Refuses a known profile's flag whose package is missing before Click parses."""

    def __init__(self, *args: Any, missing: dict[str, str], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.missing = missing

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        for arg in args:
            if arg == "--":
                break
            if arg in self.missing:
                from shapescript.plugins import missing_hint

                fail(missing_hint(f"`{arg}`", self.missing[arg]))
        return super().parse_args(ctx, args)


def get_command() -> click.Command:
    """``check`` with a flag for each installed check profile."""
    from shapescript.plugins import CHECK_PROFILES, KNOWN_PROFILES, entry_points

    eps = entry_points(CHECK_PROFILES)
    params: list[click.Parameter] = [
        click.Argument(["files"], nargs=-1, required=True, metavar="FILE..."),
        click.Option(["--format", "fmt"], type=click.Choice(FORMATS), default="full",
                     show_default=True,
                     help="full: rustc's layout; concise: one line each; json: one array."),
    ]
    for name, ep in eps.items():
        params.append(click.Option([f"--{name}", f"profile_{name}"], is_flag=True,
                                   help=f"Also the rules of {name} (from {ep.value})."))
    if eps:
        params.append(click.Option(["--fn"], default=None, metavar="NAME",
                                   help="The forward function the profiles check "
                                        "(default: forward)."))
    missing = {k.flag: k.extra for k in KNOWN_PROFILES.values()
               if k.flag is not None and k.name not in eps}

    def callback(files: tuple[str, ...], fmt: str, fn: str | None = None,
                 **flags: bool) -> None:
        chosen = [name for name in eps if flags.get(f"profile_{name}")]
        profiles = []
        for name in chosen:
            try:
                profiles.append(eps[name].load())
            except Exception as exc:  # a broken installation
                fail(f"the check profile {name} could not be loaded from "
                     f"{eps[name].value}: {type(exc).__name__}: {exc}", 3)
        run_check(files, fmt, profiles, fn)

    return _CheckCommand("check", params=params, callback=callback, missing=missing,
                         help="Check .ss files and report their diagnostics.")


def run_check(files: tuple[str, ...], fmt: str, profiles: Sequence[Any] = (),
              fn: str | None = None) -> None:
    """Check ``files`` (with the check ``profiles``' rules), print, and exit."""
    from shapescript.render import render

    for path in files:
        _require_readable(path)
    diags, sources, tracebacks = check_files(files, profiles, fn)
    color = fmt != "json" and use_color()
    click.echo(render(diags, sources, fmt, color), nl=False, color=color)
    if tracebacks and debug_enabled():
        for tb in tracebacks:
            click.echo(tb, err=True, nl=False)
    raise click.exceptions.Exit(exit_code(diags))


def check_files(paths: Sequence[str], profiles: Sequence[Any] = (), fn: str | None = None,
                ) -> tuple[list[Diagnostic], dict[str, str], list[str]]:
    """Check each file with ``shapescript.compiler.check_file``, in order, and with each
    of the check ``profiles`` (for the function ``fn``) where the file checks clean.

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
            if profiles:
                # check_path: a file that isn't UTF-8 is its diagnostic, not an exception
                program = compiler.check_path(path)
                found, texts = list(program.diagnostics), program.sources
                if program.ok:
                    for profile in profiles:
                        found += profile.diagnostics(program, fn)
            else:
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
    from shapescript.api import SourceDecodeError, read_source

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

"""``shapescript export FILE [--fn NAME] [target options]``: one command, many targets.

The targets come from the ``shapescript.export_targets`` entry points: the ``.pt2``
target (no flag; ``-o``, ``--aoti`` …) and targets selected by a flag of their own
(``--hf DIR``, ``--gguf OUT``). Each brings its options; an option two targets declare
(``--weights``) is listed once and given to the target that runs. An option of a target
that isn't the one running is an error of the command, and so is any option of a known
target whose package isn't installed (its flag, or ``-o`` of the ``.pt2`` target):
"`--gguf` needs pip install 'shapescript[gguf]'", exit 2.

The command is assembled when it is used, from the targets' entry points; loading one
imports its target module only (click), never torch.
"""

from __future__ import annotations

import sys
from typing import Any

import click

from shapescript_cli.output import fail, use_color
from shapescript.api import error_codes as ec

__all__ = ["build_command", "get_command", "installed_targets"]


def installed_targets() -> dict[str, Any]:
    """The installed export targets by name (a target that fails to load is reported
    when it would run, not when listing)."""
    from shapescript.api import EXPORT_TARGETS, entry_points

    return dict(entry_points(EXPORT_TARGETS))


def _missing_options(targets: dict[str, Any]) -> dict[str, str]:
    """Each option of a known target that isn't installed, which no installed target
    takes either → the extra to install. The targets' flags come first: they decide the
    hint when a command gives one with other options (``--gguf OUT --weights W``)."""
    from shapescript.api import KNOWN_TARGETS

    have = {s for target in targets.values() for o in target.options()
            for s in (*o.opts, *o.secondary_opts)}
    absent = [k for k in KNOWN_TARGETS.values() if k.name not in targets]
    missing = {k.flag: k.extra for k in absent if k.flag is not None and k.flag not in have}
    for known in absent:
        for opt in known.options:
            if opt not in have:
                missing.setdefault(opt, known.extra)
    return missing


def _given_option(args: list[str], options: dict[str, str]) -> str | None:
    """The first of ``options`` (in their order) that ``args`` give, as ``--opt``,
    ``--opt=VALUE`` or, for a short one, ``-oVALUE``."""
    given: set[str] = set()
    for arg in args:
        if arg == "--":
            break
        if arg.startswith("--"):
            given.add(arg.split("=", 1)[0])
        elif arg.startswith("-") and len(arg) > 1:
            given.add(arg[:2])
    return next((opt for opt in options if opt in given), None)


class ExportCommand(click.Command):
    """Refuses an option of a known target whose package is missing before Click parses
    (Click would say "No such option")."""

    def __init__(self, *args: Any, missing: dict[str, str], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.missing = missing

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        option = _given_option(args, self.missing)
        if option is not None:
            from shapescript.api import missing_hint

            fail(missing_hint(f"`{option}`", self.missing[option]))
        return super().parse_args(ctx, args)


def _load(name: str, ep: Any) -> Any:
    try:
        return ep.load()
    except Exception as exc:  # a broken installation: the plugin's bug or ours
        fail(f"the export target {name} could not be loaded from {ep.value}: "
             f"{type(exc).__name__}: {exc}", 3)


def build_command() -> click.Command:
    """The ``export`` command with every installed target's options."""
    eps = installed_targets()
    targets = {name: _load(name, ep) for name, ep in eps.items()}
    params: list[click.Parameter] = [
        click.Argument(["file"], type=click.Path(exists=True, dir_okay=False)),
        click.Option(["--fn"], default=None, metavar="NAME",
                     help="The function to export (default: the file's only export fn; "
                          "forward for --hf and --gguf)."),
    ]
    owners: dict[str, list[str]] = {}
    flags: dict[str, str] = {}   # option name → target, for flag-selected targets
    seen: dict[str, click.Parameter] = {}
    for tname, target in sorted(targets.items(), key=lambda kv: (kv[1].flag is not None, kv[0])):
        for opt in target.options():
            owners.setdefault(opt.name, []).append(tname)
            if target.flag is not None and target.flag in opt.opts:
                flags[opt.name] = tname
            if opt.name not in seen:
                seen[opt.name] = opt
                params.append(opt)
    epilog = "Targets: " + "; ".join(
        f"{t.flag or '(default)'}: {t.summary}" for t in targets.values()) if targets else ""

    def callback(file: str, fn: str | None, **values: Any) -> None:
        ctx = click.get_current_context()
        chosen = [flags[n] for n in flags if _given(ctx, n)]
        if len(chosen) > 1:
            raise click.UsageError("choose one target: " + ", ".join(
                targets[t].flag for t in chosen))
        if chosen:
            name = chosen[0]
        else:
            default = [n for n, t in targets.items() if t.flag is None]
            if not default:
                from shapescript.api import KNOWN_TARGETS, missing_hint

                fail(missing_hint("shapescript export", KNOWN_TARGETS["pt2"].extra))
            name = default[0]
        target = targets[name]
        for opt_name, who in owners.items():
            if name not in who and _given(ctx, opt_name):
                shown = seen[opt_name].opts[-1]
                what = target.flag or "a .pt2 export"
                raise click.UsageError(f"{shown} is not an option of {what}")
        mine = {n: v for n, v in values.items() if name in owners.get(n, ())}
        raise click.exceptions.Exit(_run(target, file, fn, mine))

    return ExportCommand(
        "export", params=params, callback=callback, missing=_missing_options(targets),
        help="Export a function of FILE: a torch.export program (.pt2) or an AOTInductor "
             "package by default, or another target chosen by its flag.",
        epilog=epilog, context_settings={"help_option_names": ["-h", "--help"]})


def _given(ctx: click.Context, name: str) -> bool:
    source = ctx.get_parameter_source(name)
    return source is not None and source.name in ("COMMANDLINE", "ENVIRONMENT")


def _run(target: Any, file: str, fn: str | None, options: dict[str, Any]) -> int:
    """Runs the target, turning the errors it may raise into messages and exit codes."""
    from shapescript.api import (
        ExportFailed, ShapeScriptError, WriteError, signal_of, stop_message,
    )

    try:
        return int(target.run(file, fn, options) or 0)
    except ShapeScriptError as err:
        _report_diagnostics(err)
    except ExportFailed as err:
        fail(err.message, err.exit_code)
    except ValueError as err:
        fail(str(err), 2)
    except WriteError as err:             # the output: a full disk, a read-only folder …
        fail(str(err), 2)
    except OSError as err:
        fail(f"cannot read {err.filename or file}: {err.strerror or err}", 2)
    except KeyboardInterrupt as stop:      # SIGINT, SIGTERM: each writer removed its temporary
        signum = signal_of(stop)
        fail(f"{stop_message(signum)}: nothing was written", 128 + signum)
    return 3


def _report_diagnostics(err: Any) -> None:
    from shapescript.api import render_full

    text = (render_full(err.diagnostics, err.sources, color=use_color(sys.stderr))
            if err.diagnostics else str(err))
    click.echo(text.rstrip("\n"), err=True)
    internal = any(getattr(d, "code", "") == ec.E0000 for d in err.diagnostics)
    raise click.exceptions.Exit(3 if internal else 1)
def get_command() -> click.Command:
    """The command, built anew from the installed targets each time it is asked for."""
    return build_command()

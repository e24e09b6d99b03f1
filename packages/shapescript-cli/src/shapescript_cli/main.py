"""The ``shapescript`` command: a Click group that imports each command only when used.

Commands come from three places, looked up in this order:

1. ``LAZY_COMMANDS``: this package's own, one module each under
   ``shapescript_cli.commands`` exposing ``command``. ``export`` is one of them: its
   targets (``.pt2``, ``--hf``, ``--gguf``) are plugins of their own, found through the
   ``shapescript.export_targets`` entry points (``commands/export.py``), and ``check``
   takes its serving profiles (``--vllm``, ``--gguf``) from
   ``shapescript.check_profiles``.
2. The ``shapescript.commands`` entry-point group: a plugin distribution registers a
   top-level command (``lsp = "shapescript_lsp.cli:command"``). The entry point is
   loaded only when its command runs; ``shapescript --help`` lists it from the
   distribution's metadata. Where two plugins register one name, the first
   distribution by name wins.
3. ``EXTRAS``: commands that belong to an extra not installed. Running one says which
   extra to install, and exits 2.

So ``shapescript check`` imports neither torch nor any exporter (a subprocess test
checks this). An exception that escapes a command is a bug: it is reported as
``error[E0000]: internal error`` with exit code 3, and with ``SHAPESCRIPT_DEBUG=1`` the
traceback follows. SIGINT and SIGTERM end any command with one line and 130 or 143
(``shapescript.signals``); an output that can't be written (``WriteError``) with one
line naming it and 2.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import importlib.util
import os
import signal
import sys
import traceback

import click

from shapescript.api import COMMANDS as PLUGIN_GROUP
from shapescript.api import entry_points as _plugin_entry_points

from shapescript_cli.output import COLOR_KEY, debug_enabled

__all__ = ["EXTRAS", "LAZY_COMMANDS", "PLUGIN_GROUP", "ShapeScriptGroup", "main"]

LAZY_COMMANDS: dict[str, tuple[str, str]] = {
    # name: (module exposing `command`, one-line help shown without importing it)
    "build": ("shapescript_cli.commands.build", "Write the Python module a .ss file compiles to."),
    "check": ("shapescript_cli.commands.check", "Check .ss files and report their diagnostics."),
    "explain": ("shapescript_cli.commands.explain", "Explain an error code, or list them all."),
    "export": ("shapescript_cli.commands.export",
               "Export a function: .pt2, AOTInductor, --hf, --gguf (each from a plugin)."),
    "plot": ("shapescript_cli.commands.plot",
             "Draw the curves of a training log (run --log, sink)."),
    "run": ("shapescript_cli.commands.run",
            "Run a Python script with the import hook, or a .ss file's main."),
    "stubs": ("shapescript_cli.commands.stubs",
              "Write the Python type stubs (.pyi) of .ss files."),
}

# Commands that run programs, so need the core's runtime extra (torch and friends); a
# light install (`pip install shapescript-core shapescript-cli`) checks and builds
# without it, and these say what to install instead of failing on an import.
RUNTIME_COMMANDS = frozenset({"run"})
RUNTIME_MODULES = ("torch", "einops", "safetensors", "numpy")
RUNTIME_HINT = "pip install 'shapescript-core[runtime]'"

EXTRAS: dict[str, tuple[str, str]] = {
    # name: (extra that provides it, one-line help)
    "lsp": ("lsp", "The language server, for editors."),
    "port": ("port", "Port a PyTorch or transformers model to a checked .ss program."),
}


def _entry_points() -> dict[str, importlib.metadata.EntryPoint]:
    """The plugin commands by name (first distribution by name wins)."""
    return _plugin_entry_points(PLUGIN_GROUP)


def _dist_name(ep: importlib.metadata.EntryPoint) -> str:
    dist = getattr(ep, "dist", None)
    return dist.metadata["Name"] if dist is not None else ""


def _module_exists(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:
        return False


class ShapeScriptGroup(click.Group):
    """A group that resolves ``LAZY_COMMANDS``, plugins and ``EXTRAS`` on demand."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        names = set(self.commands)
        names |= {n for n, (mod, _) in LAZY_COMMANDS.items() if _module_exists(mod)}
        names |= set(_entry_points()) | set(EXTRAS)
        return sorted(names)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in self.commands:
            return self.commands[cmd_name]
        if cmd_name in LAZY_COMMANDS:
            module = LAZY_COMMANDS[cmd_name][0]
            if cmd_name in RUNTIME_COMMANDS:
                missing = [m for m in RUNTIME_MODULES if not _module_exists(m)]
                if missing:
                    return _stub(cmd_name, f"shapescript {cmd_name} needs {missing[0]}: "
                                           f"{RUNTIME_HINT}", 2, LAZY_COMMANDS[cmd_name][1])
            if _module_exists(module):
                # A module builds its command with `get_command()` when it depends on
                # what is installed (export's targets), else it is `command`.
                mod = importlib.import_module(module)
                return mod.get_command() if hasattr(mod, "get_command") else mod.command
            return _unavailable(cmd_name)
        ep = _entry_points().get(cmd_name)
        if ep is not None:
            return _load_plugin(cmd_name, ep)
        if cmd_name in EXTRAS:
            return _missing_extra(cmd_name, EXTRAS[cmd_name][0])
        return None

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        # Listed from static text and metadata, so `--help` imports no command.
        rows = [(name, self._short_help(name)) for name in self.list_commands(ctx)]
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)

    def _short_help(self, name: str) -> str:
        if name in self.commands:
            return self.commands[name].get_short_help_str(limit=70)
        if name in LAZY_COMMANDS:
            return LAZY_COMMANDS[name][1]
        ep = _entry_points().get(name)
        if ep is not None:
            dist = getattr(ep, "dist", None)
            summary = dist.metadata.get("Summary", "") if dist is not None else ""
            return f"{summary} [{_dist_name(ep)}]".strip()
        extra, text = EXTRAS[name]
        return f"{text} Needs shapescript[{extra}]."

    def invoke(self, ctx: click.Context) -> object:
        from shapescript.api import WriteError, stop_on_signals

        # SIGTERM unwinds as SIGINT does, so every writer removes its temporary.
        stop_on_signals()
        try:
            return super().invoke(ctx)
        except (click.exceptions.ClickException, click.exceptions.Exit,
                click.exceptions.Abort, EOFError):
            raise
        except KeyboardInterrupt as stop:
            ctx.exit(_report_stop(stop))
        except WriteError as err:  # an output: a full disk, a read-only folder …
            click.echo(f"error: {err}", err=True)
            ctx.exit(2)
        except BrokenPipeError:
            # The reader went away (`shapescript explain --list | head`): not a bug.
            # Point stdout at devnull so that the flush at exit doesn't fail again.
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
            ctx.exit(1)
        except ModuleNotFoundError as exc:
            # The runtime of a light install is missing: what to install, not a crash.
            if (exc.name or "").split(".")[0] not in RUNTIME_MODULES:
                _report_crash(traceback.format_exc())
                ctx.exit(3)
            what = (f"shapescript {ctx.invoked_subcommand}" if ctx.invoked_subcommand
                    else "this command")
            click.echo(f"error: {what} needs {exc.name}: {RUNTIME_HINT}", err=True)
            ctx.exit(2)
        except Exception:
            _report_crash(traceback.format_exc())
            ctx.exit(3)
        return None  # (not reached: each handler above exits)


def _report_stop(stop: KeyboardInterrupt) -> int:
    """One line for SIGINT or SIGTERM (none from a rank this command launched: the
    launcher says it), and the shell's exit code for the signal, 128 + its number."""
    from shapescript.api import signal_of, stop_message

    signum = signal_of(stop)
    for sig in (signal.SIGINT, signal.SIGTERM):  # a second one doesn't cut the line short
        signal.signal(sig, signal.SIG_IGN)
    from shapescript_cli.commands import _launch

    if not _launch.launched_here():
        click.echo(f"error: {stop_message(signum)}", err=True)
    return 128 + signum


def _report_crash(tb: str) -> None:
    from shapescript.api import internal_error_at, render_full

    note = ("this is a bug in ShapeScript, not in your program; please report it, "
            "with the command you ran")
    click.echo(render_full([internal_error_at(note=note)], {}), err=True, nl=False)
    if debug_enabled():
        click.echo(tb, err=True, nl=False)


def _stub(name: str, message: str, exit_code: int, help_text: str,
          tb: str | None = None) -> click.Command:
    """A command that only reports ``message`` (whatever its arguments) and exits."""

    def callback() -> None:
        click.echo(f"error: {message}", err=True)
        if tb and debug_enabled():
            click.echo(tb, err=True, nl=False)
        raise click.exceptions.Exit(exit_code)

    return click.Command(name, callback=callback, help=help_text, add_help_option=False,
                         context_settings={"ignore_unknown_options": True,
                                           "allow_extra_args": True})


def _missing_extra(name: str, extra: str) -> click.Command:
    return _stub(name, f"shapescript {name} needs the {extra} extra: "
                       f"pip install 'shapescript[{extra}]'", 2, EXTRAS[name][1])


def _unavailable(name: str) -> click.Command:
    return _stub(name, f"shapescript {name} is not available in this installation", 2,
                 LAZY_COMMANDS[name][1])


def _load_plugin(name: str, ep: importlib.metadata.EntryPoint) -> click.Command:
    try:
        command = ep.load()
    except Exception as exc:  # a broken installation: our bug or the plugin's
        return _stub(name, f"shapescript {name} could not be loaded from {ep.value} "
                           f"({_dist_name(ep)}): {type(exc).__name__}: {exc}", 3, "",
                     traceback.format_exc())
    if not isinstance(command, click.Command):
        return _stub(name, f"shapescript {name}: {ep.value} is not a click command", 3, "")
    return command


@click.group(cls=ShapeScriptGroup,
             context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="shapescript-cli", prog_name="shapescript")
@click.option("--color", type=click.Choice(["auto", "always", "never"]), default="auto",
              show_default=True,
              help="Colour diagnostics: auto is on a terminal, unless NO_COLOR or "
                   "TERM=dumb (FORCE_COLOR forces it).")
@click.pass_context
def main(ctx: click.Context, color: str) -> None:
    """ShapeScript: statically shape-typed tensor programs that compile to PyTorch."""
    ctx.meta[COLOR_KEY] = color

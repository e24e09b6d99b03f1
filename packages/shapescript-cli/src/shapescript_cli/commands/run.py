"""``shapescript run SCRIPT.py|FILE.ss [ARGS]…``: run a program with the import hook.

A Python script runs as ``python SCRIPT.py ARGS…`` would (as ``__main__``, with
``sys.argv = [SCRIPT, *ARGS]`` and its folder first on ``sys.path``), with ``.ss`` files
importable and ``SHAPESCRIPT_PYTHON`` set to this Python. A ``.ss`` file is imported as a
module and its ``main()`` is called, with ``sys.argv = [FILE, *ARGS]`` (DECISIONS §28).
A file that doesn't compile prints its diagnostics, without a traceback, and exits 1.
"""

from __future__ import annotations

import os
import runpy
import sys
import traceback

import click

from ._util import MODE_CHOICE, print_shapescript_error


@click.command(context_settings={"ignore_unknown_options": True,
                                 "allow_interspersed_args": False})
@click.option("--checks", type=MODE_CHOICE, default=None,
              help="Shape, dtype and device checks (default: always).")
@click.option("--value-checks", type=MODE_CHOICE, default=None,
              help="Domain checks (default: debug).")
@click.argument("script", type=click.Path(exists=True, dir_okay=False))
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
def command(checks, value_checks, script, args):
    """Run a Python script with the import hook installed, or a .ss file's main()."""
    from shapescript.importer import import_file, install
    from shapescript.rt.errors import ShapeScriptError

    install(checks=checks, value_checks=value_checks)
    os.environ["SHAPESCRIPT_PYTHON"] = sys.executable
    path = os.path.abspath(script)
    sys.argv = [script, *args]
    sys.path.insert(0, os.path.dirname(path))
    try:
        _require_source(script, path)
        if script.endswith(".ss"):
            module = import_file(path)
            main = getattr(module, "main", None)
            if not callable(main):
                click.echo(f"error: {script} has no fn main()", err=True)
                sys.exit(2)
            main()
        else:
            runpy.run_path(script, run_name="__main__")
    except ShapeScriptError as err:
        print_shapescript_error(err)
        sys.exit(1)
    except (SystemExit, KeyboardInterrupt):
        raise
    except BaseException as err:
        _print_user_traceback(err, path)
        sys.exit(1)


def _require_source(script, path):
    """Exit 2 unless the script is a file that can be read (not a FIFO, which would hang,
    a device or a file over the size limit); a .ss file that isn't UTF-8 is reported by
    the compiler."""
    from shapescript.source import read_source_bytes

    try:
        read_source_bytes(path)
    except OSError as err:
        click.echo(f"error: cannot read {script}: {err.strerror or err}", err=True)
        sys.exit(2)


def _print_user_traceback(err, path):
    """The traceback as ``python SCRIPT`` prints it: from the script's first frame on."""
    tb = err.__traceback__
    while tb is not None and os.path.abspath(tb.tb_frame.f_code.co_filename) != path:
        tb = tb.tb_next
    lines = traceback.format_exception(type(err), err, tb or err.__traceback__)
    qualified = f"shapescript.{type(err).__name__}: "
    if type(err).__module__ == "shapescript" and lines and lines[-1].startswith(qualified):
        # The book prints ShapeScript's run-time errors by their own name:
        # `ShapeError: spotter.ss:86:25: expected [P*P D] = (16, 48), got shape (16, 32)`.
        lines[-1] = lines[-1][len("shapescript."):]
    sys.stderr.write("".join(lines))
    sys.stderr.flush()

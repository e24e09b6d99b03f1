"""``shapescript build FILE.ss [-o OUT.py] [--standalone] [--checks …] [--value-checks …]
[--devices …]``: write the Python module a ``.ss`` file compiles to.

The module goes next to the source (``model.ss`` → ``model.py``) unless ``-o`` says
otherwise, written atomically; the flags are baked into it (DECISIONS §20, §28). Errors
print their diagnostics and exit 1 without writing anything; a missing file exits 2; an
internal error of the compiler exits 3.
"""

from __future__ import annotations

import os
import sys
import traceback

import click

from ._util import MODE_CHOICE, render


@click.command()
@click.argument("file", type=click.Path(exists=True, dir_okay=False))
@click.option("-o", "--output", type=click.Path(dir_okay=False), default=None,
              help="Where to write the module (default: FILE.py next to FILE.ss).")
@click.option("--standalone", is_flag=True,
              help="Inline the runtime helpers: the module needs only torch and einops.")
@click.option("--checks", type=MODE_CHOICE, default="always", show_default=True,
              help="Shape, dtype and device checks of arguments and `as`.")
@click.option("--value-checks", type=MODE_CHOICE, default="debug", show_default=True,
              help="Domain checks.")
@click.option("--devices", default=None,
              help="The program's device (cpu, cuda, cuda[0], mps); wins over the file's.")
def command(file, output, standalone, checks, value_checks, devices):
    """Write the Python module FILE.ss compiles to."""
    from shapescript import compiler

    if devices is not None:
        from shapescript.rt.device import parse_device
        try:
            parse_device(devices)
        except ValueError as err:
            raise click.BadParameter(str(err), param_hint="--devices")
    try:
        out = compiler.compile_file(file, checks=checks, value_checks=value_checks,
                                    devices=devices, standalone=standalone)
    except Exception:
        click.echo(f"error[E0000]: internal error\n --> {file}\n  |\n  = note: this is a "
                   "bug in ShapeScript, not in your program; please report it, with this "
                   "file", err=True)
        if os.environ.get("SHAPESCRIPT_DEBUG") == "1":
            traceback.print_exc()
        sys.exit(3)
    if out.diagnostics:
        click.echo(render(out.diagnostics, out.sources).rstrip("\n"), err=True)
    errors = [d for d in out.diagnostics if getattr(d, "severity", "error") == "error"]
    if out.python is None or errors:
        sys.exit(3 if any(getattr(d, "code", "") == "E0000" for d in errors) else 1)
    target = output or os.path.splitext(file)[0] + ".py"
    try:
        _write_atomically(target, out.python)
    except OSError as err:
        click.echo(f"error: cannot write {target}: {err.strerror or err}", err=True)
        sys.exit(2)


def _write_atomically(path, text):
    folder = os.path.dirname(os.path.abspath(path))
    tmp = os.path.join(folder, f".{os.path.basename(path)}.{os.getpid()}.tmp")
    try:
        with open(tmp, "w", encoding="utf-8", newline="\n") as f:
            f.write(text)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)

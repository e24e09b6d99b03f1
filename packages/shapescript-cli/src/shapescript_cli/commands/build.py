"""``shapescript build FILE.ss [-o OUT.py] [--standalone] [--checks …] [--value-checks …]
[--devices …] [--stubs …]``: write the Python module a ``.ss`` file compiles to.

The module goes next to the source (``model.ss`` → ``model.py``) unless ``-o`` says
otherwise, written atomically; the flags are baked into it. With ``--stubs STYLE`` (or
``[tool.shapescript]``'s ``stubs``) its type stub goes beside it (``model.pyi``). Errors
print their diagnostics and exit 1 without writing anything; a missing file exits 2; an
internal error of the compiler exits 3.
"""

from __future__ import annotations

import os
import sys
import traceback

import click

from shapescript.api import INTERNAL_NOTE, atomic_write, py_comment, same_file

from shapescript_cli.output import debug_enabled, fail

from ._util import MODE_CHOICE, render
from shapescript.api import error_codes as ec


@click.command()
@click.argument("file", type=click.Path(exists=True, dir_okay=False))
@click.option("-o", "--output", type=click.Path(dir_okay=False), default=None,
              help="Where to write the module (default: FILE.py next to FILE.ss).")
@click.option("--standalone", is_flag=True,
              help="Inline the runtime helpers: the module needs only torch and einops.")
@click.option("--checks", type=MODE_CHOICE, default=None,
              help="Shape, dtype and device checks of arguments and `as` (default: "
                   "[tool.shapescript]'s checks, else always).")
@click.option("--value-checks", type=MODE_CHOICE, default=None,
              help="Domain checks (default: [tool.shapescript]'s value-checks, else debug).")
@click.option("--devices", default=None,
              help="The program's device (cpu, cuda, cuda[0], mps); wins over the file's.")
@click.option("--stubs", type=click.Choice(["pyrefly", "jaxtyping", "none"]), default=None,
              help="Also write the module's type stub (OUT.pyi) in this style (default: "
                   "[tool.shapescript]'s stubs, else none).")
@click.option("--dim", "dims", multiple=True, metavar="NAME=N",
              help="Set the file's dim NAME to N (the file is checked again for it); "
                   "repeat for several.")
def command(file, output, standalone, checks, value_checks, devices, stubs, dims):
    """Write the Python module FILE.ss compiles to."""
    from shapescript import api as compiler

    dim_values = parse_dims(dims)

    if devices is not None:
        from shapescript.api import device_parts
        try:
            device_parts(devices)
        except ValueError as err:
            raise click.BadParameter(str(err), param_hint="--devices")
    target = output or os.path.splitext(file)[0] + ".py"
    _refuse_input_as_output(target, [file])
    from shapescript_cli.config import default_modes, default_stubs  # [tool.shapescript]

    checks, value_checks = default_modes(file, checks, value_checks)
    stubs = default_stubs(file, stubs)
    more = {"stubs": stubs} if stubs is not None else {}  # the same call as ever without
    checks, value_checks = checks or "always", value_checks or "debug"
    try:
        if dim_values:
            src = compiler.read_source(file)
            try:
                src = compiler.source_with_dims(src, file, dim_values)
            except ValueError as err:
                raise click.BadParameter(str(err).removeprefix("dims: "), param_hint="--dim")
            out = compiler.compile_source(src, file, checks=checks, value_checks=value_checks,
                                          devices=devices, standalone=standalone, **more)
        else:
            out = compiler.compile_file(file, checks=checks, value_checks=value_checks,
                                        devices=devices, standalone=standalone, **more)
    except click.BadParameter:
        raise
    except OSError as err:  # a FIFO, a device, a file over the size limit, unreadable
        click.echo(f"error: cannot read {file}: {err.strerror or err}", err=True)
        sys.exit(2)
    except Exception:
        click.echo(f"error[E0000]: internal error\n --> {file}\n  |\n  = note: {INTERNAL_NOTE}",
                   err=True)
        if debug_enabled():
            traceback.print_exc()
        sys.exit(3)
    if out.diagnostics:
        click.echo(render(out.diagnostics, out.sources).rstrip("\n"), err=True)
    errors = [d for d in out.diagnostics if getattr(d, "severity", "error") == "error"]
    if out.python is None or errors:
        sys.exit(3 if any(getattr(d, "code", "") == ec.E0000 for d in errors) else 1)
    _refuse_input_as_output(target, list(out.sources))
    stub_target = os.path.splitext(target)[0] + ".pyi"
    if out.stub is not None:
        _refuse_input_as_output(stub_target, [file, *out.sources])
    # A target that can't be written is a WriteError naming it: exit 2 (the command's).
    atomic_write(target, wrap(out.python, file, target))
    if out.stub is not None:
        atomic_write(stub_target, out.stub)


def parse_dims(dims):
    """``("D=768", "L=12")`` → ``{"D": 768, "L": 12}``; a malformed one is a usage error."""
    out = {}
    for text in dims:
        name, eq, value = text.partition("=")
        name, value = name.strip(), value.strip()
        if not eq or not name.isidentifier() or not value.isdigit() or int(value) < 1:
            raise click.BadParameter(f"`{text}` is not NAME=N with N a positive integer",
                                     param_hint="--dim")
        out[name] = int(value)
    return out


def wrap(python, source, target):
    """The module file: the generated code, run under the ``.ss`` file's name.

    Its body runs through ``compile(src, "<dir>/model.ss", "exec")`` from a string
    so tracebacks show the ``.ss`` lines, found next to this file.
    """
    ss = os.path.relpath(os.path.abspath(source), os.path.dirname(os.path.abspath(target)))
    if "\'\'\'" in python or python.endswith("\\"):
        literal = repr(python)
    else:
        literal = "r\'\'\'" + python + "\'\'\'"
    return (py_comment(f"Generated by `shapescript build` from {os.path.basename(source)}: "
                       "edit that file, not this one.") + "\n"
            "# The code below runs under the .ss file's name, so tracebacks show its lines.\n"
            "import os as _ss_os\n\n"
            f"_ss_source = {literal}\n"
            f"exec(compile(_ss_source, _ss_os.path.join(_ss_os.path.dirname(_ss_os.path.abspath(__file__)), "
            f"{ss!r}), \"exec\"))\n")


def _refuse_input_as_output(target, inputs):
    """An output that is one of the files the command reads would destroy the source."""
    for source in inputs:
        if not source.startswith("<") and same_file(target, source):
            fail(f"the output {target} is the input {source}: choose another path with -o")

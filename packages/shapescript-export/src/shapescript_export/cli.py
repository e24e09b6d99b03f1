"""``shapescript export FILE [--fn NAME] [-o OUT.pt2] [--aoti] [--checks …]
[--value-checks …] [--devices …] [--python PY] [--emit-python FILE]`` (book ch. 17).

Exit codes (DECISIONS §28): 0 written; 1 errors in the file (the diagnostics), or an
error from torch (its message and the ``.ss`` location where it can be found); 2 an
error of the command (a missing or ambiguous ``--fn``, a bad option, a Python that
can't trace); 3 an internal error. A failed export leaves no output file.
"""

from __future__ import annotations

import os
import sys

import click

__all__ = ["command"]

MODES = click.Choice(["always", "debug", "never"])
NO_CXX = ("--aoti needs a C++ compiler, and none was found (looked for $CXX, c++, g++ and "
          "clang++ on PATH); install one, or export without --aoti")


def _use_color() -> bool:
    if os.environ.get("NO_COLOR") or os.environ.get("TERM") == "dumb":
        return False
    return bool(getattr(sys.stderr, "isatty", lambda: False)())


def _fail(message: str, code: int) -> None:
    click.echo(f"error: {message}", err=True)
    raise click.exceptions.Exit(code)


def _report_diagnostics(err) -> None:
    from shapescript.importer import render_diagnostics

    text = render_diagnostics(err.diagnostics, err.sources, color=_use_color()) \
        if err.diagnostics else str(err)
    click.echo(text.rstrip("\n"), err=True)
    internal = any(getattr(d, "code", "") == "E0000" for d in err.diagnostics)
    raise click.exceptions.Exit(3 if internal else 1)


def render_torch_error(fn: str, message: str, location, sources: dict[str, str]) -> str:
    """torch's error in the diagnostics' layout: the message, then the ``.ss`` location
    and its line."""
    first, _, rest = message.strip().partition("\n")
    out = [f"error: torch.export could not export `{fn}`: {first}"]
    if location is not None:
        path, line, col = location
        out.append(f" --> {path}:{line}:{col}")
        text = sources.get(path, "").splitlines()
        if 1 <= line <= len(text):
            width = len(str(line))
            out += [f"{' ' * width} |", f"{line} | {text[line - 1].rstrip()}", f"{' ' * width} |"]
    if rest.strip():
        out.append(rest.rstrip())
    return "\n".join(out)


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("file", type=click.Path(exists=True, dir_okay=False))
@click.option("--fn", "fn", default=None, metavar="NAME",
              help="The function to export (default: the file's only export fn).")
@click.option("-o", "--output", type=click.Path(dir_okay=False), default=None,
              help="Where to write the program (default: FILE with a .pt2 extension).")
@click.option("--aoti", is_flag=True,
              help="Write an AOTInductor package instead (needs a C++ compiler).")
@click.option("--checks", type=MODES, default="always", show_default=True,
              help="Shape checks of `as`, as torch._check facts.")
@click.option("--value-checks", type=MODES, default="debug", show_default=True,
              help="Value (domain) checks, as aten._assert_async.")
@click.option("--devices", default=None,
              help="The device of the example inputs (cpu, cuda, cuda[0], mps).")
@click.option("--python", "python", default=None, metavar="PY",
              help="The Python that traces (default: $SHAPESCRIPT_PYTHON, else this one).")
@click.option("--emit-python", type=click.Path(dir_okay=False), default=None, metavar="FILE",
              help="Write the export module (torch and einops only) instead of exporting.")
def command(file, fn, output, aoti, checks, value_checks, devices, python, emit_python):
    """Export a function of FILE with torch.export, to a .pt2 program or an
    AOTInductor package."""
    from shapescript.rt.errors import ShapeScriptError

    from shapescript_export.api import prepare
    from shapescript_export.runner import python_for_tracing, run_module

    try:
        prep = prepare(file, fn, checks=checks, value_checks=value_checks, devices=devices,
                       option="--fn")
    except ShapeScriptError as err:
        _report_diagnostics(err)
    except ValueError as err:
        _fail(str(err), 2)
    except OSError as err:
        _fail(f"cannot read {file}: {err.strerror or err}", 2)
    if emit_python is not None:
        _write(emit_python, prep.source)
        return
    target = output or os.path.splitext(file)[0] + ".pt2"
    if not os.path.isdir(os.path.dirname(os.path.abspath(target))):
        _fail(f"cannot write {target}: its folder doesn't exist", 2)
    if aoti:
        from shapescript_export.runner import find_cxx

        if find_cxx() is None:
            _fail(NO_CXX, 1)
    py = python_for_tracing(python, own=sys.executable)
    stem = os.path.splitext(os.path.basename(file))[0]
    # `debug` checks follow the Python that exports: the command's own -O carries over.
    result = run_module(prep.source, target, python=py, aoti=aoti,
                        name=f"{stem}_{prep.fn}_export", optimize=sys.flags.optimize > 0)
    debug = os.environ.get("SHAPESCRIPT_DEBUG", "") not in ("", "0")
    if result.status == "ok":
        if debug and result.stderr:
            click.echo(result.stderr.rstrip("\n"), err=True)
        return
    if result.status == "torch":
        loc = result.location or (file, prep.line, prep.column)
        click.echo(render_torch_error(prep.fn, result.message, loc, prep.sources), err=True)
        if debug:
            click.echo(result.traceback.rstrip("\n"), err=True)
        raise click.exceptions.Exit(1)
    if result.status == "export":
        _fail(result.message, 1)
    if result.status in ("no-python", "no-torch"):
        _fail(f"{result.message}; tracing needs a Python with torch and einops: choose one "
              "with --python or SHAPESCRIPT_PYTHON", 2)
    click.echo(f"error: tracing `{prep.fn}` failed: {result.message}", err=True)
    if result.stderr:
        click.echo(result.stderr.rstrip("\n"), err=True)
    raise click.exceptions.Exit(1)


def _write(path: str, text: str) -> None:
    folder = os.path.dirname(os.path.abspath(path))
    tmp = os.path.join(folder, f".{os.path.basename(path)}.{os.getpid()}.tmp")
    try:
        with open(tmp, "w", encoding="utf-8", newline="\n") as f:
            f.write(text)
        os.replace(tmp, path)
    except OSError as err:
        _fail(f"cannot write {path}: {err.strerror or err}", 2)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)

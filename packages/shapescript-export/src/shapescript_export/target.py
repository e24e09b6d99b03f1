"""The ``.pt2``/AOTInductor export target: what ``shapescript export FILE [-o OUT.pt2]
[--aoti] …`` does, registered in the ``shapescript.export_targets`` entry-point group.

Exit codes: 0 written; 1 errors in the file (the diagnostics), or an error from torch
(its message and the ``.ss`` location where it can be found); 2 an error of the command
(a missing or ambiguous ``--fn``, a bad option, a Python that can't trace, an output
that can't be written); 3 an internal error. A failed export leaves no output file.

Importing this module is light (click only): ``shapescript export --help`` lists the
options without importing torch.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Sequence
from typing import Any

from shapescript.api import ExportFailed, debug_enabled, probe_writable, same_file

__all__ = ["TARGET", "Pt2Target", "render_torch_error"]

NO_CXX = ("--aoti needs a C++ compiler, and none was found (looked for $CXX, c++, g++ and "
          "clang++ on PATH); install one, or export without --aoti")


def render_torch_error(fn: str, message: str, location: tuple[str, int, int] | None,
                       sources: dict[str, str]) -> str:
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


def check_output(path: str, inputs: Sequence[str]) -> None:
    """Refuse an output that is one of the command's inputs, or whose folder doesn't
    exist or can't be written — before any tracing, which takes a while."""
    for source in inputs:
        if same_file(path, source):
            raise ExportFailed(f"the output {path} is the input {source}: choose another "
                               "path with -o", 2)
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise ExportFailed(f"cannot write {path}: its folder doesn't exist", 2)
    if os.path.isdir(path):
        raise ExportFailed(f"cannot write {path}: it is a folder", 2)
    # Try it: permissions, read-only mounts and root alike (os.access can't tell them).
    try:
        probe_writable(path)
    except OSError as err:
        raise ExportFailed(f"cannot write {path}: its folder {folder} isn't writable "
                           f"({err.strerror or err})", 2) from None


class Pt2Target:
    """``torch.export`` programs and AOTInductor packages (the default target)."""

    name = "pt2"
    flag = None
    extra = "export"
    summary = "a torch.export program (.pt2) or an AOTInductor package (--aoti)"

    def options(self) -> list[Any]:
        import click

        from shapescript_export.model_export import weight_options

        modes = click.Choice(["always", "debug", "never"])
        return [
            click.Option(["-o", "--output"], type=click.Path(dir_okay=False), default=None,
                         help="Where to write the program (default: FILE with a .pt2 "
                              "extension)."),
            click.Option(["--aoti"], is_flag=True,
                         help="Write an AOTInductor package instead (needs a C++ compiler)."),
            click.Option(["--checks"], type=modes, default="always", show_default=True,
                         help="Shape checks of `as`, as torch._check facts."),
            click.Option(["--value-checks"], type=modes, default="debug", show_default=True,
                         help="Value (domain) checks, as aten._assert_async."),
            click.Option(["--devices"], default=None,
                         help="The device of the example inputs (cpu, cuda, cuda[0], mps)."),
            click.Option(["--python"], default=None, metavar="PY",
                         help="The Python that traces (default: $SHAPESCRIPT_PYTHON, else "
                              "this one)."),
            click.Option(["--emit-python"], type=click.Path(dir_okay=False), default=None,
                         metavar="FILE",
                         help="Write the export module (torch and einops only) instead of "
                              "exporting."),
            *weight_options(),
        ]

    @property
    def api(self) -> Callable[..., Any]:
        from shapescript_export import export

        return export

    def run(self, file: str, fn: str | None, options: dict[str, Any]) -> int:
        import click
        from shapescript.api import Progress, atomic_write

        from shapescript_export.api import prepare
        from shapescript_export.runner import find_cxx, python_for_tracing, run_module

        output, aoti = options.get("output"), options.get("aoti", False)
        emit = options.get("emit_python")
        target = output or os.path.splitext(file)[0] + ".pt2"
        check_output(emit if emit is not None else target, [file])
        progress = Progress()             # phases on a terminal, then what was written
        if self.run_model(file, fn, target, options):
            progress.wrote(target)
            return 0
        with progress.phase("checking"):
            prep = prepare(file, fn, checks=options.get("checks", "always"),
                           value_checks=options.get("value_checks", "debug"),
                           devices=options.get("devices"), option="--fn")
        # Imported .ss files are inputs too.
        check_output(emit if emit is not None else target, list(prep.sources))
        if emit is not None:
            atomic_write(emit, prep.source)
            progress.wrote(emit)
            return 0
        if aoti and find_cxx() is None:
            raise ExportFailed(NO_CXX, 1)
        py = python_for_tracing(options.get("python"), own=sys.executable)
        stem = os.path.splitext(os.path.basename(file))[0]
        # `debug` checks follow the Python that exports: the command's own -O carries over.
        # One process traces, lowers (AOTInductor) and writes: one phase, named for both.
        with progress.phase("tracing and compiling" if aoti else "tracing"):
            result = run_module(prep.source, target, python=py, aoti=aoti,
                                name=f"{stem}_{prep.fn}_export",
                                optimize=sys.flags.optimize > 0)
        debug = debug_enabled()
        if result.status == "ok":
            if debug and result.stderr:
                click.echo(result.stderr.rstrip("\n"), err=True)
            progress.wrote(target, "AOTInductor package" if aoti else "")
            return 0
        if result.status == "torch":
            loc = result.location or (file, prep.line, prep.column)
            click.echo(render_torch_error(prep.fn, result.message, loc, prep.sources), err=True)
            if debug:
                click.echo(result.traceback.rstrip("\n"), err=True)
            return 1
        if result.status == "export":
            raise ExportFailed(result.message, 1)
        if result.status in ("no-python", "no-torch"):
            raise ExportFailed(f"{result.message}; tracing needs a Python with torch and "
                               "einops: choose one with --python or SHAPESCRIPT_PYTHON", 2)
        if result.status == "interrupted":
            from shapescript.api import Stopped

            raise Stopped(result.signum)
        if result.status == "write":
            from shapescript.api import WriteError

            raise WriteError(result.errno, result.message, target)
        click.echo(f"error: tracing `{prep.fn}` failed: {result.message}", err=True)
        if result.stderr:
            click.echo(result.stderr.rstrip("\n"), err=True)
        return 1


    def run_model(self, file: str, fn: str | None, target: str, options: dict[str, Any]) -> bool:
        """A function that takes the model first: exported here, its model's fields the
        program's parameters (True when done). ``--weights``/``--seed`` for any other
        function are an error of the command."""
        from shapescript_export.model_program import export_model, takes_model

        weights, seed = options.get("weights"), options.get("seed")
        if not takes_model(file, fn):
            if weights is not None or seed is not None:
                what = f" (`{fn}` doesn't)" if fn else ", named with --fn"
                raise ExportFailed(f"--weights and --seed need a function that takes the "
                                   f"model first{what}", 2)
            return False
        for option, given in (("--emit-python", options.get("emit_python")),
                              ("--python", options.get("python"))):
            if given is not None:
                raise ExportFailed(f"{option} isn't supported yet for a function that takes "
                                   "the model first: it is traced in this Python", 2)
        from shapescript_export.model_export import ModelExportError

        try:
            export_model(file, fn, target, weights=weights, seed=seed or 0,
                         aoti=options.get("aoti", False), checks=options.get("checks", "always"),
                         value_checks=options.get("value_checks", "debug"),
                         devices=options.get("devices"))
        except ModelExportError as err:
            raise ExportFailed(str(err), 2) from None
        return True


TARGET = Pt2Target()

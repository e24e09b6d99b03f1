"""``shapescript stubs [PATH…] [-o DIR] [--style pyrefly|jaxtyping] [--check]``: write the
Python type stubs of ``.ss`` files, so that Pyrefly, pyright and mypy check Python callers
against their signatures.

Each ``NAME.ss`` gets ``NAME.pyi`` next to it (in ``DIR`` with ``-o``); a directory is
walked as ``check`` walks it (``[tool.shapescript]``'s ``exclude``, ``.gitignore``), and
with no PATH the configuration's ``paths`` are. The style is ``--style``, else the
configuration's ``stubs``, else ``pyrefly``.

Every file is checked before anything is written: a file with errors prints its
diagnostics and exits 1, writing no stub. A stub whose text is unchanged is not rewritten.
``--check`` writes nothing and exits 1 when a stub is missing or out of date (for CI and
pre-commit), naming each. A missing or unreadable file, or two inputs that would write
one stub, exit 2.
"""

from __future__ import annotations

import os
from pathlib import Path

import click

from shapescript.api import STUB_STYLES, atomic_write

from shapescript_cli.output import fail

from ._util import render


@click.command()
@click.argument("paths", nargs=-1, type=click.Path())
@click.option("-o", "--output", "out_dir", type=click.Path(file_okay=False), default=None,
              metavar="DIR", help="Write the stubs into DIR (default: NAME.pyi next to "
                                  "each NAME.ss).")
@click.option("--style", type=click.Choice(STUB_STYLES), default=None,
              help="pyrefly: Pyrefly's shape-aware tensors; jaxtyping: dtype and shape "
                   "annotations for pyright and mypy (default: [tool.shapescript]'s "
                   "stubs, else pyrefly).")
@click.option("--check", "check_only", is_flag=True,
              help="Write nothing; exit 1 when a stub is missing or out of date.")
def command(paths: tuple[str, ...], out_dir: str | None, style: str | None,
            check_only: bool) -> None:
    """Write the Python type stubs (NAME.pyi) of .ss files and directories."""
    from shapescript.api import check_file, stub_source

    from shapescript_cli.config import ConfigError, load_config
    from shapescript_cli.walk import collect

    try:
        config = load_config()
    except ConfigError as err:
        fail(str(err))
    style = style or config.stubs or "pyrefly"
    if not paths:
        if not config.paths:
            fail("give the files or directories to write stubs of, or set `paths` in "
                 "[tool.shapescript] (pyproject.toml or shapescript.toml)")
        paths = tuple(str(config.root / p) for p in config.paths)
    files = collect(paths, config)
    if not files:
        fail(f"no .ss files in {', '.join(paths)}")
    targets = _targets(files, out_dir)
    stubs: dict[str, str] = {}
    failed = False
    for source, target in targets.items():
        try:
            program = check_file(source)
        except OSError as err:
            fail(f"cannot read {source}: {err.strerror or err}")
        if not program.ok or program.main is None:
            click.echo(render(program.diagnostics, program.sources).rstrip("\n"), err=True)
            failed = True
            continue
        stubs[target] = stub_source(program.main, style)
    if failed:
        raise click.exceptions.Exit(1)
    stale = [t for t, text in stubs.items() if _current(t) != text]
    if check_only:
        for target in stale:
            click.echo(f"{target}: out of date (run `shapescript stubs` to rewrite it)")
        raise click.exceptions.Exit(1 if stale else 0)
    for target in stale:
        try:
            os.makedirs(os.path.dirname(os.path.abspath(target)), exist_ok=True)
            atomic_write(target, stubs[target])
        except OSError as err:
            fail(f"cannot write {target}: {err.strerror or err}")


def _targets(files: list[str], out_dir: str | None) -> dict[str, str]:
    """Each ``.ss`` file's stub path; exit 2 when two would write one stub."""
    out: dict[str, str] = {}
    written: dict[str, str] = {}
    for source in files:
        if not os.path.isfile(source):
            fail(f"cannot read {source}: no such file")
        stem = Path(source).stem
        target = (os.path.join(out_dir, stem + ".pyi") if out_dir is not None
                  else os.path.splitext(source)[0] + ".pyi")
        key = os.path.normcase(os.path.abspath(target))
        if key in written:
            fail(f"{written[key]} and {source} would both write {target}: write them "
                 "into different folders")
        written[key] = source
        out[source] = target
    return out


def _current(target: str) -> str | None:
    """The stub's text as it is on disk, or None when there is none."""
    try:
        with open(target, encoding="utf-8", newline="") as f:
            return f.read()
    except (OSError, UnicodeDecodeError):
        return None

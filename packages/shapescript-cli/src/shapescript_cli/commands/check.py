"""``shapescript check [PATH…]``: every diagnostic of each file, and an exit code.

It works as linters do (``docs/check.md``):

* PATHs are files or directories; a directory is walked for ``.ss`` files, skipping what
  ``.gitignore`` ignores and the ``exclude`` patterns (``shapescript_cli.walk``). ``-``
  reads one program from stdin, named by ``--stdin-filename`` (which also places its
  imports). Without a PATH, the configuration's ``paths`` are checked.
* The settings come from the nearest ``shapescript.toml`` or ``pyproject.toml`` with a
  ``[tool.shapescript]`` table (``shapescript_cli.config``), or ``--config FILE``:
  ``select``/``ignore`` (codes or prefixes; ``--select``/``--ignore`` are a level above
  them, resolved as ruff does: ``Config.reports``) and ``per-file-ignores``. A ``# noqa:
  CODE`` comment hides that code on its line (``shapescript.suppressions``; E1901 for an
  unused one). E0000 (an internal error) is never hidden.
* ``--fix`` makes the edits the diagnostics' help names (``shapescript.fixes``, the
  editor's quick fixes), checks again, and reports what is left; ``--exit-zero`` exits 0
  when errors are found.
* ``--format``: ``full`` (rustc's layout), ``concise`` (one line each), ``json`` (one
  array), ``github`` (Actions annotations), ``sarif`` (SARIF 2.1.0). Diagnostics go to
  stdout; the summary line ("Found 3 errors in 2 files (5 checked).") goes to stderr, so
  stdout stays exactly the chosen format. It is printed when more than one file was
  checked and something was found (``--quiet`` drops it); a clean check prints nothing.
  ``--statistics`` prints how many of each code instead of the diagnostics.

Exit codes: 0 clean or warnings only, 1 errors, 2 an error of the command (a missing or
unreadable file, no files found, a bad configuration), 3 an internal error.

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
import sys
import traceback
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from shapescript_cli.output import COLOR_KEY, debug_enabled, fail, use_color
from shapescript.api import error_codes as ec

if TYPE_CHECKING:
    from shapescript.diagnostics import Diagnostic

    from shapescript_cli.config import Config

FORMATS = ("full", "concise", "json", "github", "sarif")
STDIN = "-"


class _CheckCommand(click.Command):
    """Refuses a known profile's flag whose package is missing before Click parses, and
    adds a profile's own options (``--vllm --tp N``) only when the command line names the
    profile or one of them, or asks for help: loading a profile imports its exporter,
    which a plain ``check`` never needs."""

    def __init__(self, *args: Any, missing: dict[str, str], lazy: dict[str, Any],
                 options: dict[str, list[str]], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.missing = missing
        self.lazy = lazy          # the profiles whose options aren't added yet, by name
        self.options = options    # a profile's own options, by the profile

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        words: set[str] = set()
        for arg in args:
            if arg == "--":
                break
            if arg in self.missing:
                from shapescript.api import missing_hint

                fail(missing_hint(f"`{arg}`", self.missing[arg]))
            if arg.startswith("-"):
                words.add(arg.split("=", 1)[0])
        self._add_profile_options(words)
        return super().parse_args(ctx, args)

    def _add_profile_options(self, words: set[str]) -> None:
        from shapescript.api import KNOWN_PROFILES

        asks_help = bool(words & {"--help", "-h"})
        for name, ep in list(self.lazy.items()):
            known = KNOWN_PROFILES.get(name)
            names = {f"--{name}"} | set(known.options if known is not None else ())
            if asks_help or words & names:
                del self.lazy[name]
                for opt in _profile_options(ep):
                    self.params.append(opt)
                    self.options.setdefault(name, []).append(opt.name or "")


def get_command() -> click.Command:
    """``check`` with a flag for each installed check profile."""
    from shapescript.api import CHECK_PROFILES, KNOWN_PROFILES, entry_points

    eps = entry_points(CHECK_PROFILES)
    params: list[click.Parameter] = [
        click.Argument(["paths"], nargs=-1, metavar="[PATH]...",
                       type=click.Path(allow_dash=True)),
        click.Option(["--format", "fmt"], type=click.Choice(FORMATS), default="full",
                     show_default=True,
                     help="full: rustc's layout; concise: one line each; json: one array; "
                          "github: Actions annotations; sarif: SARIF 2.1.0."),
        click.Option(["--select"], multiple=True, metavar="CODES",
                     help="Report only these codes or prefixes (E0413,E04); wins over "
                          "the configuration's."),
        click.Option(["--ignore"], multiple=True, metavar="CODES",
                     help="Never report these codes or prefixes; wins over the "
                          "configuration's."),
        click.Option(["--config", "config_file"], type=click.Path(dir_okay=False),
                     default=None, metavar="FILE",
                     help="The settings file (default: the nearest shapescript.toml or "
                          "pyproject.toml with [tool.shapescript])."),
        click.Option(["--stdin-filename"], default=None, metavar="PATH",
                     help="The name of the program read from `-` (its imports are "
                          "found beside it)."),
        click.Option(["--statistics"], is_flag=True,
                     help="How many of each code, instead of the diagnostics."),
        click.Option(["--color"], type=click.Choice(["auto", "always", "never"]),
                     default=None,
                     help="Colour diagnostics (default: the shapescript --color setting)."),
        click.Option(["-q", "--quiet"], is_flag=True,
                     help="No summary line on stderr."),
        click.Option(["--exit-zero"], is_flag=True,
                     help="Exit 0 even when errors are found (2 and 3 stay: a mistake of "
                          "the command, an internal error)."),
        click.Option(["--fix"], is_flag=True,
                     help="Make the edits the diagnostics' help names (the editor's quick "
                          "fixes) in the files, then report what is left."),
    ]
    options: dict[str, list[str]] = {}   # a profile's own options, by the profile
    for name, ep in eps.items():
        params.append(click.Option([f"--{name}", f"profile_{name}"], is_flag=True,
                                   help=f"Also the rules of {name} (from {ep.value})."))
    if eps:
        params.append(click.Option(["--fn"], default=None, metavar="NAME",
                                   help="The forward function the profiles check "
                                        "(default: forward)."))
    missing = {k.flag: k.extra for k in KNOWN_PROFILES.values()
               if k.flag is not None and k.name not in eps}

    def callback(paths: tuple[str, ...], fmt: str, select: tuple[str, ...],
                 ignore: tuple[str, ...], config_file: str | None,
                 stdin_filename: str | None, statistics: bool, color: str | None,
                 quiet: bool, exit_zero: bool, fix: bool, fn: str | None = None,
                 **flags: Any) -> None:
        if color is not None:
            click.get_current_context().find_root().meta[COLOR_KEY] = color
        profiles = _chosen_profiles(eps, options, flags)
        config = _load_config(config_file, select, ignore)
        if not paths:
            if not config.paths:
                fail("give the files or directories to check, or set `paths` in "
                     "[tool.shapescript] (pyproject.toml or shapescript.toml)")
            paths = tuple(str(config.root / p) if not os.path.isabs(p) else p
                          for p in config.paths)
        run_check(paths, fmt, profiles, fn, config=config, stdin_filename=stdin_filename,
                  statistics=statistics, quiet=quiet, exit_zero=exit_zero, fix=fix)

    return _CheckCommand("check", params=params, callback=callback, missing=missing,
                         lazy=dict(eps), options=options,
                         help="Check .ss files and directories and report their "
                              "diagnostics (- reads stdin).")


def _chosen_profiles(eps: Any, options: dict[str, list[str]],
                     flags: dict[str, Any]) -> list[Any]:
    """The check profiles the flags chose, each with its own options' values; exit 2
    for a profile's option without its flag, 3 for a profile that can't be loaded."""
    chosen = [name for name in eps if flags.get(f"profile_{name}")]
    for name, names in options.items():
        given = [n for n in names if flags.get(n) is not None]
        if given and name not in chosen:
            fail(f"--{given[0].replace('_', '-')} needs --{name}")
    profiles = []
    for name in chosen:
        try:
            profile = eps[name].load()
        except Exception as exc:  # a broken installation
            fail(f"the check profile {name} could not be loaded from "
                 f"{eps[name].value}: {type(exc).__name__}: {exc}", 3)
        if name in options:
            profile = profile.configured({n: flags.get(n) for n in options[name]})
        profiles.append(profile)
    return profiles


def _profile_options(ep: Any) -> list[click.Parameter]:
    """The options a check profile takes beside its flag (``--vllm --tp N``): its
    ``options()``, where it has them (a profile's module is light to load)."""
    try:
        profile = ep.load()
    except Exception:  # reported when the profile is chosen
        return []
    if not hasattr(profile, "options") or not hasattr(profile, "configured"):
        return []
    return list(profile.options())


def _load_config(config_file: str | None, select: tuple[str, ...],
                 ignore: tuple[str, ...]) -> Config:
    """The settings, with the command line's codes a level above the file's
    (``Config.reports``); exit 2 if bad."""
    import dataclasses

    from shapescript_cli.config import ConfigError, load_config, parse_codes

    try:
        config = load_config(config_file)
        config = dataclasses.replace(config, cli_select=parse_codes(select, "--select"),
                                     cli_ignore=parse_codes(ignore, "--ignore"))
    except ConfigError as err:
        fail(str(err))
    return config


def run_check(files: Sequence[str], fmt: str, profiles: Sequence[Any] = (),
              fn: str | None = None, *, config: Config | None = None,
              stdin_filename: str | None = None, statistics: bool = False,
              quiet: bool = False, exit_zero: bool = False, fix: bool = False) -> None:
    """Check ``files`` (directories walked; ``-`` is stdin) with the check ``profiles``'
    rules, hide what ``# noqa`` comments and the configuration's codes hide, make the
    quick fixes with ``fix``, print, and exit."""
    from shapescript_cli.config import Config
    from shapescript_cli.walk import collect

    if config is None:
        config = Config(root=Path.cwd())
    if files.count(STDIN) > 1:
        fail("`-` (stdin) can be given once")
    if stdin_filename is not None and STDIN not in files:
        fail("--stdin-filename names the program read from `-`; give `-` too")
    if fix and STDIN in files:
        fail("--fix edits files: it can't fix the program read from `-`")
    excluded: list[str] = []
    targets = collect(files, config, excluded)
    for path in targets:
        if path != STDIN:
            _require_readable(path)
    if not targets:
        if excluded:  # a hook named only excluded files: nothing to do, and no mistake
            raise click.exceptions.Exit(0)
        fail(f"no .ss files to check in {', '.join(files)}")
    stdin = None
    if STDIN in targets:
        stdin = _read_stdin(stdin_filename or "<stdin>")
    names = [stdin[0] if t == STDIN and stdin is not None else t for t in targets]
    diags, sources, tracebacks = check_files(targets, profiles, fn, stdin=stdin)
    diags = reported(diags, sources, names, config)
    fixed = 0
    if fix:
        diags, sources, tracebacks, fixed = fix_files(targets, diags, sources, config,
                                                      profiles, fn)
    _print(diags, sources, fmt, statistics)
    if tracebacks and debug_enabled():
        for tb in tracebacks:
            click.echo(tb, err=True, nl=False)
    # One file checked is reported exactly as the compiler renders it (nothing
    # follows the footer); a project gets its totals.
    if not quiet and diags and len(targets) > 1:
        from shapescript_cli.formats import summary

        click.echo(summary(diags, len(targets)), err=True)
    if not quiet and fix:
        click.echo(f"Fixed {fixed} {'diagnostic' if fixed == 1 else 'diagnostics'}.",
                   err=True)
    code = exit_code(diags)
    raise click.exceptions.Exit(0 if exit_zero and code == 1 else code)


def reported(diags: Sequence[Diagnostic], sources: dict[str, str], names: Sequence[str],
             config: Config) -> list[Diagnostic]:
    """What is reported of ``diags``: less what the ``# noqa`` comments hide, with an
    E1901 warning for each unused one in the files checked (``names``), then less what
    the settings hide (which may hide E1901 too)."""
    from shapescript.api import apply_suppressions

    return filter_diagnostics(apply_suppressions(diags, sources, names), config)


# A fix can make another possible (or one fix be left out because it overlapped): the
# files are checked again and fixed again, this many times at most.
MAX_FIX_PASSES = 10


def fix_files(targets: Sequence[str], diags: list[Diagnostic], sources: dict[str, str],
              config: Config, profiles: Sequence[Any], fn: str | None,
              ) -> tuple[list[Diagnostic], dict[str, str], list[str], int]:
    """Makes the quick fixes of the reported diagnostics (``api.quick_fix``: the edits
    the language server offers) in the files checked, each file written atomically,
    and checks again, until no fix is left. Returns what is reported then, the sources,
    the tracebacks and how many fixes were made."""
    from shapescript.api import apply_edits, atomic_write, quick_fix

    mine = {os.path.abspath(t): t for t in targets}
    tracebacks: list[str] = []
    fixed = 0
    for _ in range(MAX_FIX_PASSES):
        edits: dict[str, list[Any]] = {}
        for d in diags:
            text = sources.get(d.file)
            found = quick_fix(d, text) if text is not None and \
                os.path.abspath(d.file) in mine else None
            if found is not None and all(e.file == d.file for e in found.edits):
                edits.setdefault(d.file, []).extend(found.edits)
        changed = 0
        for path, file_edits in edits.items():
            text = sources.get(path)
            if text is None:
                continue
            new, made = apply_edits(text, file_edits)
            if made and new != text:
                try:
                    atomic_write(path, new)
                except OSError as exc:
                    fail(f"cannot write {path}: {exc.strerror or exc}")
                fixed += made
                changed += 1
        if not changed:
            break
        diags, sources, tracebacks = check_files(targets, profiles, fn)
        diags = reported(diags, sources, list(targets), config)
    return diags, sources, tracebacks, fixed


def _print(diags: list[Diagnostic], sources: dict[str, str], fmt: str,
           statistics: bool) -> None:
    from shapescript_cli import formats

    if statistics:
        click.echo(formats.render_statistics(diags, fmt), nl=False)
        return
    if fmt in ("full", "concise"):
        from shapescript.api import render_diagnostics

        color = use_color()
        click.echo(render_diagnostics(diags, sources, color=color, fmt=fmt), nl=False,
                   color=color)
    elif fmt == "json":
        click.echo(formats.render_json(diags), nl=False)
    elif fmt == "github":
        click.echo(formats.render_github(diags), nl=False)
    else:
        click.echo(formats.render_sarif(diags, version=_version()), nl=False)


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("shapescript-core")
    except PackageNotFoundError:
        return "0"


def filter_diagnostics(diags: Sequence[Diagnostic], config: Config) -> list[Diagnostic]:
    """``diags`` less those the settings hide: not selected, ignored, or ignored for
    their file. An internal error (E0000) is always kept."""
    per_file = None
    if config.per_file_ignores:
        import pathspec

        per_file = [(pathspec.GitIgnoreSpec.from_lines([pattern]), codes)
                    for pattern, codes in config.per_file_ignores.items()]
    kept = []
    for d in diags:
        if d.code != ec.E0000:
            if not config.reports(d.code):
                continue
            if per_file and d.file and _ignored_for_file(d, per_file, config.root):
                continue
        kept.append(d)
    return kept


def _ignored_for_file(d: Diagnostic, per_file: Sequence[tuple[Any, Sequence[str]]],
                      root: Path) -> bool:
    from shapescript_cli.config import code_matches

    absolute = Path(os.path.abspath(d.file))
    try:
        rel = absolute.relative_to(root).as_posix()
    except ValueError:
        rel = absolute.name
    return any(spec.match_file(rel) and code_matches(d.code, codes)
               for spec, codes in per_file)


def _read_stdin(name: str) -> tuple[str, str | Diagnostic]:
    """(the program's name, its text or the E0101 of its first byte that isn't UTF-8);
    exit 2 when stdin is over the size limit or can't be read."""
    from shapescript.api import MAX_SOURCE_BYTES, SourceDecodeError, decode_source

    try:
        data = sys.stdin.buffer.read(MAX_SOURCE_BYTES + 1)
    except OSError as exc:
        fail(f"cannot read stdin: {exc.strerror or exc}")
    if len(data) > MAX_SOURCE_BYTES:
        fail(f"stdin is larger than {MAX_SOURCE_BYTES // (1024 * 1024)} MiB")
    try:
        return name, decode_source(data, name)
    except SourceDecodeError as err:
        return name, err.diagnostic


def check_files(paths: Sequence[str], profiles: Sequence[Any] = (), fn: str | None = None,
                *, stdin: tuple[str, Any] | None = None,
                ) -> tuple[list[Diagnostic], dict[str, str], list[str]]:
    """Check each file with ``shapescript.compiler.check_file``, in order, and with each
    of the check ``profiles`` (for the function ``fn``) where the file checks clean.
    ``-`` is the program in ``stdin``: (its name, its text or its decoding diagnostic).

    Returns the diagnostics (each file's as the compiler sorted them), the source texts
    by path, and the tracebacks of the internal failures, each of which became one
    E0000 diagnostic: at the failure's ``span`` when the exception carries one, else at
    the start of the file.
    """
    from shapescript.api import internal_error_at

    diags: list[Diagnostic] = []
    sources: dict[str, str] = {}
    tracebacks: list[str] = []
    for path in paths:
        name = stdin[0] if path == STDIN and stdin is not None else path
        try:
            # Looked up in sys.modules at each call (tests put a stand-in there).
            compiler = importlib.import_module("shapescript.compiler")
            if path == STDIN and stdin is not None:
                text = stdin[1]
                if not isinstance(text, str):  # not UTF-8: its E0101
                    diags.append(text)
                    continue
                program = compiler.check_program(text, name)
                found, texts = list(program.diagnostics), dict(program.sources)
                texts.setdefault(name, text)
                if program.ok:
                    for profile in profiles:
                        found += profile.diagnostics(program, fn)
            elif profiles:
                # check_path: a file that isn't UTF-8 is its diagnostic, not an exception
                program = compiler.check_path(path)
                found, texts = list(program.diagnostics), program.sources
                if program.ok:
                    for profile in profiles:
                        found += profile.diagnostics(program, fn)
            else:
                found, texts = compiler.check_file(path)
        except Exception as exc:  # any failure in the compiler is a bug in it
            span: Any = getattr(exc, "span", None)
            where = ((span.file, span.line, span.col) if _is_span(span) else (name, 1, 1))
            diags.append(internal_error_at(*where))
            tracebacks.append(traceback.format_exc())
            continue
        diags.extend(found)
        sources.update(texts)
    return diags, sources, tracebacks


def exit_code(diags: Sequence[Diagnostic]) -> int:
    """3 for an internal error, else 1 for any error, else 0 (warnings allowed)."""
    if any(d.code == ec.E0000 for d in diags):
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

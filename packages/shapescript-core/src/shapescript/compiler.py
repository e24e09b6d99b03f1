"""The compiler's front door: parse, check and generate code for a file.

``check_file`` and ``check_source`` run the front end only (no torch import, so
``shapescript check`` stays fast); ``compile_file``/``compile_source`` also generate
the Python module. Imported ``.ss`` modules are found next to the importing file,
then on ``sys.path``, and checked once per compilation.
"""

from __future__ import annotations

import os
import sys
import traceback
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path

from shapescript.gc_pause import paused_gc
from shapescript.check.body import check_module
from shapescript.check.env import ModuleEnv
from shapescript.check.result import CheckedModule, Program
from shapescript.diagnostics import INTERNAL_NOTE, Diagnostic
from shapescript.source import SourceDecodeError, Span, read_source
from shapescript.syntax.parser import parse
from shapescript.term import debug_enabled
from shapescript import error_codes as ec

__version__ = "0.1.0"
PRELUDE_DIR = Path(__file__).parent / "prelude"


@lru_cache(maxsize=1)
def prelude_env() -> ModuleEnv:
    """The prelude (``prelude.ss``) and ``nn.ss``, checked once per process."""
    env: ModuleEnv | None = None
    for name in ("prelude.ss", "nn.ss"):
        path = PRELUDE_DIR / name
        src = path.read_text(encoding="utf-8")
        module, diags = parse(src, f"<{name}>")
        assert module is not None and not any(d.is_error for d in diags), diags
        cm = check_module(module, src, env, _no_imports)
        assert cm.ok, cm.diagnostics
        env = cm.env
    assert env is not None
    return env


def _no_imports(name: str, importer: str, span: Span) -> None:
    return None


class _Compilation:
    def __init__(self, search: list[str] | None = None) -> None:
        self.program = Program(None)
        self.loading: set[str] = set()
        self.search = search

    def find(self, name: str, importer: str) -> str | None:
        rel = name.replace(".", os.sep) + ".ss"
        dirs = [os.path.dirname(os.path.abspath(importer))] if not importer.startswith("<") else []
        dirs += self.search if self.search is not None else [p or "." for p in sys.path]
        for d in dirs:
            cand = os.path.join(d, rel)
            if self.exists(cand):
                return cand
        return None

    def exists(self, path: str) -> bool:
        """Whether a module's file is at ``path`` (an editor's loader also counts its
        open buffers of files not yet saved)."""
        return os.path.isfile(path)

    def load(self, name: str, importer: str, span: Span) -> ModuleEnv | None:
        path = self.find(name, importer)
        if path is None:
            self.program.diagnostics.append(Diagnostic.error(
                ec.E0204, f"module `{name}` not found", span, f"no `{name}.ss` here",
                help=f"put `{name}.ss` next to this file or on Python's path"))
            return None
        key = os.path.abspath(path)
        for done in self.program.modules.values():
            if os.path.abspath(done.env.path) == key:
                return done.env
        if key in self.loading:
            self.program.diagnostics.append(Diagnostic.error(
                ec.E0204, f"module `{name}` imports itself (a cycle)", span, "circular import",
                help="move the shared declarations into a third module"))
            return None
        try:
            src = self.read(path)
        except SourceDecodeError as err:  # reported in the module, at the bad byte
            self.program.diagnostics.append(err.diagnostic)
            self.program.sources[path] = err.text
            return None
        except OSError as err:
            self.program.diagnostics.append(Diagnostic.error(
                ec.E0204, f"module `{name}` can't be read: {err.strerror or err}", span, ""))
            return None
        cm = self.check(src, path)
        return None if cm is None else cm.env

    def read(self, path: str) -> str:
        """An imported module's text (an editor's loader gives its unsaved buffers)."""
        return read_source(path)

    def check(self, src: str, path: str) -> CheckedModule | None:
        key = os.path.abspath(path)
        self.loading.add(key)
        self.program.sources[path] = src
        try:
            module, diags = parse(src, path)
            self.program.diagnostics.extend(diags)
            if module is None:
                return None
            cm = check_module(module, src, prelude_env(), self.load)
            self.program.diagnostics.extend(cm.diagnostics)
            self.program.modules[path] = cm
            return cm
        finally:
            self.loading.discard(key)


def internal_error(path: str, err: BaseException) -> Diagnostic:
    note = INTERNAL_NOTE
    d = Diagnostic(ec.E0000, "error", "internal error", path, 1, 1, 1, 1, (), None, (note,))
    if debug_enabled():
        tb = "".join(traceback.format_exception(err))
        d = Diagnostic(ec.E0000, "error", "internal error", path, 1, 1, 1, 1, (), None, (note, tb))
    return d


def check_program(src: str, path: str, search: list[str] | None = None) -> Program:
    """Parse and check ``src`` (the file ``path``) and what it imports."""
    comp = _Compilation(search)
    with paused_gc():  # until the whole program is checked
        try:
            comp.program.main = comp.check(src, path)
        except RecursionError as err:
            comp.program.diagnostics.append(internal_error(path, err))
        except Exception as err:  # a checker bug: one diagnostic, never a traceback
            comp.program.diagnostics.append(internal_error(path, err))
    p = comp.program
    p.diagnostics = _sorted(p.diagnostics, path)
    return p


# More diagnostics than this in one file are a cascade (5,000 unclosed brackets) or a file
# that isn't ShapeScript: the first ones say what is wrong, the rest only flood the output.
MAX_DIAGNOSTICS_PER_FILE = 100


def _sorted(diags: list[Diagnostic], main: str) -> list[Diagnostic]:
    seen: set[tuple] = set()
    out = []
    per_file: dict[str, int] = {}
    for d in sorted(diags, key=lambda d: (d.file != main, d.file, d.line, d.column, d.code)):
        key = (d.code, d.file, d.line, d.column, d.end_line, d.end_column, d.message)
        if key not in seen:
            seen.add(key)
            n = per_file[d.file] = per_file.get(d.file, 0) + 1
            if n <= MAX_DIAGNOSTICS_PER_FILE:
                out.append(d)
    for file, n in per_file.items():
        if n > MAX_DIAGNOSTICS_PER_FILE:
            # The file's last diagnostic shown says how many more there are.
            k = max(i for i, d in enumerate(out) if d.file == file)
            more = n - MAX_DIAGNOSTICS_PER_FILE
            last = out[k]
            out[k] = replace(last, notes=last.notes + (
                f"and {more:,} more diagnostic{'s' if more > 1 else ''} in this file, not "
                "shown: fix these first",))
    return out


def _names(names: list[str]) -> str:
    quoted = [f"`{n}`" for n in names]
    return quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + " and " + quoted[-1]


def choose_function(env: ModuleEnv, path: str, fn: str | None, option: str = "fn=") -> str:
    """The function to export: ``fn``, or the file's only ``export fn``.

    ValueError when ``fn`` names no function of the file, or when it is omitted and
    the file has no ``export fn`` or several (the message names them, and ``option``
    is how the caller spells the choice: ``--fn`` or ``fn=``)."""
    own = [n for n, s in env.fns.items() if not s.is_extern]
    if fn is not None:
        sig = env.fns.get(fn)
        if sig is None or sig.is_extern:
            what = "an extern fn, which has no body to export" if sig is not None else (
                "not a function of it")
            listed = f" (its functions: {_names(own)})" if own else ""
            raise ValueError(f"{path}: `{fn}` is {what}{listed}")
        return fn
    marked = [n for n in own if env.fns[n].export]
    if len(marked) == 1:
        return marked[0]
    if marked:
        raise ValueError(f"{path} has {len(marked)} export fns, {_names(marked)}: "
                         f"choose one with {option}")
    listed = f"; its functions are {_names(own)}" if own else ""
    raise ValueError(f"{path} has no export fn: mark one `export fn`, or name the "
                     f"function with {option}{listed}")


def check_source(src: str, path: str) -> list[Diagnostic]:
    """The diagnostics of ``src``, sorted by position (imports resolved from ``path``)."""
    return check_program(src, path).diagnostics


def check_path(path: str, search: list[str] | None = None) -> Program:
    """Read (``read_source``) and check the file ``path`` and what it imports.

    A file that isn't UTF-8 is a program with one error (E0101, at the first bad byte).
    Raises OSError if the file can't be read (missing, not a regular file, too large).
    """
    try:
        src = read_source(path)
    except SourceDecodeError as err:
        return Program(None, diagnostics=[err.diagnostic], sources={path: err.text})
    return check_program(src, path, search)


def check_file(path: str) -> tuple[list[Diagnostic], dict[str, str]]:
    """Check a file: its diagnostics and the source texts by path (for rendering).

    Raises OSError if the file can't be read (see ``check_path``).
    """
    p = check_path(path)
    return p.diagnostics, p.sources


@dataclass
class CompileOutput:
    """The result of compiling one file to Python."""

    python: str | None
    diagnostics: list[Diagnostic]
    sources: dict[str, str]
    dependencies: tuple[str, ...] = ()
    # Each function's checked entry → the line of its `fn`, for tracebacks (`to_code`).
    entry_lines: dict[str, int] = field(default_factory=dict)
    # The type stub (`NAME.pyi`), when one was asked for (`stubs=`).
    stub: str | None = None


def to_code(out: CompileOutput, path: str):
    """The code object of a compiled module, under the ``.ss`` file's name.

    The body already sits on its ``.ss`` lines; the checked entries, which the layout puts
    after the last line, are moved onto their ``fn``'s line, so a traceback through an
    argument check points at the signature.
    """
    import ast as pyast

    assert out.python is not None
    tree = pyast.parse(out.python, path)
    lines = out.entry_lines
    for node in tree.body:
        name = None
        if isinstance(node, pyast.FunctionDef):
            name = node.name
        elif isinstance(node, pyast.Assign) and len(node.targets) == 1 and \
                isinstance(node.targets[0], pyast.Name) and node.targets[0].id.startswith("_ss_check_"):
            name = node.targets[0].id[len("_ss_check_"):]
        line = lines.get(name) if name is not None else None
        if line is not None:
            for sub in pyast.walk(node):
                if hasattr(sub, "lineno"):
                    sub.lineno = sub.end_lineno = line  # type: ignore[attr-defined]
    return compile(tree, path, "exec", dont_inherit=True)


def compile_source(src: str, path: str, *, checks: str = "always", value_checks: str = "debug",
                   devices: str | None = None, standalone: bool = False,
                   stubs: str | None = None) -> CompileOutput:
    """Compile ShapeScript source to the text of a Python module (None on errors), and
    its type stub in the style ``stubs`` when that is set (``codegen.stubs``)."""
    p = check_program(src, path)
    if not p.ok or p.main is None:
        return CompileOutput(None, p.diagnostics, p.sources, p.dependencies)
    from shapescript.codegen.module import generate

    try:
        python = generate(p.main, p, checks=checks, value_checks=value_checks,
                          devices=devices, standalone=standalone)
        stub = None
        if stubs is not None:
            from shapescript.codegen.stubs import stub_source

            stub = stub_source(p.main, stubs)
    except Exception as err:  # a code generator bug
        return CompileOutput(None, p.diagnostics + [internal_error(path, err)], p.sources,
                             p.dependencies)
    entry_lines = {name: sig.decl.span.line for name, sig in p.main.env.fns.items()
                   if sig.file == p.main.env.path}
    return CompileOutput(python, p.diagnostics, p.sources, p.dependencies, entry_lines, stub)


def compile_file(path: str, *, checks: str = "always", value_checks: str = "debug",
                 devices: str | None = None, standalone: bool = False,
                 stubs: str | None = None) -> CompileOutput:
    """Compile the file ``path`` (see ``compile_source``); OSError as ``check_path``."""
    try:
        src = read_source(path)
    except SourceDecodeError as err:
        return CompileOutput(None, [err.diagnostic], {path: err.text})
    return compile_source(src, path, checks=checks, value_checks=value_checks, devices=devices,
                          standalone=standalone, stubs=stubs)

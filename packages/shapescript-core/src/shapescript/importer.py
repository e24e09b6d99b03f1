"""The import hook: Python imports ``NAME.ss`` files as modules.

``install()`` puts a finder on ``sys.meta_path``, just before Python's own path finder;
``uninstall()`` takes it off. For ``import NAME`` (or ``pkg.NAME``) it looks through
``sys.path`` (or the package's ``__path__``) in order, and in the first folder that holds
``NAME.ss`` or a Python module of that name, a Python module wins, so
``NAME.py`` next to ``NAME.ss`` is imported as Python always was.

The loader compiles the file with ``shapescript.compiler.compile_file`` under the checks
settings in force (``shapescript.rt.config``) and compiles the Python under the ``.ss``
file's name, so tracebacks show ``.ss`` lines. The code object is cached, as Python caches
bytecode, in ``__pycache__/NAME.ss.<python>-shapescript-<version>-<checks>-<values>.pyc``,
keyed by a hash of the source, of each imported ``.ss`` file, of the compiler and of the
options; the header also holds a SHA-256 of the marshalled code, checked before the code
is loaded, so a damaged file (a flipped bit, a truncated write) is never unmarshalled. A
stale, damaged or unreadable cache is compiled again, silently, and rewritten; an
unwritable folder is skipped. A file that doesn't compile (one that isn't UTF-8
included) raises ``ShapeScriptError`` with the rendered diagnostics.

When asked, the loader also writes the module's type stub, ``NAME.pyi`` next to
``NAME.ss``, for Python's type checkers and editors (``codegen.stubs``): ``install(stubs=
"pyrefly")`` (or ``"jaxtyping"``; ``False`` for none), else ``SHAPESCRIPT_STUBS``, else
the ``stubs`` setting of the project's ``[tool.shapescript]`` (``project_config``). A stub
is rewritten only when its text changes; on a cached import it is written when missing
or of another style. An unwritable folder is a warning, never a failed import.

While a ``.ss`` module runs, its own folder must be importable for its
``import python`` modules ("after Python's path"): the loader appends the
folder to the end of ``sys.path`` when no entry names it, and leaves it there, since
code compiled from the file may import lazily, after the module has loaded.
"""

from __future__ import annotations

import hashlib
import importlib.abc
import importlib.machinery
import importlib.util
import json
import marshal
import os
import sys
import warnings

from shapescript.files import atomic_write
from shapescript.rt import config
from shapescript.rt.errors import ShapeScriptError
from shapescript.source import SourceDecodeError, read_source, read_source_bytes

SUFFIX = ".ss"
_CACHE_MAGIC = b"SSC2" + importlib.util.MAGIC_NUMBER


def _python_candidates(directory, name):
    yield os.path.join(directory, name, "__init__.py")
    yield os.path.join(directory, name, "__init__.pyc")
    for suffix in (importlib.machinery.SOURCE_SUFFIXES + importlib.machinery.BYTECODE_SUFFIXES
                   + importlib.machinery.EXTENSION_SUFFIXES):
        yield os.path.join(directory, name + suffix)


def _entry_dir(entry):
    if not isinstance(entry, str):
        return None
    return entry or os.getcwd()


def find_ss(name, path=None):
    """The ``.ss`` file ``import name`` would load from ``path`` (default ``sys.path``),
    or ``None`` when there is none or a Python module comes first."""
    entries = [d for d in map(_entry_dir, sys.path if path is None else path) if d]
    for i, directory in enumerate(entries):
        candidate = os.path.join(directory, name + SUFFIX)
        if os.path.isfile(candidate):
            for earlier in entries[:i + 1]:
                if any(os.path.isfile(p) for p in _python_candidates(earlier, name)):
                    return None
            return os.path.abspath(candidate)
    return None


class ShapeScriptFinder(importlib.abc.MetaPathFinder):
    """Finds ``NAME.ss`` modules (a Python module in the same or an earlier folder wins)."""

    def find_spec(self, fullname, path=None, target=None):
        path_ss = find_ss(fullname.rpartition(".")[2], path)
        if path_ss is None:
            return None
        return module_spec(fullname, path_ss)


def module_spec(fullname, path):
    """The module spec of the ``.ss`` file ``path``, imported under ``fullname``."""
    loader = ShapeScriptLoader(fullname, path)
    spec = importlib.util.spec_from_file_location(fullname, path, loader=loader)
    spec.cached = loader.cache_path()
    return spec


class ShapeScriptLoader(importlib.abc.InspectLoader):
    """Compiles a ``.ss`` file (or reads its cached code) and runs it as a module."""

    def __init__(self, fullname, path):
        self.name, self.path = fullname, path

    def get_filename(self, fullname=None):
        return self.path

    def is_package(self, fullname):
        return False

    def get_source(self, fullname=None):
        """The ``.ss`` text: the lines the module's code objects point at."""
        try:
            return read_source(self.path)
        except SourceDecodeError as err:  # never compiled; its text for a traceback
            return err.text

    def cache_path(self):
        checks, values = config.checks_mode(), config.value_checks_mode()
        tag = (f"{sys.implementation.cache_tag}-shapescript-{_compiler_version()}-"
               f"{checks}-{values}")
        folder, base = os.path.split(self.path)
        return os.path.join(folder, "__pycache__", f"{base}.{tag}.pyc")

    def get_code(self, fullname=None):
        checks, values = config.checks_mode(), config.value_checks_mode()
        source = read_source_bytes(self.path)  # OSError for a FIFO, a device, a huge file
        key = _cache_key(self.path, source, checks, values)
        cache = self.cache_path()
        code = _read_cache(cache, key)
        style = stub_setting(self.path)
        if code is not None:
            if style is not None:
                _refresh_stub(self.path, style)
            return code
        from shapescript import compiler
        # `stubs` only when one is asked for: a compile without is the same call as ever.
        more = {"stubs": style} if style is not None else {}
        out = compiler.compile_file(self.path, checks=checks, value_checks=values, **more)
        errors = [d for d in out.diagnostics if getattr(d, "severity", "error") == "error"]
        if out.python is None or errors:
            raise ShapeScriptError(render_diagnostics(out.diagnostics, out.sources),
                                   out.diagnostics, out.sources)
        code = compiler.to_code(out, self.path)
        _write_cache(cache, key, out.dependencies, code)
        if out.stub is not None:
            _write_stub(self.path, out.stub)
        return code

    def exec_module(self, module):
        code = self.get_code(module.__name__)
        _ensure_on_path(os.path.dirname(self.path))
        exec(code, module.__dict__)


def import_file(path, module_name=None):
    """Imports the ``.ss`` file ``path`` as ``module_name`` (default: its stem), whatever
    else is in its folder, and registers it in ``sys.modules``."""
    path = os.path.abspath(path)
    name = module_name or os.path.splitext(os.path.basename(path))[0]
    spec = module_spec(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(name, None)
        raise
    return module


def _ensure_on_path(folder):
    folder = os.path.abspath(folder)
    for entry in sys.path:
        d = _entry_dir(entry)
        if d is not None and os.path.abspath(d) == folder:
            return
    sys.path.append(folder)


def render_diagnostics(diagnostics, sources, color=False):
    """The diagnostics in rustc's layout (``shapescript.render``), or one line each when
    the renderer is unavailable."""
    try:
        from shapescript.render import render_full
    except ImportError:
        render_full = None
    if render_full is not None:
        return render_full(list(diagnostics), dict(sources or {}), color=color)
    return "\n".join(f"{d.file}:{d.line}:{d.column}: {d.severity}[{d.code}]: {d.message}"
                     for d in diagnostics)


# -- the cache ------------------------------------------------------------------------
_VERSION: list[str] = []  # [version, hash of the compiler's files], made once


def _compiler_version():
    """The compiler's version, and a fingerprint of its files, so that a changed
    compiler (even unreleased) never reuses code an older one generated."""
    if _VERSION:
        return _VERSION[0]
    try:
        from importlib.metadata import version
        ver = version("shapescript-core")
    except Exception:
        ver = "0"
    root = os.path.dirname(os.path.abspath(__file__))
    h = hashlib.sha256()
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(files):
            if name.endswith((".py", ".ss", ".lark")):
                p = os.path.join(folder, name)
                st = os.stat(p)
                h.update(f"{os.path.relpath(p, root)}:{st.st_size}:{st.st_mtime_ns};".encode())
    _VERSION[:] = [ver, h.hexdigest()[:16]]
    return _VERSION[0]


def _cache_key(path, source, checks, values):
    _compiler_version()
    h = hashlib.sha256()
    for part in (path.encode(), _VERSION[1].encode(), _VERSION[0].encode(), checks.encode(),
                 values.encode(), sys.implementation.cache_tag.encode(), source):
        h.update(len(part).to_bytes(8, "little"))
        h.update(part)
    return h.hexdigest()


def _file_hash(path):
    # As the compiler reads it: a dependency swapped for a FIFO mustn't hang the import.
    return hashlib.sha256(read_source_bytes(path)).hexdigest()


def _read_cache(cache, key):
    try:
        with open(cache, "rb") as f:
            data = f.read()
        if data[:len(_CACHE_MAGIC)] != _CACHE_MAGIC:
            return None
        pos = len(_CACHE_MAGIC)
        n = int.from_bytes(data[pos:pos + 4], "little")
        header = json.loads(data[pos + 4:pos + 4 + n].decode("utf-8"))
        if header["key"] != key:
            return None
        for dep, digest in header["deps"]:
            if _file_hash(dep) != digest:
                return None
        body = data[pos + 4 + n:]
        # marshal trusts its input (damaged code can crash the interpreter): verify first.
        if hashlib.sha256(body).hexdigest() != header["code"]:
            return None
        code = marshal.loads(body)
        return code if hasattr(code, "co_filename") else None
    except Exception:
        return None


def _write_cache(cache, key, dependencies, code):
    if sys.dont_write_bytecode:
        return
    try:
        deps = [[os.path.abspath(d), _file_hash(d)] for d in dependencies]
        body = marshal.dumps(code)
        header = json.dumps({"key": key, "deps": deps,
                             "code": hashlib.sha256(body).hexdigest()}).encode("utf-8")
        data = _CACHE_MAGIC + len(header).to_bytes(4, "little") + header + body
        os.makedirs(os.path.dirname(cache), exist_ok=True)
        atomic_write(cache, data)
    except OSError:
        pass  # no cache then


# -- type stubs -----------------------------------------------------------------------
_STUBS: list[str | bool] = []  # the style install() was given (False: none); empty: the defaults


def stub_setting(path):
    """The style the stub of the ``.ss`` file ``path`` is written in, or None for none:
    ``install``'s, else ``SHAPESCRIPT_STUBS``, else the project's ``stubs`` setting.
    ``ValueError`` for a style that doesn't exist in the first two; a configuration file
    that can't be used is a warning (it may belong to another tool, and an import of a
    ``.ss`` file never read it before stubs)."""
    from shapescript.project_config import ConfigError, check_stub_style, stub_style

    if _STUBS:
        return check_stub_style(_STUBS[0], "install(stubs=…)")
    env = os.environ.get("SHAPESCRIPT_STUBS")
    if env is not None:
        return None if env in ("", "none") else check_stub_style(env, "SHAPESCRIPT_STUBS")
    try:
        return stub_style(os.path.dirname(os.path.abspath(path)))
    except ConfigError as err:
        warnings.warn(f"shapescript: no stubs written: {err}", stacklevel=2)
        return None


def _stub_path(path):
    return os.path.splitext(path)[0] + ".pyi"


def _write_stub(path, text):
    target = _stub_path(path)
    try:
        with open(target, encoding="utf-8") as f:
            if f.read() == text:
                return
    except (OSError, UnicodeDecodeError):
        pass
    try:
        atomic_write(target, text)
    except OSError as err:
        warnings.warn(f"shapescript: cannot write the stub {target}: {err.strerror or err}",
                      stacklevel=2)


def _refresh_stub(path, style):
    """On a cached import: write the stub when it is missing or of another style (the
    source is the one the cache was compiled from, so a stub of this style is current)."""
    from shapescript.codegen.stubs import stub_style_of

    try:
        with open(_stub_path(path), encoding="utf-8") as f:
            if stub_style_of(f.read(4096)) == style:
                return
    except (OSError, UnicodeDecodeError):
        pass
    from shapescript.codegen.stubs import stub_source
    from shapescript.compiler import check_path

    program = check_path(path)
    if program.ok and program.main is not None:
        _write_stub(path, stub_source(program.main, style))


# -- install / uninstall --------------------------------------------------------------
def install(checks=None, value_checks=None, stubs=None):
    """Lets Python import ``.ss`` files (idempotent), with the run-time checks' settings
    for every module compiled from now on: ``always``, ``debug`` or ``never`` (default:
    ``SHAPESCRIPT_CHECKS``/``SHAPESCRIPT_VALUE_CHECKS``, else ``always`` and ``debug``).
    ``stubs`` (``"pyrefly"``, ``"jaxtyping"``, or ``False`` for none) writes each
    module's type stub next to it (default: ``SHAPESCRIPT_STUBS``, else the project's
    ``[tool.shapescript]`` ``stubs``, else none).

    >>> import shapescript
    >>> shapescript.install()
    >>> import spotter                                  # doctest: +SKIP
    """
    if stubs is not None:
        from shapescript.project_config import check_stub_style

        check_stub_style(stubs, "install(stubs=…)")
    config.set_modes(checks=checks, value_checks=value_checks)
    _STUBS[:] = [stubs] if stubs is not None else []
    if any(isinstance(f, ShapeScriptFinder) for f in sys.meta_path):
        return
    finder = ShapeScriptFinder()
    for i, f in enumerate(sys.meta_path):
        if f is importlib.machinery.PathFinder:
            sys.meta_path.insert(i, finder)
            return
    sys.meta_path.append(finder)


def uninstall():
    """Takes the hook off ``sys.meta_path`` (modules already imported stay)."""
    sys.meta_path[:] = [f for f in sys.meta_path if not isinstance(f, ShapeScriptFinder)]


def installed():
    """Whether the hook is on ``sys.meta_path``."""
    return any(isinstance(f, ShapeScriptFinder) for f in sys.meta_path)

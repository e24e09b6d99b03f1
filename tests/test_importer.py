"""The import hook (DECISIONS §24–§26), with a fake compiler: a ``.ss`` file here is
Python already, so the tests need only the hook; ``# dep: FILE`` lines name the
``.ss`` files it "imports" and ``# error`` makes it fail to compile."""

from __future__ import annotations

import importlib
import os
import sys
import traceback

import pytest

import shapescript.compiler
from shapescript import importer
from shapescript.diagnostics import Diagnostic
from shapescript.rt import config
from shapescript.rt.errors import ShapeScriptError


class FakeCompiler:
    def __init__(self):
        self.calls = []

    def __call__(self, path, *, checks, value_checks, **kw):
        self.calls.append((os.path.basename(path), checks, value_checks))
        with open(path, encoding="utf-8") as f:
            src = f.read()
        sources = {path: src}
        deps = tuple(os.path.join(os.path.dirname(path), line.split(":", 1)[1].strip())
                     for line in src.splitlines() if line.startswith("# dep:"))
        if "# error" in src:
            line = src.splitlines().index("# error") + 1
            diag = Diagnostic("E0201", "error", "unknown name `nope`", path, line, 1, line, 8)
            return shapescript.compiler.CompileOutput(None, [diag], sources, deps)
        python = src + f"\nCOMPILED_WITH = ({checks!r}, {value_checks!r})\n"
        return shapescript.compiler.CompileOutput(python, [], sources, deps)


@pytest.fixture
def hook(tmp_path, monkeypatch):
    fake = FakeCompiler()
    monkeypatch.setattr(shapescript.compiler, "compile_file", fake)
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    monkeypatch.delenv("SHAPESCRIPT_CHECKS", raising=False)
    monkeypatch.delenv("SHAPESCRIPT_VALUE_CHECKS", raising=False)
    saved_path, saved_modules = list(sys.path), set(sys.modules)
    sys.path.insert(0, str(tmp_path))
    config.reset_modes()
    importer.install()
    yield fake
    importer.uninstall()
    config.reset_modes()
    sys.path[:] = saved_path
    for name in set(sys.modules) - saved_modules:
        del sys.modules[name]
    importlib.invalidate_caches()


def write(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def fresh_import(name):
    sys.modules.pop(name, None)
    importlib.invalidate_caches()
    return importlib.import_module(name)


def cache_files(folder):
    d = folder / "__pycache__"
    return sorted(p.name for p in d.iterdir() if p.name.endswith(".pyc")) if d.exists() else []


def test_imports_a_ss_file(tmp_path, hook):
    write(tmp_path / "hook_basic.ss", "X = 41 + 1\n")
    mod = fresh_import("hook_basic")
    assert mod.X == 42
    assert mod.__file__ == str(tmp_path / "hook_basic.ss")
    assert mod.COMPILED_WITH == ("always", "debug")
    assert hook.calls == [("hook_basic.ss", "always", "debug")]


def test_install_is_idempotent_and_uninstall_removes_it(tmp_path, hook):
    importer.install()
    importer.install()
    assert sum(isinstance(f, importer.ShapeScriptFinder) for f in sys.meta_path) == 1
    write(tmp_path / "hook_gone.ss", "X = 1\n")
    importer.uninstall()
    assert not importer.installed()
    with pytest.raises(ModuleNotFoundError):
        fresh_import("hook_gone")
    importer.install()
    assert fresh_import("hook_gone").X == 1


def test_py_wins_over_ss_in_one_folder(tmp_path, hook):
    write(tmp_path / "hook_both.ss", "WHO = 'ss'\n")
    write(tmp_path / "hook_both.py", "WHO = 'py'\n")
    assert fresh_import("hook_both").WHO == "py"
    assert hook.calls == []


def test_path_order_decides_between_folders(tmp_path, hook):
    first, second = tmp_path / "first", tmp_path / "second"
    write(first / "hook_order.ss", "WHO = 'ss'\n")
    write(second / "hook_order.py", "WHO = 'py'\n")
    sys.path[:0] = [str(first), str(second)]
    assert fresh_import("hook_order").WHO == "ss"
    sys.path[:2] = [str(second), str(first)]
    assert fresh_import("hook_order").WHO == "py"


def test_modules_in_packages(tmp_path, hook):
    write(tmp_path / "hook_pkg" / "__init__.py", "")
    write(tmp_path / "hook_pkg" / "model.ss", "X = 'in a package'\n")
    assert fresh_import("hook_pkg.model").X == "in a package"
    # a namespace package (no __init__.py) too
    write(tmp_path / "hook_ns" / "model.ss", "X = 'namespace'\n")
    assert fresh_import("hook_ns.model").X == "namespace"


def test_the_ss_files_folder_is_importable_while_it_runs(tmp_path, hook):
    write(tmp_path / "hook_pkg2" / "__init__.py", "")
    write(tmp_path / "hook_pkg2" / "hook_helper_py.py", "VALUE = 7\n")
    write(tmp_path / "hook_pkg2" / "uses.ss", "import hook_helper_py\nX = hook_helper_py.VALUE\n")
    folder = str(tmp_path / "hook_pkg2")
    assert folder not in sys.path
    assert fresh_import("hook_pkg2.uses").X == 7
    assert sys.path[-1] == folder                        # after Python's path


def test_cache_hit_miss_and_dependencies(tmp_path, hook):
    write(tmp_path / "hook_dep.ss", "Y = 1\n")
    src = write(tmp_path / "hook_cached.ss", "# dep: hook_dep.ss\nX = 1\n")
    assert fresh_import("hook_cached").X == 1
    assert len(hook.calls) == 1
    [name] = cache_files(tmp_path)
    assert name.startswith("hook_cached.ss.") and "-always-debug" in name
    assert fresh_import("hook_cached").X == 1              # hit
    assert len(hook.calls) == 1
    write(src, "# dep: hook_dep.ss\nX = 2\n")              # the source changed: miss
    assert fresh_import("hook_cached").X == 2
    assert len(hook.calls) == 2
    write(tmp_path / "hook_dep.ss", "Y = 2\n")             # a dependency changed: miss
    assert fresh_import("hook_cached").X == 2
    assert len(hook.calls) == 3
    assert fresh_import("hook_cached").X == 2
    assert len(hook.calls) == 3
    os.unlink(tmp_path / "hook_dep.ss")                   # a dependency vanished: miss
    fresh_import("hook_cached")
    assert len(hook.calls) == 4


def test_corrupt_cache_is_recompiled(tmp_path, hook):
    write(tmp_path / "hook_corrupt.ss", "X = 5\n")
    fresh_import("hook_corrupt")
    [name] = cache_files(tmp_path)
    cache = tmp_path / "__pycache__" / name
    for garbage in (b"", b"junk", cache.read_bytes()[:40], cache.read_bytes()[:-5]):
        cache.write_bytes(garbage)
        assert fresh_import("hook_corrupt").X == 5
    assert len(hook.calls) == 5
    assert fresh_import("hook_corrupt").X == 5            # rewritten, and good again
    assert len(hook.calls) == 5


def test_options_are_part_of_the_key(tmp_path, hook, monkeypatch):
    write(tmp_path / "hook_opts.ss", "X = 1\n")
    assert fresh_import("hook_opts").COMPILED_WITH == ("always", "debug")
    importer.install(checks="never", value_checks="always")
    assert fresh_import("hook_opts").COMPILED_WITH == ("never", "always")
    assert len(cache_files(tmp_path)) == 2
    config.reset_modes()
    monkeypatch.setenv("SHAPESCRIPT_CHECKS", "debug")
    assert fresh_import("hook_opts").COMPILED_WITH == ("debug", "debug")
    monkeypatch.setenv("SHAPESCRIPT_CHECKS", "sometimes")
    with pytest.raises(ValueError, match="SHAPESCRIPT_CHECKS"):
        fresh_import("hook_opts")
    with pytest.raises(ValueError):
        importer.install(checks="sometimes")


def test_unwritable_cache_is_skipped(tmp_path, hook, monkeypatch):
    write(tmp_path / "hook_ro.ss", "X = 3\n")

    def refuse(*a, **k):
        raise PermissionError("read-only")

    monkeypatch.setattr(importer.os, "makedirs", refuse)
    assert fresh_import("hook_ro").X == 3
    assert cache_files(tmp_path) == []
    monkeypatch.undo()


def test_dont_write_bytecode(tmp_path, hook, monkeypatch):
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    write(tmp_path / "hook_nobc.ss", "X = 3\n")
    assert fresh_import("hook_nobc").X == 3
    assert cache_files(tmp_path) == []


def test_compile_errors_raise_shapescript_error(tmp_path, hook):
    write(tmp_path / "hook_bad.ss", "X = 1\n# error\n")
    with pytest.raises(ShapeScriptError) as info:
        fresh_import("hook_bad")
    err = info.value
    assert "hook_bad" not in sys.modules
    assert [d.code for d in err.diagnostics] == ["E0201"]
    from shapescript.render import render_full
    assert str(err) == render_full(err.diagnostics, err.sources, color=False)
    assert "error[E0201]" in str(err) and "unknown name `nope`" in str(err)
    assert cache_files(tmp_path) == []


def test_tracebacks_show_the_ss_file_and_line(tmp_path, hook):
    write(tmp_path / "hook_tb.ss", "def f():\n    x = 1\n    raise ValueError('boom')\n")
    mod = fresh_import("hook_tb")
    with pytest.raises(ValueError) as info:
        mod.f()
    frames = traceback.extract_tb(info.value.__traceback__)
    assert frames[-1].filename == str(tmp_path / "hook_tb.ss")
    assert frames[-1].lineno == 3 and frames[-1].line == "raise ValueError('boom')"
    # from the cache too
    mod = fresh_import("hook_tb")
    with pytest.raises(ValueError) as info:
        mod.f()
    assert traceback.extract_tb(info.value.__traceback__)[-1].filename.endswith("hook_tb.ss")


def test_loader_gives_the_ss_source(tmp_path, hook):
    write(tmp_path / "hook_src.ss", "X = 1\n")
    mod = fresh_import("hook_src")
    assert mod.__loader__.get_source("hook_src") == "X = 1\n"
    assert mod.__spec__.origin == str(tmp_path / "hook_src.ss")


def test_import_file_ignores_a_py_next_to_it(tmp_path, hook):
    write(tmp_path / "hook_direct.ss", "WHO = 'ss'\n")
    write(tmp_path / "hook_direct.py", "WHO = 'py'\n")
    mod = importer.import_file(tmp_path / "hook_direct.ss")
    assert mod.WHO == "ss" and sys.modules["hook_direct"] is mod

"""The import hook writing ``NAME.pyi`` next to ``NAME.ss`` when asked: by ``install``, by
``SHAPESCRIPT_STUBS`` or by the project's ``[tool.shapescript]`` ``stubs`` setting."""

from __future__ import annotations

import importlib
import sys

import pytest

from shapescript import importer
from shapescript.codegen.stubs import stub_source
from shapescript.compiler import check_path
from shapescript.rt import config

SRC = "## Doubles each value.\nfn double(x: [b n]) -> [b n] = x * 2\n"


@pytest.fixture
def project(tmp_path, monkeypatch):
    """A folder on ``sys.path`` holding ``m.ss``, with the hook installed."""
    monkeypatch.delenv("SHAPESCRIPT_STUBS", raising=False)
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    (tmp_path / "m.ss").write_text(SRC, encoding="utf-8")
    saved_path, saved_modules = list(sys.path), set(sys.modules)
    sys.path.insert(0, str(tmp_path))
    config.reset_modes()
    yield tmp_path
    importer.uninstall()
    importer._STUBS.clear()
    config.reset_modes()
    sys.path[:] = saved_path
    for name in set(sys.modules) - saved_modules:
        del sys.modules[name]
    importlib.invalidate_caches()


def fresh_import(name):
    sys.modules.pop(name, None)
    importlib.invalidate_caches()
    return importlib.import_module(name)


def expected(folder, style):
    return stub_source(check_path(str(folder / "m.ss")).main, style)


def test_no_stub_unless_asked(project):
    importer.install()
    fresh_import("m")
    assert not (project / "m.pyi").exists()


def test_the_project_setting_writes_the_stub_and_a_cached_import_restores_it(project):
    (project / "pyproject.toml").write_text('[tool.shapescript]\nstubs = "pyrefly"\n')
    importer.install()
    fresh_import("m")
    assert (project / "m.pyi").read_text() == expected(project, "pyrefly")
    assert list((project / "__pycache__").glob("m.ss.*.pyc"))
    # The code comes from the cache now; a missing stub is written all the same.
    (project / "m.pyi").unlink()
    fresh_import("m")
    assert (project / "m.pyi").read_text() == expected(project, "pyrefly")
    # So is one of another style, when the setting changes.
    (project / "pyproject.toml").write_text('[tool.shapescript]\nstubs = "jaxtyping"\n')
    fresh_import("m")
    assert (project / "m.pyi").read_text() == expected(project, "jaxtyping")


def test_install_and_the_environment_win_over_the_project(project, monkeypatch):
    (project / "pyproject.toml").write_text('[tool.shapescript]\nstubs = "pyrefly"\n')
    monkeypatch.setenv("SHAPESCRIPT_STUBS", "none")
    importer.install()
    fresh_import("m")
    assert not (project / "m.pyi").exists()
    monkeypatch.setenv("SHAPESCRIPT_STUBS", "jaxtyping")
    fresh_import("m")
    assert (project / "m.pyi").read_text() == expected(project, "jaxtyping")
    (project / "m.pyi").unlink()
    importer.install(stubs=False)
    fresh_import("m")
    assert not (project / "m.pyi").exists()


def test_a_style_that_does_not_exist_is_refused(project, monkeypatch):
    with pytest.raises(ValueError, match="must be 'pyrefly' or 'jaxtyping'"):
        importer.install(stubs="mypy")
    importer.install()
    monkeypatch.setenv("SHAPESCRIPT_STUBS", "mypy")
    with pytest.raises(ValueError, match="SHAPESCRIPT_STUBS must be"):
        fresh_import("m")


def test_an_unusable_configuration_is_a_warning_not_a_failed_import(project):
    (project / "pyproject.toml").write_text("[tool.shapescript\n")
    importer.install()
    with pytest.warns(UserWarning, match="no stubs written: .*not valid TOML"):
        m = fresh_import("m")
    assert m.double is not None and not (project / "m.pyi").exists()

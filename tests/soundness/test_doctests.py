"""Every docstring example in the packages runs, as ``doctest`` runs it: an example that
no longer matches its code fails here."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

PACKAGES = ("shapescript", "shapescript_cli", "shapescript_export", "shapescript_hf", "shapescript_gguf")


def modules() -> list[str]:
    names = []
    for pkg in PACKAGES:
        try:
            root = importlib.import_module(pkg)
        except ImportError:
            continue
        names.append(pkg)
        names += [m.name for m in pkgutil.walk_packages(root.__path__, pkg + ".")]
    return sorted(names)


def doctests(name: str) -> list[doctest.DocTest]:
    module = importlib.import_module(name)
    found = doctest.DocTestFinder(exclude_empty=True).find(module, name)
    return [t for t in found if t.examples]


@pytest.mark.parametrize("name", [m for m in modules() if not m.endswith("__main__")])
def test_docstring_examples_run(name):
    flags = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
    for test in doctests(name):
        runner = doctest.DocTestRunner(optionflags=flags)
        out: list[str] = []
        runner.run(test, out=out.append)
        assert not runner.failures, "".join(out)


def test_there_are_examples_to_run():
    assert sum(len(doctests(m)) for m in modules() if not m.endswith("__main__")) >= 30

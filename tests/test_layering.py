"""The layering contracts (pyproject's [tool.importlinter], checked by `lint-imports` in
CI) cover every import package of the workspace: a package missing from a contract is a
package the contract can't see (the notebook cells were one, and the core imported them)."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORE = "shapescript"
# What the exporters share, which the other plugins may import (hf and gguf do).
SHARED = "shapescript_export"


def workspace_packages() -> set[str]:
    """The top-level import packages under packages/*/src."""
    return {p.parent.name for p in ROOT.glob("packages/*/src/*/__init__.py")}


def _config() -> dict:
    with open(ROOT / "pyproject.toml", "rb") as f:
        return tomllib.load(f)["tool"]["importlinter"]


def _contract(**match: object) -> dict:
    (found,) = [c for c in _config()["contracts"]
                if all(c.get(k) == v for k, v in match.items())]
    return found


def test_the_workspace_has_the_packages_we_know():
    assert {CORE, SHARED, "shapescript_cli", "shapescript_lsp",
            "shapescript_notebook"} <= workspace_packages()


def test_every_package_is_a_root_of_the_graph():
    assert set(_config()["root_packages"]) == workspace_packages()


def test_the_core_imports_no_other_package():
    contract = _contract(type="forbidden", source_modules=[CORE])
    assert set(contract["forbidden_modules"]) == workspace_packages() - {CORE}


def test_every_other_package_goes_through_the_public_api():
    (contract,) = [c for c in _config()["contracts"] if c["type"] == "forbidden"
                   and "shapescript.api" not in c["forbidden_modules"]
                   and CORE not in c["source_modules"]]
    assert set(contract["source_modules"]) == workspace_packages() - {CORE}
    assert "shapescript.plugins" in contract["forbidden_modules"]


def test_the_plugins_are_independent_of_each_other():
    contract = _contract(type="independence")
    assert set(contract["modules"]) == workspace_packages() - {CORE, SHARED}

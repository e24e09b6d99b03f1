"""Where a project's ``[tool.shapescript]`` settings are, found as linters find theirs.

The nearest ``shapescript.toml`` or ``pyproject.toml`` with a ``[tool.shapescript]``
table, looking upward from a folder, is the project's configuration; in one folder
``shapescript.toml`` wins, and there the keys may sit at the top level. The command line
reads every key (``shapescript_cli.config``); the import hook reads only ``stubs``
(``stub_style``), so that ``import model`` writes ``model.pyi`` where the project asks.
"""

from __future__ import annotations

import os
import tomllib
from pathlib import Path
from typing import Any

__all__ = ["CONFIG_FILES", "ConfigError", "check_stub_style", "config_table", "find_config",
           "read_toml", "stub_style"]

CONFIG_FILES = ("shapescript.toml", "pyproject.toml")


class ConfigError(ValueError):
    """A configuration file that can't be used: its message names the file and key."""


def read_toml(path: Path) -> dict[str, Any]:
    """The TOML file ``path``; ``ConfigError`` when it can't be read or parsed."""
    try:
        with open(path, "rb") as f:
            return tomllib.load(f)
    except tomllib.TOMLDecodeError as err:
        raise ConfigError(f"{path}: not valid TOML: {err}") from None
    except OSError as err:
        raise ConfigError(f"cannot read {path}: {err.strerror or err}") from None


def config_table(path: Path, data: dict[str, Any]) -> dict[str, Any] | None:
    """The shapescript settings in ``data`` (the file ``path``), or None when it has none."""
    tool = data.get("tool")
    table = tool.get("shapescript") if isinstance(tool, dict) else None
    if table is None and path.name == "shapescript.toml":
        table = {k: v for k, v in data.items() if k != "tool"}
    if table is not None and not isinstance(table, dict):
        raise ConfigError(f"{path}: [tool.shapescript] must be a table")
    return table


def find_config(start: str | os.PathLike[str] = ".") -> Path | None:
    """The nearest configuration file from ``start`` (a folder, or a file's folder)
    upward, or None."""
    here = Path(start).resolve()
    if not here.is_dir():
        here = here.parent
    for folder in (here, *here.parents):
        for name in CONFIG_FILES:
            candidate = folder / name
            if candidate.is_file() and config_table(candidate, read_toml(candidate)) is not None:
                return candidate
    return None


def check_stub_style(value: object, where: str) -> str | None:
    """``value`` as a ``stubs`` setting: a style, or None for ``false``/absent;
    ``ConfigError`` naming ``where`` otherwise."""
    if value is None or value is False:
        return None
    # Here, not at the top: a cached import with no stubs asked loads no compiler module.
    from shapescript.codegen.stub_types import STYLES

    if value not in STYLES:
        raise ConfigError(f"{where} must be {' or '.join(repr(s) for s in STYLES)} "
                          "(or false)")
    return str(value)


def stub_style(near: str | os.PathLike[str]) -> str | None:
    """The ``stubs`` setting of the configuration nearest the file ``near``: the style
    the import hook writes ``NAME.pyi`` in, or None (the default: no stubs)."""
    path = find_config(near)
    if path is None:
        return None
    table = config_table(path, read_toml(path)) or {}
    return check_stub_style(table.get("stubs"), f"{path}: `stubs`")

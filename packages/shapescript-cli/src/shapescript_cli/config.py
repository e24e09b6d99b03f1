"""``[tool.shapescript]``: the check command's settings, found as linters find theirs.

The nearest ``shapescript.toml`` or ``pyproject.toml`` with a ``[tool.shapescript]``
table, looking upward from the current folder, is the project's configuration
(``shapescript.project_config`` finds it, for the import hook too); in one
folder ``shapescript.toml`` wins. In ``shapescript.toml`` the keys sit at the top level
(or under ``[tool.shapescript]``, as in ``pyproject.toml``)::

    [tool.shapescript]
    paths = ["src", "models"]          # what `shapescript check` checks with no PATH
    exclude = ["generated/", "*_old.ss"]  # gitignore-style, from the config's folder
    respect-gitignore = true           # skip what .gitignore ignores (the default)
    select = ["E04"]                   # report only these codes (or code prefixes)
    ignore = ["E0105"]                 # never report these
    checks = "always"                  # build and run: the runtime checks by default
    value-checks = "debug"
    stubs = "pyrefly"                  # build and the import hook write NAME.pyi too

    [tool.shapescript.per-file-ignores]
    "tests/**" = ["E0413"]

A key this module doesn't know, or a value of the wrong type, is an error of the command
(exit 2) naming the file and the key: a typo must not silently turn a check off.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from shapescript.api import CONFIG_FILES, ConfigError, check_stub_style, find_config
from shapescript.api import config_table as _table
from shapescript.api import read_toml as _read

__all__ = ["Config", "ConfigError", "CONFIG_FILES", "code_matches", "default_modes",
           "default_stubs", "find_config", "load_config", "parse_codes"]

MODES = ("always", "debug", "never")
# A code (E0413) or a prefix of codes (E04, E); `ALL` selects every code.
_CODE_RE = re.compile(r"E\d{0,4}")


@dataclass(frozen=True)
class Config:
    """The settings of one project (the defaults when ``path`` is None)."""

    root: Path
    path: Path | None = None
    paths: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    extend_exclude: tuple[str, ...] = ()
    respect_gitignore: bool = True
    select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    per_file_ignores: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    checks: str | None = None
    value_checks: str | None = None
    stubs: str | None = None  # the style build writes NAME.pyi in (None: no stub)
    # The command line's --select/--ignore, a level above the file's (``reports``).
    cli_select: tuple[str, ...] = ()
    cli_ignore: tuple[str, ...] = ()

    def reports(self, code: str) -> bool:
        """Whether ``code`` is reported, by ``select`` and ``ignore`` as ruff resolves
        them: the file's settings, then the command line's over them. A level whose
        ``select`` is set starts afresh from it (``--select E0401`` reports E0401 even
        when the file ignores it); a level without one only adds its ``ignore`` to what
        the level below left. Within a level the longest matching prefix decides, and
        between a ``select`` and an ``ignore`` of the same length, the ``ignore``."""
        on = True  # with no select anywhere, every code
        for select, ignore in ((self.select, self.ignore), (self.cli_select, self.cli_ignore)):
            on = _decide(code, select, ignore, on if not select else False)
        return on


def load_config(path: str | os.PathLike[str] | None = None,
                start: str | os.PathLike[str] = ".") -> Config:
    """The configuration in ``path``, else the nearest one from ``start``, else the
    defaults (rooted at ``start``). ``ConfigError`` when it is malformed."""
    if path is None:
        found = find_config(start)
        if found is None:
            return Config(root=Path(start).resolve())
        path = found
    path = Path(path).resolve()
    if not path.is_file():
        raise ConfigError(f"no such configuration file: {path}")
    table = _table(path, _read(path))
    if table is None:
        raise ConfigError(f"{path}: no [tool.shapescript] table")
    return _parse(path, table)


_KEYS = {"paths", "exclude", "extend-exclude", "respect-gitignore", "select", "ignore",
         "per-file-ignores", "checks", "value-checks", "stubs"}


def _parse(path: Path, table: dict[str, Any]) -> Config:
    def where(key: str) -> str:
        return f"{path}: `{key}`"

    unknown = sorted(set(table) - _KEYS)
    if unknown:
        raise ConfigError(f"{path}: unknown key `{unknown[0]}` in the shapescript settings "
                          f"(known: {', '.join(sorted(_KEYS))})")

    def strings(key: str) -> tuple[str, ...]:
        value = table.get(key, [])
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise ConfigError(f"{where(key)} must be a list of strings")
        return tuple(value)

    def mode(key: str) -> str | None:
        value = table.get(key)
        if value is not None and value not in MODES:
            raise ConfigError(f"{where(key)} must be one of {', '.join(MODES)}")
        return value

    respect = table.get("respect-gitignore", True)
    if not isinstance(respect, bool):
        raise ConfigError(f"{where('respect-gitignore')} must be true or false")
    per_file_raw = table.get("per-file-ignores", {})
    if not isinstance(per_file_raw, dict):
        raise ConfigError(f"{where('per-file-ignores')} must be a table of patterns")
    per_file: dict[str, tuple[str, ...]] = {}
    for pattern, codes in per_file_raw.items():
        if not isinstance(codes, list) or not all(isinstance(c, str) for c in codes):
            raise ConfigError(f"{where('per-file-ignores')}: `{pattern}` must be a list "
                              f"of codes")
        per_file[pattern] = _codes(codes, f"{where('per-file-ignores')}: `{pattern}`")
    return Config(
        root=path.parent,
        path=path,
        paths=strings("paths"),
        exclude=strings("exclude"),
        extend_exclude=strings("extend-exclude"),
        respect_gitignore=respect,
        select=_codes(strings("select"), where("select")),
        ignore=_codes(strings("ignore"), where("ignore")),
        per_file_ignores=per_file,
        checks=mode("checks"),
        value_checks=mode("value-checks"),
        stubs=check_stub_style(table.get("stubs"), where("stubs")),
    )


def parse_codes(text: Sequence[str], where: str) -> tuple[str, ...]:
    """Codes from the command line (``--select E0401,E0413``; repeatable)."""
    items = [c.strip() for chunk in text for c in chunk.split(",") if c.strip()]
    return _codes(items, where)


def _codes(items: Sequence[str], where: str) -> tuple[str, ...]:
    from shapescript.api import CODES

    out = []
    for item in items:
        code = item.strip().upper()
        if code == "ALL":
            out.append("E")
            continue
        if not _CODE_RE.fullmatch(code):
            raise ConfigError(f"{where}: `{item}` is not a code (E0413) or a prefix of "
                              f"codes (E04)")
        if len(code) == 5 and code not in CODES:
            raise ConfigError(f"{where}: no such error code: {item}")
        if not any(c.startswith(code) for c in CODES):
            raise ConfigError(f"{where}: no error code starts with {item}")
        out.append(code)
    return tuple(out)


def _decide(code: str, select: Sequence[str], ignore: Sequence[str], base: bool) -> bool:
    best, on = -1, base
    for p in select:
        if code.startswith(p) and len(p) > best:
            best, on = len(p), True
    for p in ignore:
        if code.startswith(p) and len(p) >= best:
            best, on = len(p), False
    return on


def code_matches(code: str, patterns: Sequence[str]) -> bool:
    """Whether ``code`` is one of ``patterns`` or starts with one of them."""
    return any(code.startswith(p) for p in patterns)


def default_modes(near: str, checks: str | None,
                  value_checks: str | None) -> tuple[str | None, str | None]:
    """``--checks``/``--value-checks`` as given, else the ``checks``/``value-checks``
    settings of the configuration nearest the file ``near`` (build and run use it);
    exit 2 when that configuration is malformed."""
    if checks is not None and value_checks is not None:
        return checks, value_checks
    from shapescript_cli.output import fail

    try:
        config = load_config(start=os.path.dirname(os.path.abspath(near)))
    except ConfigError as err:
        fail(str(err))
    return (checks if checks is not None else config.checks,
            value_checks if value_checks is not None else config.value_checks)


def default_stubs(near: str, style: str | None) -> str | None:
    """``--stubs`` as given (``none``: no stub), else the ``stubs`` setting of the
    configuration nearest the file ``near`` (build uses it); exit 2 when that
    configuration is malformed."""
    if style is not None:
        return None if style == "none" else style
    from shapescript_cli.output import fail

    try:
        return load_config(start=os.path.dirname(os.path.abspath(near))).stubs
    except ConfigError as err:
        fail(str(err))

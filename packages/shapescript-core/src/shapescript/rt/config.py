"""Which run-time checks are on: ``always``, ``debug`` (unless ``python -O``) or ``never``.

One setting per process, for every module the import hook compiles:
``shapescript.install(checks=…, value_checks=…)``, else the environment variables
``SHAPESCRIPT_CHECKS`` and ``SHAPESCRIPT_VALUE_CHECKS``, else ``always`` and ``debug``.
``shapescript build`` bakes its own flags into the module instead.
"""

from __future__ import annotations

import os

MODES = ("always", "debug", "never")
DEFAULT_CHECKS = "always"
DEFAULT_VALUE_CHECKS = "debug"

_INSTALLED: dict[str, str | None] = {"checks": None, "value_checks": None}
_ENV_VARS = {"checks": "SHAPESCRIPT_CHECKS", "value_checks": "SHAPESCRIPT_VALUE_CHECKS"}
_DEFAULTS = {"checks": DEFAULT_CHECKS, "value_checks": DEFAULT_VALUE_CHECKS}


def validate_mode(mode: str, what: str = "checks") -> str:
    """``mode`` if it is one of ``always``, ``debug``, ``never``; else ``ValueError``."""
    if mode not in MODES:
        raise ValueError(f"{what} must be always, debug or never, not {mode!r}")
    return mode


def set_modes(checks: str | None = None, value_checks: str | None = None) -> None:
    """Records ``install``'s arguments; ``None`` leaves a setting as it is."""
    if checks is not None:
        _INSTALLED["checks"] = validate_mode(checks, "checks")
    if value_checks is not None:
        _INSTALLED["value_checks"] = validate_mode(value_checks, "value_checks")


def reset_modes() -> None:
    """Forgets ``install``'s arguments (the environment and defaults apply again)."""
    _INSTALLED["checks"] = _INSTALLED["value_checks"] = None


def _mode(which: str) -> str:
    if _INSTALLED[which] is not None:
        return _INSTALLED[which]  # type: ignore[return-value]  # not None: tested above
    env = os.environ.get(_ENV_VARS[which], "").strip().lower()
    if env:
        return validate_mode(env, _ENV_VARS[which])
    return _DEFAULTS[which]


def checks_mode() -> str:
    """The shape, dtype and device checks' mode in force."""
    return _mode("checks")


def value_checks_mode() -> str:
    """The value (domain) checks' mode in force."""
    return _mode("value_checks")


def mode_enabled(mode: str, debug: bool = __debug__) -> bool:
    """Whether checks in ``mode`` run: ``debug`` follows ``__debug__`` (off under ``-O``).

    >>> mode_enabled("debug", debug=False)
    False
    """
    validate_mode(mode)
    return mode == "always" or (mode == "debug" and bool(debug))

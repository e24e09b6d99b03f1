"""The server's settings: the defaults, the command line's ``shapescript lsp`` options,
then the editor's ``initializationOptions`` (``docs/editors.md``)."""

from __future__ import annotations

import dataclasses
import logging
from dataclasses import dataclass
from typing import Any

log = logging.getLogger("shapescript_lsp")

# A file larger than this (in characters: bytes, for ASCII text) is checked when it is
# opened and saved, not on every change: checking one takes seconds.
CHECK_ON_SAVE_ABOVE = 512 * 1024


@dataclass(frozen=True)
class Settings:
    """``check_on_save_above``: the size, in characters, above which a file is checked
    only when it is opened or saved (0: always on save only)."""

    check_on_save_above: int = CHECK_ON_SAVE_ABOVE

    def updated(self, options: Any) -> Settings:
        """These settings with the editor's ``initializationOptions`` (an object whose
        ``checkOnSaveAbove`` is a number of characters); a value of the wrong type is
        logged and ignored."""
        if not isinstance(options, dict) or "checkOnSaveAbove" not in options:
            return self
        value = options["checkOnSaveAbove"]
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            log.warning("initializationOptions.checkOnSaveAbove must be a number of "
                        "characters (0 or more), not %r: ignored", value)
            return self
        return dataclasses.replace(self, check_on_save_above=value)

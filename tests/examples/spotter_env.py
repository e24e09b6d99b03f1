"""Importing the examples in ``examples/spotter`` through the import hook."""

import contextlib
import importlib
import sys
from pathlib import Path

SPOTTER = Path(__file__).resolve().parents[2] / "examples" / "spotter"


@contextlib.contextmanager
def spotter_modules(*names):
    """Import ``names`` from ``examples/spotter`` (hook installed); forget them after."""
    import shapescript

    sys.path.insert(0, str(SPOTTER))
    shapescript.install()
    try:
        yield tuple(importlib.import_module(n) for n in names)
    finally:
        sys.path.remove(str(SPOTTER))
        for n in (*names, "spotter", "reference"):
            sys.modules.pop(n, None)

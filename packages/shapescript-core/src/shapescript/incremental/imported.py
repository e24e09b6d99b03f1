"""Imported modules, checked once while their files don't change: every
``IncrementalChecker`` of the process shares them, and an editor's unsaved texts (the
``Overlay``) stand in for the files it has open, a buffer never saved included (a module
found in the overlay where no file is, in the search order of files on disk)."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from shapescript.check.env import ModuleEnv
from shapescript.check.result import CheckedModule
from shapescript.diagnostics import Diagnostic
from shapescript.source import Span

# An editor's unsaved texts: a file's absolute path → its text, or None to read it from disk.
Overlay = Callable[[str], "str | None"]


def text_stamp(path: str, overlay: Overlay | None) -> Any:
    """What tells one text of the file ``path`` from another: its overlay text, else
    its file's modification time and size (None: it can't be read)."""
    text = overlay(path) if overlay is not None else None
    if text is not None:
        return ("text", text)
    try:
        st = os.stat(path)
    except OSError:
        return None
    return ("disk", st.st_mtime_ns, st.st_size)


@dataclass
class _Imported:
    env: ModuleEnv
    # absolute path → ``text_stamp`` when it was checked; None for a place a module was
    # looked for and not found (a buffer or file appearing there changes the check)
    files: dict[str, Any]
    modules: dict[str, CheckedModule]
    sources: dict[str, str]
    diagnostics: list[Diagnostic]

    def fresh(self, overlay: Overlay | None) -> bool:
        return all(text_stamp(p, overlay) == stamp for p, stamp in self.files.items())


# By absolute path: every IncrementalChecker of the process shares them (an editor with
# several files open that import one module checks it once).
_IMPORTED: dict[str, _Imported] = {}


def caching_compilation(search: list[str] | None, overlay: Overlay | None = None) -> Any:
    """The compiler's loader, reading a module's text from ``overlay`` first, and
    keeping each imported module's check (with the modules it imports) until one of
    their texts changes."""
    from shapescript.compiler import _Compilation

    class _Caching(_Compilation):
        def __init__(self, search: list[str] | None) -> None:
            super().__init__(search)
            # Where a module was looked for and not found, in order (absolute paths).
            self.missing: list[str] = []

        def exists(self, path: str) -> bool:
            key = os.path.abspath(path)
            if (overlay is not None and overlay(key) is not None) or super().exists(path):
                return True
            self.missing.append(key)
            return False

        def read(self, path: str) -> str:
            text = overlay(os.path.abspath(path)) if overlay is not None else None
            return super().read(path) if text is None else text

        def load(self, name: str, importer: str, span: Span) -> ModuleEnv | None:
            path = self.find(name, importer)
            key = os.path.abspath(path) if path is not None else None
            entry = _IMPORTED.get(key) if key is not None else None
            if entry is not None and entry.fresh(overlay) and key not in self.loading:
                for p, cm in entry.modules.items():
                    self.program.modules.setdefault(p, cm)
                self.program.sources.update(entry.sources)
                self.program.diagnostics.extend(entry.diagnostics)
                self.missing.extend(p for p, stamp in entry.files.items() if stamp is None)
                return entry.env
            before = set(self.program.modules)
            n_diags = len(self.program.diagnostics)
            n_missing = len(self.missing)
            env = super().load(name, importer, span)
            if env is not None and key is not None:
                modules = {p: cm for p, cm in self.program.modules.items() if p not in before}
                files = {}
                for p in modules:
                    stamp = text_stamp(os.path.abspath(p), overlay)
                    if stamp is None:
                        return env
                    files[os.path.abspath(p)] = stamp
                for p in self.missing[n_missing:]:
                    files.setdefault(p, None)
                if modules:
                    # The module's own diagnostics (and its imports'), not the importer's.
                    diags = [d for d in self.program.diagnostics[n_diags:] if d.file in modules]
                    _IMPORTED[key] = _Imported(env, files, modules,
                                               {p: self.program.sources[p] for p in modules
                                                if p in self.program.sources}, diags)
            return env

    return _Caching(search)

"""The files ``shapescript check`` checks: the ``.ss`` files under the paths it is given.

A file named on the command line is checked whatever its name, unless an ``exclude``
pattern matches it (so a pre-commit hook that passes every staged file still honours the
project's excludes). A directory is walked for ``*.ss`` files, in sorted order, skipping:

* what ``.gitignore`` files ignore (each folder's, from the repository's top down, and
  ``.git/info/exclude``), unless ``respect-gitignore = false``;
* the ``exclude`` patterns (gitignore syntax, relative to the configuration's folder),
  or, without them, ``DEFAULT_EXCLUDE`` (version-control folders, virtual environments,
  caches, build outputs); ``extend-exclude`` adds to either;
* anything that isn't a regular file (a FIFO named ``x.ss`` would block the read), and
  symbolic links to folders (they can make cycles).
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from pathlib import Path

import pathspec

from shapescript_cli.config import Config

__all__ = ["DEFAULT_EXCLUDE", "Walker", "collect"]

DEFAULT_EXCLUDE = (
    ".git/", ".hg/", ".svn/", ".jj/", ".venv/", "venv/", ".tox/", ".nox/", "__pycache__/",
    ".mypy_cache/", ".pytest_cache/", ".ruff_cache/", "node_modules/", "site-packages/",
    "build/", "dist/", "_build/",
)
SUFFIX = ".ss"


def _spec(patterns: Sequence[str]) -> pathspec.PathSpec:
    return pathspec.GitIgnoreSpec.from_lines(patterns)


class Walker:
    """Decides, for one configuration, which files are checked."""

    def __init__(self, config: Config) -> None:
        self.config = config
        self.root = config.root
        excludes = list(config.exclude or DEFAULT_EXCLUDE) + list(config.extend_exclude)
        self.exclude = _spec(excludes)
        # (folder, its .gitignore's spec): patterns are relative to the folder they are in.
        self._ignores: dict[Path, pathspec.PathSpec | None] = {}
        self._repo_tops: dict[Path, Path | None] = {}

    # -- exclude ---------------------------------------------------------------------

    def excluded(self, path: Path, is_dir: bool) -> bool:
        """Whether an ``exclude`` pattern matches ``path`` (absolute)."""
        rel = _relative(path, self.root)
        if rel is None:
            # Outside the configuration's folder: match the patterns against the name.
            rel = path.name
        return self.exclude.match_file(rel + "/" if is_dir else rel)

    # -- .gitignore ------------------------------------------------------------------

    def _repo_top(self, folder: Path) -> Path | None:
        if folder in self._repo_tops:
            return self._repo_tops[folder]
        top = None
        for candidate in (folder, *folder.parents):
            if (candidate / ".git").exists():
                top = candidate
                break
        self._repo_tops[folder] = top
        return top

    def _gitignore(self, folder: Path) -> pathspec.PathSpec | None:
        if folder not in self._ignores:
            lines: list[str] = []
            for name in (".gitignore",) + ((".git/info/exclude",) if (folder / ".git").is_dir()
                                            else ()):
                try:
                    with open(folder / name, encoding="utf-8", errors="replace") as f:
                        lines.extend(f.read().splitlines())
                except OSError:
                    continue
            self._ignores[folder] = _spec(lines) if lines else None
        return self._ignores[folder]

    def ignored(self, path: Path, is_dir: bool) -> bool:
        """Whether git would ignore ``path`` (absolute): the ``.gitignore`` of each folder
        from the repository's top down to the path's own, the deepest deciding."""
        if not self.config.respect_gitignore:
            return False
        top = self._repo_top(path.parent)
        if top is None:
            return False
        verdict = False
        folder = path.parent
        chain = [folder, *[p for p in folder.parents if _is_within(p, top)]]
        for base in reversed(chain):
            spec = self._gitignore(base)
            if spec is None:
                continue
            rel = path.relative_to(base).as_posix() + ("/" if is_dir else "")
            result = spec.check_file(rel)
            if result.include is not None:
                verdict = result.include
        return verdict

    # -- walking ---------------------------------------------------------------------

    def walk(self, folder: Path) -> Iterator[Path]:
        """The ``.ss`` files under ``folder``, sorted, less the excluded and ignored."""
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError:
            return
        for entry in entries:
            path = Path(entry.path)
            try:
                is_dir = entry.is_dir(follow_symlinks=False)
                is_file = entry.is_file()  # a link to a regular file counts
            except OSError:
                continue
            if is_dir:
                if self.excluded(path, True) or self.ignored(path, True):
                    continue
                yield from self.walk(path)
            elif is_file and entry.name.endswith(SUFFIX):
                if self.excluded(path, False) or self.ignored(path, False):
                    continue
                yield path


def collect(paths: Sequence[str], config: Config,
            excluded: list[str] | None = None) -> list[str]:
    """The files to check for the command line's ``paths``, each once, in order: named
    files as given (unless excluded: those are appended to ``excluded``), then each
    directory's walk. A path that doesn't exist is kept, so that the command reports
    it."""
    walker = Walker(config)
    out: list[str] = []
    seen: set[str] = set()

    def add(name: str) -> None:
        key = os.path.normcase(os.path.abspath(name))
        if key not in seen:
            seen.add(key)
            out.append(name)

    for given in paths:
        path = Path(given)
        if path.is_dir():
            for found in walker.walk(path.resolve()):
                add(_display(found, given, path))
        elif path.exists() and walker.excluded(path.resolve(), False):
            if excluded is not None:
                excluded.append(given)
        else:
            add(given)
    return out


def _display(found: Path, given: str, given_path: Path) -> str:
    """``found`` as the user would write it: under the directory as they named it."""
    rel = found.relative_to(given_path.resolve())
    return str(rel) if given in (".", "./") else os.path.join(given, str(rel))


def _relative(path: Path, root: Path) -> str | None:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return None


def _is_within(path: Path, top: Path) -> bool:
    return path == top or top in path.parents

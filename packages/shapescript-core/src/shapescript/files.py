"""Writing files so that a reader never sees half of one.

Every file ShapeScript writes (a built module, a checkpoint, a cache entry, an exported
program or folder) goes through here: the bytes go to a temporary file in the target's
folder, which then replaces the target in one ``os.replace``. A failure, or a kill,
leaves the old file (or none), never a partial one.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable

__all__ = ["atomic_write", "atomic_write_with", "atomic_dir", "same_file"]


def atomic_write(path: str | os.PathLike[str], data: str | bytes, *,
                 encoding: str = "utf-8") -> None:
    """Write ``data`` (text or bytes) to ``path`` atomically.

    >>> import tempfile, os
    >>> p = os.path.join(tempfile.mkdtemp(), "out.txt")
    >>> atomic_write(p, "hello\\n"); open(p).read()
    'hello\\n'
    """
    raw = data.encode(encoding) if isinstance(data, str) else data

    def write(tmp: str) -> None:
        with open(tmp, "wb") as f:
            f.write(raw)

    atomic_write_with(path, write)


def atomic_write_with(path: str | os.PathLike[str], write: Callable[[str], object], *,
                      suffix: str = ".tmp") -> None:
    """Call ``write(tmp)`` to fill a temporary file beside ``path``, then move it into
    place. For writers that want a path of their own (``safetensors``, ``torch.export``,
    which wants a ``suffix`` of ``.pt2``).
    """
    path = os.fspath(path)
    folder = os.path.dirname(os.path.abspath(path))
    # The pid in the name lets a parent find what a killed writer left behind.
    fd, tmp = tempfile.mkstemp(prefix=f".{os.path.basename(path)}.{os.getpid()}.",
                               suffix=suffix, dir=folder)
    os.close(fd)
    try:
        write(tmp)
        os.replace(tmp, path)
    finally:
        if os.path.lexists(tmp):
            os.unlink(tmp)


def atomic_dir(path: str | os.PathLike[str], fill: Callable[[str], object]) -> None:
    """Build a folder with ``fill(tmpdir)`` beside ``path``, then move it into place:
    the folder appears complete or not at all. An existing folder at ``path`` is
    replaced only once the new one is complete.
    """
    path = os.fspath(os.path.abspath(path))
    parent = os.path.dirname(path)
    tmp = tempfile.mkdtemp(prefix=f".{os.path.basename(path)}.", suffix=".tmp", dir=parent)
    old = None
    try:
        fill(tmp)
        if os.path.lexists(path):
            old = tempfile.mkdtemp(prefix=f".{os.path.basename(path)}.", suffix=".old",
                                   dir=parent)
            os.rmdir(old)
            os.replace(path, old)
        os.replace(tmp, path)
    except BaseException:
        if old is not None and not os.path.lexists(path):
            os.replace(old, path)
            old = None
        raise
    finally:
        if os.path.lexists(tmp):
            shutil.rmtree(tmp, ignore_errors=True)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)


def same_file(a: str | os.PathLike[str], b: str | os.PathLike[str]) -> bool:
    """Whether two paths name one file (by inode where both exist, else by path)."""
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.realpath(a) == os.path.realpath(b)

"""Writing files so that a reader never sees half of one.

Every file ShapeScript writes (a built module, a checkpoint, a cache entry, an exported
program or folder) goes through here: the bytes go to a temporary file in the target's
folder, which then replaces the target in one ``os.replace``. A failure, or a kill,
leaves the old file (or none), never a partial one.

- **Temporary names** are ``.NAME.shapescript-PID-XXXXXXXX.tmp`` (an old folder being
  replaced: ``….old``), PID the writer's. SIGINT and SIGTERM unwind through the writer,
  which removes its temporary; what a writer killed outright (SIGKILL, a power cut)
  left is removed by the next writer into the same folder, and only when its PID is
  dead: a live PID's temporary is another writer's, at work.
- **Modes**: the output gets the mode a new file gets, 0666 (a folder 0777) less the
  umask, and so does each file of a folder; the temporary stays private (0600) while it
  is written.
- **Errors**: an ``OSError`` of the write (a full disk, a read-only file system, no
  permission), or a serializer's error for one (safetensors', torch's stream writer's),
  is raised as ``WriteError`` naming the output, never its temporary: one mapping, for
  every writer.
"""

from __future__ import annotations

import errno
import os
import shutil
import signal
import tempfile
from collections.abc import Callable

__all__ = ["WriteError", "atomic_write", "atomic_write_with", "atomic_dir", "same_file",
           "sweep_stale", "write_error"]

# Between the target's name and the writer's pid, so a sweep tells ShapeScript's
# temporaries from the user's files.
_MARK = ".shapescript-"


class WriteError(OSError):
    """An output that couldn't be written: ``filename`` is the output's path (never a
    temporary's), ``errno`` and ``strerror`` say why (``ENOSPC``, ``EROFS``, ``EACCES`` …)."""

    def __str__(self) -> str:
        return f"cannot write {self.filename}: {self.strerror}"


def write_error(err: BaseException, output: str | os.PathLike[str]) -> WriteError | None:
    """``err``, raised while writing ``output``, as a ``WriteError`` of the output when
    it is an error of writing: an ``OSError`` with an errno naming the output, its
    folder, its temporary or nothing; safetensors' or torch's error for a failed write.
    None for anything else (a bug of the writer, an input it couldn't read)."""
    given = os.fspath(output)       # named as the user named it
    output = os.path.abspath(given)
    if isinstance(err, WriteError):
        return err
    text = str(err)
    if isinstance(err, OSError) and err.errno is None:
        # numpy's short write (`tofile`, which gguf uses): "2048 requested and 1056
        # written", without the errno; other errno-less OSErrors aren't the OS's.
        if " requested and " not in text or not text.endswith(" written"):
            return None
        return _unknown_errno(given, output)
    if isinstance(err, OSError):
        for named in (err.filename, err.filename2):
            if named is not None and not _about_output(os.fspath(named), output):
                return None
        return WriteError(err.errno, err.strerror or os.strerror(err.errno), given)
    if not ((type(err).__name__ == "SafetensorError"
             and ("IoError" in text or "I/O error" in text))
            or "PytorchStreamWriter failed" in text):
        return None
    code = _errno_in(text)
    if code is None:
        return _unknown_errno(given, output)
    return WriteError(code, os.strerror(code), given)


def _unknown_errno(given: str, output: str) -> WriteError:
    """A failed write whose reason wasn't kept: a full disk is the usual one."""
    code = errno.ENOSPC if _disk_full(os.path.dirname(output)) else errno.EIO
    return WriteError(code, os.strerror(code), given)


def _about_output(named: str, output: str) -> bool:
    """Whether a path an error names is the output, its folder, or its temporary."""
    named = os.path.abspath(named)
    folder = os.path.dirname(output)
    own = os.path.join(folder, "." + os.path.basename(output) + _MARK)
    return named in (output, folder) or named.startswith(own)


def _errno_in(text: str) -> int | None:
    """The OS error number in a Rust I/O error's text (``code: 28``, ``os error 28``)."""
    for key in ("code: ", "os error "):
        at = text.find(key)
        if at >= 0:
            digits = text[at + len(key):].split(",")[0].split(")")[0].strip()
            if digits.isdigit():
                return int(digits)
    return None


def _disk_full(folder: str) -> bool:
    try:
        return os.statvfs(folder).f_bavail == 0
    except (OSError, AttributeError):
        return False


def _umask() -> int:
    """The process's umask. Linux shows it in /proc; elsewhere it is read by setting it,
    to 077 for the moment, so a file another thread creates then is private, not open."""
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0o077)
    os.umask(mask)
    return mask


def _held(make: Callable[[], str], made: list[str]) -> None:
    """``made.append(make())`` with SIGINT and SIGTERM held back until done. A signal
    mostly lands in a system call, and is raised as the call returns: between the
    temporary's creation and the writer learning its name, it would leave it behind."""
    _holding(lambda: made.append(make()))


# While a temporary is made or removed (``_holding``): how deep, and what a stop
# signal's handler (``shapescript.signals``) deferred to then. Blocking the signals
# alone isn't enough: in a process with other threads (torch's), the kernel hands a
# process's signal to one of them, and the main thread runs the handler all the same.
_HOLD = [0]
_LATER: list[Callable[[], None]] = []


def holding_temporaries() -> bool:
    """Whether a writer is making or removing its temporary: a stop signal's handler
    defers its exception (``defer_stop``) until it is done."""
    return _HOLD[0] > 0


def defer_stop(later: Callable[[], None]) -> None:
    """Call ``later`` (which raises) once the temporary is made or removed."""
    _LATER.append(later)


def _holding(action: Callable[[], object]) -> None:
    """``action()`` with SIGINT and SIGTERM held back until done (then raised): the
    temporary's creation, and its removal while a first signal unwinds the writer, which
    a second one (a parent's death signal after the launcher's own) would cut short."""
    blocks = hasattr(signal, "pthread_sigmask")
    old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM}) \
        if blocks else None
    _HOLD[0] += 1
    try:
        action()
    finally:
        _HOLD[0] -= 1
        if old is not None:
            signal.pthread_sigmask(signal.SIG_SETMASK, old)
        if not _HOLD[0] and _LATER:
            later = _LATER[0]
            _LATER.clear()
            later()


def _unlink_quietly(path: str) -> None:
    if os.path.lexists(path):
        try:
            os.unlink(path)
        except OSError:
            pass


def _remove_trees(*paths: str | None) -> None:
    for path in paths:
        if path is not None and os.path.lexists(path):
            shutil.rmtree(path, ignore_errors=True)


def _new_modes(folder: str) -> None:
    """The folder, and everything in it, the mode of a new one under the umask (the
    folder was made private, and some writers, such as safetensors, make files 0600)."""
    mask = _umask()
    for top, dirs, names in os.walk(folder):
        os.chmod(top, 0o777 & ~mask)
        for name in names:
            path = os.path.join(top, name)
            if not os.path.islink(path):
                os.chmod(path, 0o666 & ~mask)


def _new_file(prefix: str, suffix: str, folder: str) -> str:
    fd, tmp = tempfile.mkstemp(prefix=prefix, suffix=suffix, dir=folder)
    os.close(fd)
    return tmp


def _temp_prefix(path: str) -> str:
    return "." + os.path.basename(path) + _MARK + str(os.getpid()) + "-"


def _temp_owner(name: str) -> tuple[int, str] | None:
    """``(pid, target's name)`` of a temporary's name, None for any other name."""
    base, mark, rest = name[1:].rpartition(_MARK)
    pid, dash, tail = rest.partition("-")
    if not name.startswith(".") or not mark or not base or not dash or not tail \
            or not pid.isdigit():
        return None
    return int(pid), base


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True      # someone else's process: alive
    try:                 # a zombie (dead, not yet reaped) writes nothing more
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as f:
            return f.read().rpartition(")")[2].split()[0] != "Z"
    except (OSError, IndexError):
        return True


def probe_writable(path: str | os.PathLike[str]) -> None:
    """Creates and removes a temporary beside ``path``, named as every writer's, so that
    a kill in between leaves one the next writer's sweep removes. Raises ``OSError`` when
    ``path``'s folder can't be written (permissions, a read-only mount, a full disk: the
    test ``os.access`` can't make)."""
    path = os.fspath(path)
    folder = os.path.dirname(os.path.abspath(path))
    made: list[str] = []
    _held(lambda: _new_file(_temp_prefix(path), ".tmp", folder), made)
    os.unlink(made[0])


def sweep_stale(folder: str | os.PathLike[str]) -> None:
    """Removes from ``folder`` the temporaries of writers that were killed before they
    could (their pid is dead); an old folder that a killed writer had moved aside, and
    whose replacement never came, is put back. POSIX only (elsewhere a pid can't be
    asked whether it lives without touching the process)."""
    if os.name != "posix":
        return
    try:
        names = os.listdir(folder)
    except OSError:
        return
    for name in names:
        owner = _temp_owner(name)
        if owner is None or owner[0] == os.getpid() or _alive(owner[0]):
            continue
        path = os.path.join(folder, name)
        target = os.path.join(folder, owner[1])
        try:
            if name.endswith(".old") and not os.path.lexists(target):
                os.replace(path, target)
            elif os.path.isdir(path) and not os.path.islink(path):
                shutil.rmtree(path, ignore_errors=True)
            else:
                os.unlink(path)
        except OSError:
            pass


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
    which wants a ``suffix`` of ``.pt2``). Raises ``WriteError`` when the output can't
    be written."""
    given = os.fspath(path)
    path = os.path.abspath(given)
    folder = os.path.dirname(path)
    sweep_stale(folder)
    made: list[str] = []
    try:
        _held(lambda: _new_file(_temp_prefix(path), suffix, folder), made)
        write(made[0])
        os.chmod(made[0], 0o666 & ~_umask())
        os.replace(made[0], path)
    except Exception as err:
        mapped = write_error(err, given)
        if mapped is None or mapped is err:
            raise
        raise mapped from err
    finally:
        if made:
            _holding(lambda: _unlink_quietly(made[0]))


def atomic_dir(path: str | os.PathLike[str], fill: Callable[[str], object]) -> None:
    """Build a folder with ``fill(tmpdir)`` beside ``path``, then move it into place:
    the folder appears complete or not at all. An existing folder at ``path`` is
    replaced only once the new one is complete. Raises ``WriteError`` when the output
    can't be written (an ``OSError`` of ``fill`` about another path is its own)."""
    given = os.fspath(path)
    path = os.path.abspath(given)
    parent = os.path.dirname(path)
    sweep_stale(parent)
    made: list[str] = []
    old = None
    try:
        _held(lambda: tempfile.mkdtemp(prefix=_temp_prefix(path), suffix=".tmp", dir=parent),
              made)
        tmp = made[0]
        fill(tmp)
        _new_modes(tmp)
        if os.path.lexists(path):
            # A free name for the old folder while the new one moves in: made, then
            # removed, then taken by the rename.
            old = tempfile.mkdtemp(prefix=_temp_prefix(path), suffix=".old", dir=parent)
            os.rmdir(old)
            os.replace(path, old)
        os.replace(tmp, path)
    except BaseException as err:
        if old is not None and os.path.lexists(old) and not os.path.lexists(path):
            os.replace(old, path)
            old = None
        mapped = write_error(err, given) if isinstance(err, Exception) else None
        if mapped is None or mapped is err:
            raise
        raise mapped from err
    finally:
        _holding(lambda: _remove_trees(made[0] if made else None, old))


def same_file(a: str | os.PathLike[str], b: str | os.PathLike[str]) -> bool:
    """Whether two paths name one file (by inode where both exist, else by path)."""
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.realpath(a) == os.path.realpath(b)

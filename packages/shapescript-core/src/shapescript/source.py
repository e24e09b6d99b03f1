"""Source files and spans: where every node and diagnostic points."""

from __future__ import annotations

import errno
import os
import re
import stat
import threading
from typing import TYPE_CHECKING
from shapescript import error_codes as ec

if TYPE_CHECKING:
    from shapescript.diagnostics import Diagnostic


# Each position's width in a span's packed value: up to 2**25 - 1, twice the longest
# source file (``MAX_SOURCE_BYTES``). Six of them and a small file number fit in six of
# CPython's 30-bit digits: a 64-byte object.
_BITS = 25
_MASK = (1 << _BITS) - 1
_FILE = 6 * _BITS  # the file's number sits above the six positions
_TO = ((1 << 3 * _BITS) - 1) << 3 * _BITS  # the end's three positions (offset, line, column)

# The files spans are in, numbered in the order first seen: a span holds its file's
# number, so that it is one integer. Numbers are per process (a pickled span carries
# the name).
_FILES: list[str] = []
_FILE_NUMBERS: dict[str, int] = {}
_FILES_LOCK = threading.Lock()


def _number(file: str) -> int:
    k = _FILE_NUMBERS.get(file)
    if k is None:
        with _FILES_LOCK:  # two checker threads meeting one new file agree on its number
            k = _FILE_NUMBERS.get(file)
            if k is None:
                k = len(_FILES)
                _FILES.append(file)
                _FILE_NUMBERS[file] = k
    return k


class Span(int):
    """A region of one source file.

    Lines and columns count from 1, in characters; ``end_line``/``end_col`` are
    exclusive (the column just after the last character). ``start``/``end`` are
    character offsets into the source text.

    Immutable, compared and hashed by value, like the tree's frozen dataclasses. A large
    file has a million spans, so a span is one integer: its six positions packed 25 bits
    each (a position outside ``0 .. 2**25 - 1`` is a ``ValueError``), its file's number
    above them. An object with fields and an integer for its positions took about 100
    bytes; the integer takes 64.
    It is an ``int`` only in how it is stored: it has no arithmetic of its own meaning,
    and is always true.

    >>> sp = Span("f.ss", 2, 5, 2, 9, 14, 18)
    >>> sp.line, sp.col, sp.end_line, sp.end_col, sp.start, sp.end
    (2, 5, 2, 9, 14, 18)
    >>> sp.to(Span("f.ss", 3, 1, 3, 4, 20, 23))
    Span(file='f.ss', line=2, col=5, end_line=3, end_col=4, start=14, end=23)
    """

    __slots__ = ()

    def __new__(cls, file: str, line: int, col: int, end_line: int, end_col: int,
                start: int = 0, end: int = 0) -> "Span":
        # A negative position or one too wide sets a bit above the lowest 25 of the OR.
        if (line | col | end_line | end_col | start | end) >> _BITS:
            raise ValueError(f"a span's positions are from 0 to {_MASK}: "
                             f"{line}:{col}-{end_line}:{end_col} [{start}, {end})")
        return int.__new__(cls, start | line << 25 | col << 50 | end << 75 | end_line << 100
                           | end_col << 125 | _number(file) << _FILE)

    file = property(lambda self: _FILES[self >> _FILE], doc="The file's path.")
    line = property(lambda self: self >> 25 & _MASK, doc="The first line (from 1).")
    col = property(lambda self: self >> 50 & _MASK, doc="The first column (from 1).")
    end_line = property(lambda self: self >> 100 & _MASK, doc="The last line.")
    end_col = property(lambda self: self >> 125 & _MASK, doc="The column after the last one.")
    start = property(lambda self: self & _MASK, doc="The first character's offset.")
    end = property(lambda self: self >> 75 & _MASK, doc="The offset after the last one.")

    def to(self, other: "Span") -> "Span":
        """The span from the start of ``self`` to the end of ``other``."""
        return int.__new__(Span, self & ~_TO | other & _TO)

    def _fields(self) -> tuple[str, int, int, int, int, int, int]:
        return (self.file, self.line, self.col, self.end_line, self.end_col, self.start,
                self.end)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not Span:
            return NotImplemented
        return int.__eq__(self, other)

    def __ne__(self, other: object) -> bool:
        if other.__class__ is not Span:
            return NotImplemented
        return int.__ne__(self, other)

    __hash__ = int.__hash__

    def __bool__(self) -> bool:
        return True

    def __repr__(self) -> str:
        f = self._fields()
        return (f"Span(file={f[0]!r}, line={f[1]!r}, col={f[2]!r}, end_line={f[3]!r}, "
                f"end_col={f[4]!r}, start={f[5]!r}, end={f[6]!r})")

    __str__ = __repr__

    def __reduce__(self) -> tuple[type["Span"], tuple[str, int, int, int, int, int, int]]:
        return Span, self._fields()


NO_SPAN = Span("<builtin>", 1, 1, 1, 1)


# A source file larger than this is refused before it is read: no program is this long,
# and reading (then tokenising) gigabytes by mistake would exhaust memory first.
MAX_SOURCE_BYTES = 16 * 1024 * 1024

_KINDS = ((stat.S_ISDIR, "a directory", errno.EISDIR), (stat.S_ISFIFO, "a FIFO", errno.EINVAL),
          (stat.S_ISCHR, "a character device", errno.EINVAL),
          (stat.S_ISBLK, "a block device", errno.EINVAL),
          (stat.S_ISSOCK, "a socket", errno.EINVAL))
_NEWLINE_RE = re.compile(r"\r\n|\n|\r")


def word_span(source: str, span: Span, word: str) -> Span:
    """The span of the first ``word`` on ``span``'s first line of ``source`` (else ``span``)."""
    k = source.find(word, span.start)
    eol = source.find("\n", span.start)
    if k < 0 or (0 <= eol < k):
        return span
    col = span.col + (k - span.start)
    return Span(span.file, span.line, col, span.line, col + len(word), k, k + len(word))


class SourceDecodeError(ValueError):
    """A ``.ss`` file that isn't UTF-8.

    ``diagnostic`` (E0101) points at the first byte that can't be decoded; ``text`` is
    the file decoded with U+FFFD for the bad bytes, for rendering the diagnostic. Callers
    report it like any other error in the file (exit 1), not as a file-system failure.
    """

    def __init__(self, path: str, diagnostic: "Diagnostic", text: str) -> None:
        super().__init__(f"{path}:{diagnostic.line}:{diagnostic.column}: {diagnostic.message}")
        self.path = path
        self.diagnostic = diagnostic
        self.text = text


def read_source_bytes(path: str) -> bytes:
    """The bytes of the ``.ss`` file ``path``, read only if it is a regular file.

    Raises OSError (never blocking) when the file can't be read: missing, unreadable,
    a directory, a FIFO, a device or a socket (refused before any read, so a FIFO
    doesn't hang and ``/dev/zero`` isn't read forever), or larger than
    ``MAX_SOURCE_BYTES``. ``strerror`` says which, for an ``error:`` line.
    """
    # O_NONBLOCK: opening a FIFO that has no writer would otherwise wait for one.
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    fd = os.open(path, flags)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            for test, kind, code in _KINDS:
                if test(st.st_mode):
                    break
            else:
                kind, code = "not a regular file", errno.EINVAL
            raise OSError(code, f"is {kind}, not a regular file", path)
        if st.st_size > MAX_SOURCE_BYTES:
            raise OSError(errno.EFBIG, f"is too large for a source file ({st.st_size:,} bytes; "
                                       f"the limit is {_limit()})", path)
        chunks = []
        total = 0
        while True:  # a file growing while it is read is still held to the limit
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                break
            total += len(chunk)
            if total > MAX_SOURCE_BYTES:
                raise OSError(errno.EFBIG, "is too large for a source file (the limit is "
                                           f"{_limit()})", path)
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def _limit() -> str:
    n = MAX_SOURCE_BYTES
    return f"{n >> 20} MiB" if n % (1 << 20) == 0 else f"{n:,} bytes"


def decode_source(data: bytes, path: str) -> str:
    """``data`` as UTF-8 text; ``SourceDecodeError`` at the first byte that isn't."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        from shapescript.diagnostics import Diagnostic

        text = data.decode("utf-8", "replace")
        # The prefix before the bad byte decodes exactly, so it gives the character offset
        # (the replacement text agrees with it up to there), the line and the column.
        prefix = data[:err.start].decode("utf-8")
        offset = len(prefix)
        line = 1 + len(_NEWLINE_RE.findall(prefix))
        line_start = max(prefix.rfind("\n"), prefix.rfind("\r")) + 1
        col = offset - line_start + 1
        bad = data[err.start:err.end] or data[err.start:err.start + 1]
        shown = " ".join(f"0x{b:02X}" for b in bad)
        span = Span(path, line, col, line, col + 1, offset, offset + 1)
        diag = Diagnostic.error(
            ec.E0101, f"this file isn't UTF-8: byte {shown} at offset {err.start} can't be "
                     "decoded", span, "not UTF-8",
            help="save the file as UTF-8 (in an editor: \"save with encoding\", UTF-8)")
        raise SourceDecodeError(path, diag, text) from None


def read_source(path: str) -> str:
    """The text of the ``.ss`` file ``path``, the one place a source file is read.

    Raises OSError when it can't be read (see ``read_source_bytes``: also a directory,
    a FIFO, a device, or a file over ``MAX_SOURCE_BYTES``), and ``SourceDecodeError``
    (a ``ValueError`` carrying an E0101 diagnostic) when it isn't UTF-8.

    >>> read_source("/no/such.ss")
    Traceback (most recent call last):
    FileNotFoundError: [Errno 2] No such file or directory: '/no/such.ss'
    """
    return decode_source(read_source_bytes(path), path)

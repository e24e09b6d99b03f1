"""Source files and spans: where every node and diagnostic points."""

from __future__ import annotations

import errno
import os
import re
import stat
from dataclasses import dataclass
from typing import TYPE_CHECKING
from shapescript import error_codes as ec

if TYPE_CHECKING:
    from shapescript.diagnostics import Diagnostic


@dataclass(frozen=True, slots=True)
class Span:
    """A region of one source file.

    Lines and columns count from 1, in characters; ``end_line``/``end_col`` are
    exclusive (the column just after the last character). ``start``/``end`` are
    character offsets into the source text.
    """

    file: str
    line: int
    col: int
    end_line: int
    end_col: int
    start: int = 0
    end: int = 0

    def to(self, other: "Span") -> "Span":
        """The span from the start of ``self`` to the end of ``other``."""
        return Span(self.file, self.line, self.col, other.end_line, other.end_col,
                    self.start, other.end)


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

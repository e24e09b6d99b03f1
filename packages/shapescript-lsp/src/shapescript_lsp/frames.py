"""The editor's byte stream, cut into well-formed frames before pygls reads it.

Each message of the protocol is a frame: header lines (``Content-Length: N`` required,
``Content-Type`` optional), an empty line, then N bytes of JSON. pygls' own loop reads a
header line by line and a frame without a valid ``Content-Length`` (``Content-Length:
abc``, no header at all) leaves it reading the next frame's header as part of a line:
the message after a malformed one is lost. ``FrameReader`` reads the stream itself,
skips what isn't a frame up to the next ``Content-Length`` header, and hands pygls only
whole frames, each in the canonical form its loop reads.
"""

from __future__ import annotations

import logging
import re
from typing import BinaryIO

log = logging.getLogger("shapescript_lsp")

_LENGTH = re.compile(rb"content-length:[ \t]*(\d{1,12})[ \t]*\r?\n", re.IGNORECASE)
_LENGTH_START = re.compile(rb"content-length:", re.IGNORECASE)
_HEADER = re.compile(rb"[A-Za-z][A-Za-z0-9-]*:[^\r\n]*\r?\n")
# A frame longer than this is read and thrown away (its length is believed: the frame
# after it is found where it says), so one message can't take the server's memory.
MAX_FRAME_BYTES = 256 * 1024 * 1024
_CHUNK = 1 << 20


class FrameReader:
    """A binary stream with ``readline`` and ``read``, as pygls reads stdin, that only
    ever returns whole, well-formed frames of the stream it wraps."""

    def __init__(self, stream: BinaryIO, max_frame: int = MAX_FRAME_BYTES) -> None:
        self.stream = stream
        self.max_frame = max_frame
        self._out = b""  # the canonical frame being handed out
        self._carry = b""  # a header line found inside skipped bytes

    # -- what pygls calls -------------------------------------------------------------
    def readline(self) -> bytes:
        if not self._fill():
            return b""
        end = self._out.find(b"\n")
        end = len(self._out) if end < 0 else end + 1
        line, self._out = self._out[:end], self._out[end:]
        return line

    def read(self, n: int = -1) -> bytes:
        if not self._fill():
            return b""
        n = len(self._out) if n is None or n < 0 else n
        data, self._out = self._out[:n], self._out[n:]
        return data

    # -- the frames ---------------------------------------------------------------------
    def _fill(self) -> bool:
        """Puts the next whole frame in ``_out`` (if it is empty); False at the end of
        the stream."""
        while not self._out:
            body = self._next_body()
            if body is None:
                return False
            if body:
                self._out = b"Content-Length: %d\r\n\r\n" % len(body) + body
        return True

    def _line(self) -> bytes:
        if self._carry:
            line, self._carry = self._carry, b""
            return line
        return self.stream.readline()

    def _next_body(self) -> bytes | None:
        """The body of the next frame (b"": a malformed frame, skipped); None at the
        end of the stream."""
        length: int | None = None
        while True:
            line = self._line()
            if not line:
                return None
            if line in (b"\r\n", b"\n"):
                if length is not None:
                    break
                log.warning("a message without a Content-Length header was skipped")
                return self._resync(b"")
            m = _LENGTH.fullmatch(line)
            if m:
                length = int(m.group(1))
            elif not _HEADER.fullmatch(line) or _LENGTH_START.match(line):
                # Not a header (a body without headers, or a bad length): drop bytes up
                # to the next frame's Content-Length.
                log.warning("a malformed message header was skipped: %r", line[:80])
                return self._resync(line[1:] if _LENGTH_START.match(line) else line)
        if length > self.max_frame:
            log.warning("a message of %d bytes was skipped (the limit is %d)", length,
                        self.max_frame)
            return self._discard(length)
        body = self._read_exactly(length)
        return None if body is None else body

    def _resync(self, seen: bytes) -> bytes | None:
        """Skips bytes up to the next ``Content-Length`` header (searching ``seen``,
        the bytes already read, first); that header is the next line read."""
        while True:
            m = _LENGTH_START.search(seen)
            if m:
                self._carry = seen[m.start():]
                if not self._carry.endswith(b"\n"):
                    more = self.stream.readline()
                    self._carry += more
                return b""
            seen = self.stream.readline()
            if not seen:
                return None

    def _read_exactly(self, n: int) -> bytes | None:
        parts = []
        while n > 0:
            data = self.stream.read(n)
            if not data:
                return None
            parts.append(data)
            n -= len(data)
        return b"".join(parts)

    def _discard(self, n: int) -> bytes | None:
        while n > 0:
            data = self.stream.read(min(n, _CHUNK))
            if not data:
                return None
            n -= len(data)
        return b""

"""The server reads the editor's stream frame by frame: a malformed frame (a bad or
missing ``Content-Length``) is skipped, and the message after it is answered."""

from __future__ import annotations

import io
import json
import queue
import subprocess
import sys
import threading
from typing import Any

import pytest

from shapescript_lsp.frames import FrameReader

TIMEOUT = 60.0


def frame(obj: dict[str, Any]) -> bytes:
    body = json.dumps(obj).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def request(k: int, method: str, params: Any = None) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": k, "method": method, "params": params}


def bodies(reader: FrameReader) -> list[bytes]:
    """The frames ``reader`` hands out, read as pygls reads them."""
    out = []
    while True:
        header = reader.readline()
        if not header:
            return out
        assert header.startswith(b"Content-Length: ") and reader.readline() == b"\r\n"
        out.append(reader.read(int(header.split(b":")[1])))


def test_the_reader_skips_malformed_frames_and_keeps_the_next():
    a, b, c = (json.dumps(request(k, "m")).encode() for k in (1, 2, 3))
    stream = (b"Content-Length: %d\r\nContent-Type: application/vscode-jsonrpc\r\n\r\n%s"
              % (len(a), a)
              + b"Content-Length: abc\r\n\r\n" + b
              + frame(request(4, "m"))
              + b  # no headers at all
              + frame(request(5, "m"))
              + b"Content-Type: x\r\n\r\n" + c  # headers without a length
              + frame(request(6, "m"))
              + b"garbage line\n" + frame(request(7, "m")))
    got = [json.loads(x)["id"] for x in bodies(FrameReader(io.BytesIO(stream)))]
    assert got == [1, 4, 5, 6, 7]


def test_a_frame_over_the_limit_is_skipped_by_its_length():
    big = json.dumps(request(1, "m", "x" * 5000)).encode()
    stream = b"Content-Length: %d\r\n\r\n" % len(big) + big + frame(request(2, "m"))
    got = [json.loads(x)["id"] for x in bodies(FrameReader(io.BytesIO(stream), max_frame=1000))]
    assert got == [2]


def test_a_frame_cut_short_ends_the_stream():
    assert bodies(FrameReader(io.BytesIO(b"Content-Length: 50\r\n\r\n{\"a\": 1"))) == []


class Server:
    """``python -m shapescript_lsp`` on pipes, its replies read on a thread."""

    def __init__(self) -> None:
        self.proc = subprocess.Popen([sys.executable, "-m", "shapescript_lsp"],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL)
        self.replies: queue.Queue[dict[str, Any]] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        out = self.proc.stdout
        assert out is not None
        while True:
            length = None
            while (header := out.readline()) not in (b"\r\n", b""):
                if header.lower().startswith(b"content-length:"):
                    length = int(header.split(b":")[1])
            if not header or length is None:
                return
            msg = json.loads(out.read(length))
            if "id" in msg and "method" not in msg:
                self.replies.put(msg)

    def send(self, data: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def reply(self) -> dict[str, Any]:
        try:
            return self.replies.get(timeout=TIMEOUT)
        except queue.Empty:
            pytest.fail(f"no reply in {TIMEOUT:.0f} s")

    def close(self) -> None:
        self.proc.kill()
        self.proc.wait()


def test_the_request_after_a_malformed_frame_is_answered(tmp_path):
    server = Server()
    try:
        server.send(frame(request(1, "initialize", {"capabilities": {},
                                                    "rootUri": tmp_path.as_uri()})))
        assert server.reply()["id"] == 1
        hover = {"textDocument": {"uri": (tmp_path / "m.ss").as_uri()},
                 "position": {"line": 0, "character": 0}}
        bad = json.dumps(request(2, "textDocument/hover", hover)).encode()
        server.send(b"Content-Length: abc\r\n\r\n" + bad)
        server.send(frame(request(3, "textDocument/hover", hover)))
        assert server.reply() == {"jsonrpc": "2.0", "id": 3, "result": None}
        # A message with no headers at all, then a good one.
        server.send(json.dumps(request(4, "textDocument/hover", hover)).encode())
        server.send(frame(request(5, "shutdown")))
        assert server.reply()["id"] == 5
    finally:
        server.close()

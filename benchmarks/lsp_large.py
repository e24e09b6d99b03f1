"""The language server on a large document: how soon the first hover is answered while
the document's first check runs, how long that check takes, and the server's memory.

The document is ``check_speed.py``'s generated clean program, cut to about ``--mb``
megabytes (whole units). The server (``python -m shapescript_lsp``) is started on pipes,
the document opened, and a hover sent at once; then the script waits for the check's
diagnostics and hovers again (answered from the check). The server's peak resident
memory is its ``VmHWM`` (Linux).

    uv run python benchmarks/lsp_large.py [--mb 5]

Targets (the robustness issue): the first hover within 1 s while the check runs, and
the server under 500 MB.
"""

from __future__ import annotations

import argparse
import json
import queue
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT))

from check_speed import program  # noqa: E402


def document(mb: float) -> str:
    want = int(mb * 1_000_000)
    n = 1000
    text = program(n)
    n = int(n * want / len(text)) + 200
    text = program(n)
    cut = text.rfind("\n## Side", 0, want)
    return text[:cut + 1] if cut > 0 else text


class Server:
    def __init__(self) -> None:
        self.proc = subprocess.Popen([sys.executable, "-m", "shapescript_lsp"],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self.messages: queue.Queue[dict[str, Any]] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        self.k = 0

    def _read(self) -> None:
        out = self.proc.stdout
        assert out is not None
        while True:
            length = None
            while (line := out.readline()) not in (b"\r\n", b""):
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
            if not line or length is None:
                return
            self.messages.put(json.loads(out.read(length)))

    def send(self, method: str, params: Any, request: bool = True) -> int | None:
        msg: dict[str, Any] = {"jsonrpc": "2.0", "method": method, "params": params}
        if request:
            self.k += 1
            msg["id"] = self.k
        body = json.dumps(msg).encode()
        assert self.proc.stdin is not None
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()
        return msg.get("id")

    def wait(self, pred: Any, timeout: float = 900.0) -> dict[str, Any]:
        end = time.monotonic() + timeout
        while True:
            msg = self.messages.get(timeout=max(end - time.monotonic(), 0.01))
            if pred(msg):
                return msg

    def memory_mb(self, field: str) -> float:
        for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024
        return float("nan")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mb", type=float, default=5.0)
    args = ap.parse_args(argv)
    text = document(args.mb)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "large.ss"
        path.write_text(text)
        uri = path.as_uri()
        server = Server()
        try:
            k = server.send("initialize", {"capabilities": {}, "rootUri": Path(tmp).as_uri()})
            server.wait(lambda m: m.get("id") == k)
            line = text.split("\n").index(next(ln for ln in text.split("\n")
                                               if ln.startswith("    ") and " = " in ln))
            pos = {"line": line, "character": 4}
            t0 = time.perf_counter()
            server.send("textDocument/didOpen", {"textDocument": {
                "uri": uri, "languageId": "shapescript", "version": 1, "text": text}},
                request=False)
            k = server.send("textDocument/hover", {"textDocument": {"uri": uri},
                                                   "position": pos})
            server.wait(lambda m: m.get("id") == k)
            first = time.perf_counter() - t0
            diags = server.wait(lambda m: m.get("method") == "textDocument/publishDiagnostics")
            checked = time.perf_counter() - t0
            k = server.send("textDocument/hover", {"textDocument": {"uri": uri},
                                                   "position": pos})
            hover = server.wait(lambda m: m.get("id") == k)
            after = time.perf_counter() - t0 - checked
            peak, now = server.memory_mb("VmHWM"), server.memory_mb("VmRSS")
        finally:
            server.proc.kill()
            server.proc.wait()
    print(f"document: {len(text) / 1e6:.2f} MB, {text.count(chr(10))} lines")
    print(f"first hover answered in {first * 1000:.0f} ms (during the check)")
    print(f"check published after {checked:.1f} s "
          f"({len(diags['params']['diagnostics'])} diagnostics)")
    print(f"hover after the check: {after * 1000:.0f} ms, "
          f"{'typed' if hover.get('result') else 'empty'}")
    print(f"server memory: peak {peak:.0f} MB, after the check {now:.0f} MB")
    ok = first < 1.0 and peak < 500
    if not ok:
        print("target missed: first hover under 1 s and memory under 500 MB")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

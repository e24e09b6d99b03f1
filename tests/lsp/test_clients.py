"""Real editors against `shapescript lsp`: headless Neovim reads a diagnostic back, and
the VS Code grammar passes its grammar tests (vscode-tmgrammar-test)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
VSCODE = ROOT / "editors" / "vscode"


@pytest.mark.skipif(shutil.which("nvim") is None,
                    reason="needs Neovim (.ci/run installs Debian's neovim)")
def test_neovim_reads_a_diagnostic_back(tmp_path: Path):
    src = tmp_path / "wrong.ss"
    src.write_text("dim D = 4\ndim C = 3\n\nfn head(x: [b D]) -> [b C]:\n    return x\n")
    out = tmp_path / "diagnostics.txt"
    env = dict(os.environ, SS_FILE=str(src), SS_OUT=str(out), SS_PYTHON=sys.executable)
    proc = subprocess.run(
        ["nvim", "--headless", "--clean", "-n", "-c", f"luafile {ROOT / 'tests/lsp/nvim_client.lua'}"],
        env=env, capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
    assert out.exists(), proc.stderr
    (line,) = out.read_text().splitlines()
    lnum, col, code, message = line.split(":", 3)
    assert (int(lnum), int(col), code) == (4, 11, "E0401")
    assert "sizes not provably equal" in message


def test_vscode_extension_manifest_points_at_its_files():
    manifest = json.loads((VSCODE / "package.json").read_text())
    (lang,) = manifest["contributes"]["languages"]
    assert lang["extensions"] == [".ss"]
    assert (VSCODE / lang["configuration"]).is_file()
    (grammar,) = manifest["contributes"]["grammars"]
    assert grammar["scopeName"] == "source.shapescript"
    data = json.loads((VSCODE / grammar["path"]).read_text())
    assert data["scopeName"] == "source.shapescript"
    assert (VSCODE / manifest["main"]).is_file()
    config = json.loads((VSCODE / lang["configuration"]).read_text())
    assert config["comments"]["lineComment"] == "#"
    # Every regex of the grammar compiles (Python's engine agrees with Oniguruma on the
    # constructs used here), so a typo fails here too, without node.
    def regexes(node):
        if isinstance(node, dict):
            for k, v in node.items():
                if k in ("match", "begin", "end") and isinstance(v, str):
                    yield v
                else:
                    yield from regexes(v)
        elif isinstance(node, list):
            for v in node:
                yield from regexes(v)
    found = list(regexes(data))
    assert len(found) > 30
    for rx in found:
        re.compile(rx)


@pytest.mark.skipif(shutil.which("node") is None, reason="needs node")
def test_vscode_extension_script_parses():
    proc = subprocess.run(["node", "--check", str(VSCODE / "extension.js")],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr


RUNNER = VSCODE / "node_modules" / ".bin" / "vscode-tmgrammar-test"


@pytest.mark.skipif(not RUNNER.exists(),
                    reason="needs `npm install` in editors/vscode (.ci/run does it)")
def test_vscode_grammar_tests():
    files = sorted(p.name for p in (VSCODE / "tests" / "grammar").glob("*.ss"))
    assert {"shapes.ss", "consts.ss", "unicode.ss"} <= set(files)
    proc = subprocess.run(
        [str(RUNNER), "-g", "syntaxes/shapescript.tmLanguage.json",
         *(f"tests/grammar/{f}" for f in files)],
        cwd=VSCODE, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    for f in files:
        assert f"{f} run successfuly" in proc.stdout


@pytest.mark.skipif(shutil.which("node") is None, reason="needs node")
def test_vscode_takes_a_name_beyond_ascii_as_one_word():
    # Double-click, word navigation and completion's word follow `wordPattern`.
    script = ("const p = require(process.argv[1]).wordPattern;"
              "const r = new RegExp(p.pattern, (p.flags || '') + 'g');"
              "console.log(JSON.stringify('x Größe ß_2 12.5e3 Ωmega'.match(r)));")
    proc = subprocess.run(["node", "-e", script, str(VSCODE / "language-configuration.json")],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == ["x", "Größe", "ß_2", "12.5e3", "Ωmega"]


def _frame(obj: dict) -> bytes:
    body = json.dumps(obj).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def _read(stream) -> dict:
    length = 0
    while True:
        line = stream.readline()
        if line in (b"\r\n", b""):
            break
        if line.lower().startswith(b"content-length:"):
            length = int(line.split(b":")[1])
    return json.loads(stream.read(length))


def test_shapescript_lsp_command_serves_the_protocol():
    """`shapescript lsp`, found by the CLI through the `shapescript.commands` entry point."""
    exe = Path(sys.executable).with_name("shapescript")
    assert exe.exists()
    proc = subprocess.Popen([str(exe), "lsp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    try:
        proc.stdin.write(_frame({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                                 "params": {"processId": None, "rootUri": None,
                                            "capabilities": {}}}))
        proc.stdin.flush()
        reply = _read(proc.stdout)
        caps = reply["result"]["capabilities"]
        assert reply["result"]["serverInfo"]["name"] == "shapescript"
        for cap in ("hoverProvider", "definitionProvider", "referencesProvider",
                    "completionProvider", "signatureHelpProvider", "inlayHintProvider",
                    "documentSymbolProvider", "semanticTokensProvider", "codeActionProvider"):
            assert caps.get(cap), cap
        # `zeros[` opens a constructor's shape, whose signature help shows there.
        assert "[" in caps["signatureHelpProvider"]["triggerCharacters"]
        proc.stdin.write(_frame({"jsonrpc": "2.0", "id": 2, "method": "shutdown"}))
        proc.stdin.write(_frame({"jsonrpc": "2.0", "method": "exit"}))
        proc.stdin.flush()
        assert _read(proc.stdout)["id"] == 2
        assert proc.wait(timeout=30) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait()

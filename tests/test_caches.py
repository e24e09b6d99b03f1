"""The caches can't lie: the import hook's compiled code and the parser's table are
checked against a SHA-256 stored with them before they are used; a damaged file (a bit
flipped, cut short, or valid but not what was written) is compiled again, silently and
once, and rewritten."""

from __future__ import annotations

import importlib
import json
import marshal
import os
import random
import sys

import pytest

import shapescript.compiler
from shapescript import importer
from shapescript.rt import config


class FakeCompiler:
    """A ``.ss`` file here is Python already: only the hook and its cache are tested."""

    def __init__(self):
        self.calls = 0

    def __call__(self, path, *, checks, value_checks, **kw):
        self.calls += 1
        with open(path, encoding="utf-8") as f:
            src = f.read()
        return shapescript.compiler.CompileOutput(src, [], {path: src}, ())


@pytest.fixture
def hook(tmp_path, monkeypatch):
    fake = FakeCompiler()
    monkeypatch.setattr(shapescript.compiler, "compile_file", fake)
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    monkeypatch.delenv("SHAPESCRIPT_CHECKS", raising=False)
    monkeypatch.delenv("SHAPESCRIPT_VALUE_CHECKS", raising=False)
    saved_path, saved_modules = list(sys.path), set(sys.modules)
    sys.path.insert(0, str(tmp_path))
    config.reset_modes()
    importer.install()
    yield fake
    importer.uninstall()
    config.reset_modes()
    sys.path[:] = saved_path
    for name in set(sys.modules) - saved_modules:
        del sys.modules[name]
    importlib.invalidate_caches()


def fresh_import(name):
    sys.modules.pop(name, None)
    importlib.invalidate_caches()
    return importlib.import_module(name)


def the_cache(folder):
    [p] = (folder / "__pycache__").glob("*.pyc")
    return p


SRC = "VALUES = [i * i for i in range(10)]\nTOTAL = sum(VALUES)\n"


def test_bit_flips_are_recompiled_once(tmp_path, hook):
    (tmp_path / "cache_flip.ss").write_text(SRC)
    assert fresh_import("cache_flip").TOTAL == 285
    cache = the_cache(tmp_path)
    good = cache.read_bytes()
    rng = random.Random(3)
    for k in range(60):
        data = bytearray(good)
        for _ in range(rng.randint(1, 3)):
            data[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
        cache.write_bytes(bytes(data))
        before = hook.calls
        assert fresh_import("cache_flip").TOTAL == 285   # never garbled code, never a crash
        assert hook.calls == before + 1, f"flip {k} was not noticed"
        assert fresh_import("cache_flip").TOTAL == 285   # rewritten: a hit again
        assert hook.calls == before + 1
        assert cache.read_bytes() == good


def test_truncated_caches_are_recompiled(tmp_path, hook):
    (tmp_path / "cache_cut.ss").write_text(SRC)
    fresh_import("cache_cut")
    cache = the_cache(tmp_path)
    good = cache.read_bytes()
    for size in sorted({0, 1, 8, 20, len(good) // 2, len(good) - 20, len(good) - 1}):
        cache.write_bytes(good[:size])
        before = hook.calls
        assert fresh_import("cache_cut").TOTAL == 285
        assert hook.calls == before + 1
        assert cache.read_bytes() == good


def test_other_valid_code_under_a_good_header_never_runs(tmp_path, hook):
    """The body is swapped for valid marshalled code: the header's hash catches it."""
    (tmp_path / "cache_swap.ss").write_text(SRC)
    fresh_import("cache_swap")
    cache = the_cache(tmp_path)
    good = cache.read_bytes()
    magic = importer._CACHE_MAGIC
    n = int.from_bytes(good[len(magic):len(magic) + 4], "little")
    head = good[:len(magic) + 4 + n]
    evil = compile("TOTAL = -1\n", str(tmp_path / "cache_swap.ss"), "exec")
    cache.write_bytes(head + marshal.dumps(evil))
    assert fresh_import("cache_swap").TOTAL == 285
    header = json.loads(head[len(magic) + 4:])
    assert set(header) >= {"key", "deps", "code"}


# -- the parser's table ------------------------------------------------------------------

@pytest.fixture
def table_cache(tmp_path, monkeypatch):
    from shapescript.syntax import lalr_table as P

    monkeypatch.setenv("SHAPESCRIPT_CACHE_DIR", str(tmp_path))
    path = P._cache_path(P.grammar_text())
    fresh = P._build_tables()  # compiles and writes the cache
    return P, path, fresh


SAMPLE = ("dim D = 4\nmodel M:\n    param w: [D D]\n"
          "fn f(x: [n D], m: M) -> [n D]:\n    y = x @ m.w |> relu\n"
          "    if sum(y) > 0.0:\n        return rearrange(y, n D -> n D)\n    return -y\n")


def _same(a, b):
    """Whether the tables parse as the same grammar (lark numbers its states
    differently from one run to the next, so the tables themselves may differ)."""
    from shapescript.syntax import lalr_table as P
    from shapescript.syntax.parser import parse

    saved = P._TABLES
    try:
        out = []
        for t in (a, b):
            P._TABLES = t
            out.append(repr(parse(SAMPLE, "s.ss")))
    finally:
        P._TABLES = saved
    return out[0] == out[1] and "Module" in out[0]


def _sound(path):
    digest, _, body = path.read_bytes().partition(b"\n")
    import hashlib
    return hashlib.sha256(body).hexdigest().encode() == digest


def test_the_table_cache_starts_with_its_digest(table_cache):
    P, path, fresh = table_cache
    digest, _, body = path.read_bytes().partition(b"\n")
    assert len(digest) == 64 and json.loads(body)["format"] == P._TABLE_FORMAT
    assert _same(P._build_tables(), fresh)


def test_valid_json_but_a_wrong_table_is_rebuilt(table_cache):
    P, path, fresh = table_cache
    digest, _, body = path.read_bytes().partition(b"\n")
    data = json.loads(body)
    data["states"][1], data["states"][2] = data["states"][2], data["states"][1]
    data["rules"][0][0] += 1
    wrong = json.dumps(data, separators=(",", ":")).encode()
    for damaged in (digest + b"\n" + wrong, wrong, b"{}", b"[]", b"null"):
        path.write_bytes(damaged)
        assert _same(P._build_tables(), fresh)
        assert _sound(path)  # rewritten


def test_flipped_and_truncated_tables_are_rebuilt(table_cache):
    P, path, fresh = table_cache
    good = path.read_bytes()
    rng = random.Random(11)
    for k in range(12):
        data = bytearray(good)
        if k % 3 == 2:
            del data[rng.randrange(len(data)):]
        else:
            data[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
        path.write_bytes(bytes(data))
        assert _same(P._build_tables(), fresh), k
        assert _sound(path)


def test_check_works_with_a_damaged_table_cache(tmp_path):
    """The whole way: a damaged cache file on disk, `shapescript check` in a fresh
    process still checks (exit 0), and repairs the file."""
    import subprocess

    env = {**os.environ, "SHAPESCRIPT_CACHE_DIR": str(tmp_path / "cache"), "NO_COLOR": "1"}
    prog = tmp_path / "ok.ss"
    prog.write_text("fn f(x: [n]) -> [n] = x + x\n")
    cmd = [sys.executable, "-m", "shapescript_cli", "check", str(prog)]
    assert subprocess.run(cmd, env=env, timeout=120).returncode == 0
    [table] = (tmp_path / "cache").glob("lalr-*.json")
    good = table.read_bytes()
    digest, _, body = good.partition(b"\n")
    data = json.loads(body)
    data["states"] = data["states"][::-1]
    table.write_bytes(digest + b"\n" + json.dumps(data).encode())
    r = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    assert _sound(table)  # rewritten

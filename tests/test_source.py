"""Reading a ``.ss`` file (``shapescript.source.read_source``, the one place it happens):
a file that isn't UTF-8 is a diagnostic at its first bad byte (exit 1) from every command
and from the import hook; a directory, a FIFO or a device is refused before it is read
(exit 2), and so is a file over the size limit."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from shapescript import source
from shapescript.compiler import check_file, check_path, compile_file
from shapescript.source import SourceDecodeError, decode_source, read_source
from shapescript_cli.main import main

GOOD = "fn double(x: [n]) -> [n] = x + x\n"


def cli(*args: str):
    return CliRunner().invoke(main, list(args), prog_name="shapescript",
                              env={"NO_COLOR": "1"})


@pytest.fixture
def latin1(tmp_path) -> Path:
    """A program whose second line has a Latin-1 `é` (byte 0xE9) in a comment."""
    p = tmp_path / "latin.ss"
    p.write_bytes(b"fn double(x: [n]) -> [n] = x + x\n# caf\xe9 au lait\n")
    return p


def test_the_diagnostic_points_at_the_first_bad_byte(latin1):
    with pytest.raises(SourceDecodeError) as info:
        read_source(str(latin1))
    d = info.value.diagnostic
    assert (d.code, d.line, d.column, d.end_column) == ("E0101", 2, 6, 7)
    assert "0xE9" in d.message and "offset 38" in d.message
    assert info.value.text.splitlines()[1] == "# caf\ufffd au lait"


@pytest.mark.parametrize("data, line, col", [
    (b"\xff\xfefn", 1, 1),                                  # UTF-16's byte-order mark
    (b"a\r\nb\rc\n\xc3(", 4, 1),                            # CR/LF mixes count as lines
    (b"x = \"\xe2\x82\" # a cut euro sign\n", 1, 6),
    ("fn f() = 1 # λ ok\n".encode() + b"\x80", 2, 1),
])
def test_lines_and_columns_count_characters(data, line, col):
    with pytest.raises(SourceDecodeError) as info:
        decode_source(data, "f.ss")
    assert (info.value.diagnostic.line, info.value.diagnostic.column) == (line, col)


def test_utf8_with_a_bom_and_nuls_is_read():
    assert decode_source(b"\xef\xbb\xbffn f() = 1\n", "f.ss").startswith("\ufeff")
    assert decode_source(b"a\x00b", "f.ss") == "a\x00b"


def test_check_file_and_compile_file_report_it(latin1):
    diags, sources = check_file(str(latin1))
    assert [d.code for d in diags] == ["E0101"]
    assert str(latin1) in sources
    out = compile_file(str(latin1))
    assert out.python is None and [d.code for d in out.diagnostics] == ["E0101"]
    assert not check_path(str(latin1)).ok


def test_an_imported_module_that_isnt_utf8(tmp_path):
    (tmp_path / "helpers.ss").write_bytes(b"# \xe9\nfn one() -> int = 1\n")
    main_ss = tmp_path / "app.ss"
    main_ss.write_text("import helpers\n\nfn two() -> int = helpers.one() + 1\n")
    diags, sources = check_file(str(main_ss))
    assert any(d.code == "E0101" and d.file.endswith("helpers.ss") and d.line == 1
               for d in diags), diags
    assert any(p.endswith("helpers.ss") for p in sources)


@pytest.mark.parametrize("command", [["check"], ["build"], ["check", "--format", "json"]])
def test_commands_exit_1_with_the_diagnostic(latin1, command):
    r = cli(*command, str(latin1))
    assert r.exit_code == 1, r.output
    assert "E0101" in r.output and "UTF-8" in r.output
    assert "Traceback" not in r.output
    assert not latin1.with_suffix(".py").exists()


def test_the_import_hook_raises_shapescripterror(latin1, monkeypatch):
    from shapescript.importer import import_file
    from shapescript.rt.errors import ShapeScriptError

    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    with pytest.raises(ShapeScriptError, match=r"E0101.*UTF-8") as info:
        import_file(str(latin1), "latin_mod")
    assert [d.code for d in info.value.diagnostics] == ["E0101"]
    assert "latin_mod" not in sys.modules


@pytest.mark.slow
def test_run_exits_1_without_a_traceback(latin1):
    r = subprocess.run([sys.executable, "-m", "shapescript_cli", "run", str(latin1)],
                       capture_output=True, text=True, timeout=120,
                       env={**os.environ, "NO_COLOR": "1"})
    assert r.returncode == 1, r.stdout + r.stderr
    assert "E0101" in r.stderr and "Traceback" not in r.stdout + r.stderr


# -- files that aren't regular files -----------------------------------------------------

@pytest.fixture
def fifo(tmp_path) -> Path:
    if not hasattr(os, "mkfifo"):
        pytest.skip("no FIFOs here")
    p = tmp_path / "pipe.ss"
    os.mkfifo(p)
    return p


def test_read_source_refuses_special_files_without_reading(fifo, tmp_path):
    with pytest.raises(OSError, match="is a FIFO, not a regular file"):
        read_source(str(fifo))                  # would wait forever for a writer
    if os.path.exists("/dev/zero"):
        with pytest.raises(OSError, match="is a character device"):
            read_source("/dev/zero")            # would read until memory runs out
    with pytest.raises(IsADirectoryError):
        read_source(str(tmp_path))
    with pytest.raises(FileNotFoundError):
        read_source(str(tmp_path / "missing.ss"))


def test_the_size_limit(tmp_path, monkeypatch):
    p = tmp_path / "big.ss"
    p.write_text(GOOD * 100)
    monkeypatch.setattr(source, "MAX_SOURCE_BYTES", 1000)
    with pytest.raises(OSError, match=r"too large for a source file \(3,300 bytes; the limit is 1,000 bytes\)"):
        read_source(str(p))
    r = cli("check", str(p))
    assert r.exit_code == 2 and "too large" in r.output


@pytest.mark.parametrize("command", ["check", "build", "run"])
def test_commands_refuse_special_files_with_exit_2(fifo, command):
    for target in (str(fifo), "/dev/zero"):
        if not os.path.exists(target):
            continue
        r = subprocess.run([sys.executable, "-m", "shapescript_cli", command, target],
                           capture_output=True, text=True, timeout=60,
                           env={**os.environ, "NO_COLOR": "1"}, stdin=subprocess.DEVNULL)
        out = r.stdout + r.stderr
        assert r.returncode == 2, out
        assert "error: cannot read" in out and "not a regular file" in out
        assert "Traceback" not in out


def test_check_of_a_directory_without_ss_files_is_exit_2(tmp_path):
    # A directory is walked for .ss files (tests/cli/test_check_project.py); none is a
    # mistake of the command, not a clean check.
    (tmp_path / "notes.txt").write_text("x")
    r = cli("check", str(tmp_path))
    assert r.exit_code == 2 and "no .ss files to check" in r.output


def test_check_with_a_profile_reports_it_too(latin1):
    from shapescript_cli.commands.check import check_files

    class Profile:
        def diagnostics(self, program, fn):  # never reached: the file has an error
            raise AssertionError("a profile ran on a file with errors")

    diags, sources, tracebacks = check_files([str(latin1)], [Profile()])
    assert [d.code for d in diags] == ["E0101"] and not tracebacks


@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"])
def test_every_line_ending_renders_the_line(newline):
    from shapescript.render import render

    src = newline.join(["dim D = 4", "fn f(x: [n]) -> [n]:", "    y = x", "    return z", ""])
    diags = check_file_text(src)
    assert [(d.code, d.line, d.column) for d in diags] == [("E0201", 4, 12)]
    text = render(diags, {"le.ss": src}, "full")
    assert "4 |     return z\n" in text and "^ not found" in text


def check_file_text(src: str):
    from shapescript.compiler import check_source

    return check_source(src, "le.ss")

"""Faults of ``shapescript export`` and ``build`` lose nothing: an output that is an
input is refused, an unwritable output is found before tracing, and a killed or
interrupted export leaves no child, no temporary file and no output."""

from __future__ import annotations

import os
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest
from export_helpers import PROGRAMS

SHAPESCRIPT = str(Path(sys.executable).with_name("shapescript"))


def run(*args: str, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([SHAPESCRIPT, *args], capture_output=True, text=True,
                          stdin=subprocess.DEVNULL, timeout=120, **kw)


@pytest.fixture
def codec(tmp_path: Path) -> Path:
    src = tmp_path / "codec.ss"
    src.write_text((PROGRAMS / "codec.ss").read_text())
    return src


@pytest.mark.parametrize("command", ["build", "export"])
def test_output_that_is_the_input_is_refused(command, codec):
    before = codec.read_bytes()
    extra = ["--fn", "encode"] if command == "export" else []
    r = run(command, str(codec), *extra, "-o", str(codec))
    assert r.returncode == 2, r.stderr
    assert r.stderr.startswith(f"error: the output {codec} is the input ")
    assert codec.read_bytes() == before


def test_emit_python_over_an_imported_module_is_refused(tmp_path):
    (tmp_path / "layers.ss").write_text("fn double(x: [n]) -> [n] = x * 2.0\n")
    main = tmp_path / "main.ss"
    main.write_text("import layers\n\nexport fn f(x: [n]) -> [n] = layers.double(x)\n")
    before = (tmp_path / "layers.ss").read_text()
    r = run("export", str(main), "--emit-python", str(tmp_path / "layers.ss"))
    assert r.returncode == 2 and "is the input" in r.stderr
    assert (tmp_path / "layers.ss").read_text() == before


def test_unwritable_output_is_found_before_tracing(codec, tmp_path):
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(stat.S_IRUSR | stat.S_IXUSR)
    marker = tmp_path / "traced"
    py = tmp_path / "py.sh"
    py.write_text(f"#!/bin/sh\ntouch '{marker}'\nexec '{sys.executable}' \"$@\"\n")
    py.chmod(0o755)
    # Root writes through permissions: a read-only file system stands in for it then.
    target = locked / "x.pt2" if os.geteuid() != 0 else Path("/sys/x.pt2")
    try:
        r = run("export", str(codec), "--fn", "encode", "-o", str(target),
                "--python", str(py))
    finally:
        locked.chmod(0o755)
    assert r.returncode == 2
    assert "isn't writable" in r.stderr
    assert not marker.exists()                # no tracing started


def _slow_python(tmp_path: Path) -> tuple[Path, Path]:
    """A Python for tracing that records its pid, then sits in its start-up for a
    minute (a site hook), as a long trace would."""
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text("import time\ntime.sleep(60)\n")
    pidfile = tmp_path / "child.pid"
    py = tmp_path / "slow.sh"
    py.write_text(f"#!/bin/sh\necho $$ > '{pidfile}'\n"
                  f"PYTHONPATH='{site}' exec '{sys.executable}' \"$@\"\n")
    py.chmod(0o755)
    return py, pidfile


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split()[2] != "Z"
    except FileNotFoundError:
        return False


def _wait_for(predicate, timeout: float = 20.0) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(0.05)
    return False


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc and PDEATHSIG")
@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGINT, signal.SIGTERM])
def test_a_killed_export_leaves_no_child_and_no_files(sig, codec, tmp_path):
    py, pidfile = _slow_python(tmp_path)
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    (out_dir / "codec.pt2").write_bytes(b"the previous export")
    before = set(os.listdir(os.environ.get("TMPDIR", "/tmp")))
    proc = subprocess.Popen([SHAPESCRIPT, "export", str(codec), "--fn", "encode",
                             "-o", str(out_dir / "codec.pt2"), "--python", str(py)],
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        assert _wait_for(lambda: pidfile.exists() and pidfile.read_text().strip()), \
            "the tracing child never started"
        child = int(pidfile.read_text())
        assert _alive(child)
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=30)
        assert _wait_for(lambda: not _alive(child), timeout=10), "the child outlived the export"
    finally:
        if proc.poll() is None:
            proc.kill()
    if sig == signal.SIGKILL:
        assert proc.returncode == -signal.SIGKILL
    else:
        assert proc.returncode == 128 + sig, err
        what = "interrupted by SIGINT" if sig == signal.SIGINT else "terminated by SIGTERM"
        assert err == f"error: {what}: nothing was written\n"
    assert os.listdir(out_dir) == ["codec.pt2"]            # the previous export, untouched
    assert (out_dir / "codec.pt2").read_bytes() == b"the previous export"
    after = set(os.listdir(os.environ.get("TMPDIR", "/tmp")))
    assert not [n for n in after - before if n.startswith("shapescript-export")]


def test_a_file_with_errors_is_reported_without_importing_torch(tmp_path):
    bad = tmp_path / "bad.ss"
    bad.write_text("fn f(x: [n]) -> [n]:\n    return nope\n")
    code = ("import sys\n"
            "from shapescript_cli.main import main\n"
            "try:\n"
            "    main([*sys.argv[1:]], prog_name='shapescript')\n"
            "except SystemExit as e:\n"
            "    print('exit', e.code, 'torch' in sys.modules, file=sys.stderr)\n")
    for args in (["build", str(bad)], ["export", str(bad), "--fn", "f"]):
        r = subprocess.run([sys.executable, "-c", code, *args], capture_output=True,
                           text=True, timeout=120)
        assert "error[E0201]" in r.stderr
        assert r.stderr.rstrip().endswith("exit 1 False"), r.stderr


def test_a_probe_killed_midway_leaves_a_temporary_the_next_run_sweeps(tmp_path):
    # The writability probe before tracing makes a file beside the output: a SIGKILL
    # before it is removed must leave one that the next writer's sweep recognises.
    import textwrap

    from shapescript.api import sweep_stale

    out = tmp_path / "model.pt2"
    code = textwrap.dedent(f"""
        import os, signal
        from shapescript_export.target import check_output
        os.unlink = lambda path: os.kill(os.getpid(), signal.SIGKILL)
        check_output({str(out)!r}, [])
    """)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True)
    assert proc.returncode == -9
    assert [p.name for p in tmp_path.iterdir()], "the probe left nothing to sweep"
    sweep_stale(tmp_path)
    assert list(tmp_path.iterdir()) == []

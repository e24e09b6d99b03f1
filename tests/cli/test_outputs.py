"""What every writer of the command shares (``shapescript.files``), seen from outside:
outputs get the user's umask; an output that can't be written (a full disk, a file size
limit, a read-only folder) is exit 2 with one line naming it; SIGTERM and SIGINT end a
command with one line and 143 or 130; a stopped or killed export leaves the previous
output whole and, after the next command, no temporary.

A full disk is made portably with a file size limit (``RLIMIT_FSIZE``): the write fails
in the serializer itself (safetensors, torch's zip writer, numpy), as on a full disk,
with no root, mount or patch."""

from __future__ import annotations

import os
import resource
import signal
import stat
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LLAMA = str(ROOT / "examples" / "llama.ss")
SHAPESCRIPT = [sys.executable, "-m", "shapescript_cli"]
HANG_GUARD_S = 300

linux = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="POSIX limits, /proc")

PROGRAM = textwrap.dedent("""\
    fn double(x: [n]) -> [n] = x * 2.0

    fn main():
        print(double(ones[3]))
""")


def _run(*args: str, cwd: Path, umask: int | None = None, max_file: int | None = None,
         **kw) -> subprocess.CompletedProcess:
    def limits() -> None:
        if umask is not None:
            os.umask(umask)
        if max_file is not None:
            resource.setrlimit(resource.RLIMIT_FSIZE, (max_file, max_file))

    return subprocess.run([*SHAPESCRIPT, *args], cwd=cwd, capture_output=True, text=True,
                          timeout=HANG_GUARD_S, preexec_fn=limits, **kw)


def _mode(path: Path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def _temporaries(folder: Path) -> list[str]:
    return sorted(n for n in os.listdir(folder) if ".shapescript-" in n)


# ---- modes ----

@pytest.mark.parametrize("mask, mode", [(0o022, 0o644), (0o077, 0o600)])
def test_build_output_gets_the_umask(tmp_path, mask, mode):
    (tmp_path / "double.ss").write_text(PROGRAM)
    r = _run("build", "double.ss", "-o", "double_module.py", cwd=tmp_path, umask=mask)
    assert r.returncode == 0, r.stderr
    assert _mode(tmp_path / "double_module.py") == mode


@pytest.mark.slow
def test_exported_files_get_the_umask(tmp_path):
    """``.pt2`` and ``.gguf`` were written 0600 whatever the umask; an HF folder and a
    checkpoint follow it too."""
    for args in (["--fn", "forward", "-o", "llama.pt2"], ["--gguf", "llama.gguf"],
                 ["--hf", "llama_hf", "--no-verify"]):
        r = _run("export", LLAMA, *args, cwd=tmp_path, umask=0o022)
        assert r.returncode == 0, r.stderr
    assert _mode(tmp_path / "llama.pt2") == 0o644
    assert _mode(tmp_path / "llama.gguf") == 0o644
    assert _mode(tmp_path / "llama_hf") == 0o755
    assert _mode(tmp_path / "llama_hf" / "model.safetensors") == 0o644
    (tmp_path / "save.ss").write_text(textwrap.dedent("""\
        dim D = 4

        model Line:
            param w: [D D]

        fn main():
            save("line.safetensors", Line.init(seed=0))
    """))
    r = _run("run", "save.ss", cwd=tmp_path, umask=0o077)
    assert r.returncode == 0, r.stderr
    assert _mode(tmp_path / "line.safetensors") == 0o600


# ---- write errors: exit 2, naming the output ----

@linux
@pytest.mark.slow
@pytest.mark.parametrize("target", ["hf", "gguf", "pt2"])
def test_a_full_disk_is_exit_2_naming_the_output(tmp_path, target):
    """Before: ``--hf`` was an internal error (safetensors' error unmapped), ``--gguf``
    blamed ``llama.ss``, and a model's ``.pt2`` aborted the process in torch's writer."""
    out = {"hf": "llama_hf", "gguf": "llama.gguf", "pt2": "llama.pt2"}[target]
    args = {"hf": ["--hf", out, "--no-verify"], "gguf": ["--gguf", out],
            "pt2": ["--fn", "forward", "-o", out]}[target]
    previous = tmp_path / out
    if target == "hf":
        previous.mkdir()
        (previous / "config.json").write_text("{}")
    else:
        previous.write_bytes(b"the previous export")
    r = _run("export", LLAMA, *args, cwd=tmp_path, max_file=64 * 1024)
    assert r.returncode == 2, r.stderr
    last = r.stderr.strip().splitlines()[-1]
    assert last.startswith(f"error: cannot write {out}: "), r.stderr
    assert "Traceback" not in r.stderr and "llama.ss" not in r.stderr
    assert _temporaries(tmp_path) == []
    if target == "hf":
        assert os.listdir(previous) == ["config.json"]
    else:
        assert previous.read_bytes() == b"the previous export"


@linux
def test_a_checkpoint_on_a_full_disk_is_exit_2_naming_it(tmp_path):
    (tmp_path / "save.ss").write_text(textwrap.dedent("""\
        dim D = 256

        model Square:
            param w: [D D]

        fn main():
            print("saving")
            save("square.safetensors", Square.init(seed=0))
    """))
    r = _run("run", "save.ss", cwd=tmp_path, max_file=64 * 1024)
    assert r.returncode == 2, r.stderr
    assert r.stderr.endswith("error: cannot write square.safetensors: File too large\n"), r.stderr
    assert "Traceback" not in r.stderr
    assert _temporaries(tmp_path) == []


@linux
@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
def test_a_log_on_a_full_disk_is_exit_2_naming_it(tmp_path):
    (tmp_path / "log.ss").write_text(textwrap.dedent("""\
        fn main():
            for step in 0..3:
                report(step, loss=1.0)
    """))
    r = _run("run", "--log", "/dev/full", "log.ss", cwd=tmp_path)
    assert r.returncode == 2, r.stderr
    assert r.stderr.endswith("error: cannot write /dev/full: No space left on device\n"), r.stderr


@pytest.mark.slow
def test_a_read_only_target_folder_names_the_output_not_a_temporary(tmp_path):
    """Before, the error named the temporary folder beside the output. Root writes
    through permission bits: a read-only file system stands in then."""
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(stat.S_IRUSR | stat.S_IXUSR)
    target = str(locked / "llama_hf") if os.geteuid() != 0 else "/sys/llama_hf"
    try:
        r = _run("export", LLAMA, "--hf", target, "--no-verify", cwd=tmp_path)
    finally:
        locked.chmod(0o755)
    assert r.returncode == 2
    assert r.stderr.startswith(f"error: cannot write {target}: "), r.stderr
    assert ".shapescript-" not in r.stderr and ".tmp" not in r.stderr


# ---- stopping: SIGINT, SIGTERM ----

@linux
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_stopped_command_says_so_in_one_line(tmp_path, sig):
    """Before: SIGTERM killed the command with no word (-15), SIGINT was "Aborted!",
    exit 1."""
    (tmp_path / "wait.py").write_text("import time\nprint('ready', flush=True)\n"
                                      "while True:\n    time.sleep(0.05)\n")
    proc = subprocess.Popen([*SHAPESCRIPT, "run", "wait.py"], cwd=tmp_path,
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline() == "ready\n"
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 128 + sig
    what = "interrupted by SIGINT" if sig == signal.SIGINT else "terminated by SIGTERM"
    assert err == f"error: {what}\n"


def _wait_for(predicate, timeout: float) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(0.02)
    return False


@linux
@pytest.mark.slow
@pytest.mark.parametrize("target", ["hf", "gguf"])
@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM, signal.SIGINT])
def test_a_stopped_export_leaves_the_previous_output_and_no_temporary(tmp_path, target,
                                                                      sig):
    """The signal lands while the HF export writes and verifies its folder (the
    temporary is there), or while the GGUF export searches (its write is too short to
    aim at); the previous output is left whole. After SIGKILL a temporary stays until
    the next command that writes into the folder."""
    out = tmp_path / ("llama_hf" if target == "hf" else "llama.gguf")
    source = LLAMA
    if target == "hf":
        out.mkdir()
        (out / "config.json").write_text("{}")
        args = ["--hf", out.name]
    else:
        out.write_bytes(b"the previous export")
        args = ["--gguf", out.name]
        # The llama example's search ends in a fraction of a second; a model no
        # architecture computes (its attention output scaled by a gain, not offset by a
        # bias) keeps the search running for seconds, so the signal lands in it.
        slow = (ROOT / "tests" / "gguf" / "models" / "llama_extra_tensor.ss").read_text()
        source = str(tmp_path / "searching.ss")
        Path(source).write_text(slow.replace("m.wo[l], m.wo_bias[l])", "m.wo[l]) * m.wo_bias[l]"))
    proc = subprocess.Popen([*SHAPESCRIPT, "export", source, *args], cwd=tmp_path,
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        if target == "hf":
            assert _wait_for(lambda: _temporaries(tmp_path) != [], HANG_GUARD_S)
        else:
            time.sleep(3)
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    if sig == signal.SIGKILL:
        assert proc.returncode == -signal.SIGKILL
        (tmp_path / "double.ss").write_text(PROGRAM)
        r = _run("build", "double.ss", "-o", "double.py", cwd=tmp_path)  # the next command
        assert r.returncode == 0, r.stderr
    else:
        assert proc.returncode == 128 + sig, err
        what = "interrupted by SIGINT" if sig == signal.SIGINT else "terminated by SIGTERM"
        assert err.strip().splitlines()[-1] == f"error: {what}: nothing was written", err
        assert "Traceback" not in err
    assert _temporaries(tmp_path) == []
    if target == "hf":
        assert os.listdir(out) == ["config.json"]
    else:
        assert out.read_bytes() == b"the previous export"

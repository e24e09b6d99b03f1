"""Atomic writes: a reader sees the old file or the new one, never part of one."""

from __future__ import annotations

import errno
import os
import signal
import stat
import subprocess
import sys
import tempfile

import pytest

from shapescript.files import (
    WriteError, atomic_dir, atomic_write, atomic_write_with, same_file, write_error,
)


def test_atomic_write_replaces_whole(tmp_path):
    p = tmp_path / "out.txt"
    p.write_text("old")
    atomic_write(p, "new")
    assert p.read_text() == "new" and os.listdir(tmp_path) == ["out.txt"]


def test_a_failed_writer_leaves_the_old_file_and_no_temporary(tmp_path):
    p = tmp_path / "out.bin"
    p.write_bytes(b"old")

    def half(tmp: str) -> None:
        with open(tmp, "wb") as f:
            f.write(b"ne")
        raise RuntimeError("disk full")

    with pytest.raises(RuntimeError):
        atomic_write_with(p, half)
    assert p.read_bytes() == b"old" and os.listdir(tmp_path) == ["out.bin"]


def test_a_folder_appears_complete_or_not_at_all(tmp_path):
    target = tmp_path / "model_hf"

    def fill(d: str) -> None:
        (open(os.path.join(d, "config.json"), "w")).write("{}")

    atomic_dir(target, fill)
    assert os.listdir(target) == ["config.json"]

    def broken(d: str) -> None:
        open(os.path.join(d, "model.safetensors"), "w").write("partial")
        raise ValueError("verification failed")

    with pytest.raises(ValueError):
        atomic_dir(target, broken)
    assert os.listdir(target) == ["config.json"]          # the old folder, untouched
    assert os.listdir(tmp_path) == ["model_hf"]           # no temporary folders left
    with pytest.raises(ValueError):
        atomic_dir(tmp_path / "new_hf", broken)
    assert os.listdir(tmp_path) == ["model_hf"]


def test_same_file_sees_through_links(tmp_path):
    a = tmp_path / "a.ss"
    a.write_text("x")
    (tmp_path / "b.ss").symlink_to(a)
    assert same_file(a, tmp_path / "b.ss") and same_file(a, tmp_path / "." / "a.ss")
    assert not same_file(a, tmp_path / "c.ss")


# ---- modes: the user's umask ----

@pytest.fixture
def umask():
    """``umask(m)`` sets the process's umask for the test; the old one comes back."""
    old = os.umask(0o022)
    os.umask(old)
    yield os.umask
    os.umask(old)


@pytest.mark.parametrize("mask, file_mode, dir_mode", [(0o022, 0o644, 0o755),
                                                        (0o077, 0o600, 0o700)])
def test_outputs_get_the_mode_of_a_new_file_under_the_umask(umask, tmp_path, mask, file_mode,
                                                            dir_mode):
    umask(mask)
    atomic_write(tmp_path / "module.py", "x = 1\n")
    atomic_write_with(tmp_path / "model.gguf", lambda tmp: open(tmp, "wb").write(b"GGUF"))
    atomic_write_with(tmp_path / "model.gguf", lambda tmp: open(tmp, "wb").write(b"GGUF2"))
    atomic_dir(tmp_path / "model_hf", lambda d: open(os.path.join(d, "config.json"), "w").write("{}"))
    mode = lambda p: stat.S_IMODE(os.stat(p).st_mode)  # noqa: E731
    assert mode(tmp_path / "module.py") == file_mode
    assert mode(tmp_path / "model.gguf") == file_mode        # a replaced file too
    assert mode(tmp_path / "model_hf") == dir_mode
    assert mode(tmp_path / "model_hf" / "config.json") == file_mode


# ---- what a killed writer leaves: swept by the next writer ----

_KILLED_WRITER = """
import sys, time
from shapescript.files import atomic_write_with, atomic_dir
def hang(tmp):
    print("writing", flush=True)
    time.sleep(60)
if sys.argv[2] == "dir":
    atomic_dir(sys.argv[1], hang)
else:
    atomic_write_with(sys.argv[1], hang)
"""


def _writer(target, kind):
    proc = subprocess.Popen([sys.executable, "-c", _KILLED_WRITER, str(target), kind],
                            stdout=subprocess.PIPE, text=True)
    assert proc.stdout.readline() == "writing\n"
    return proc


def _temporaries(folder):
    return sorted(n for n in os.listdir(folder) if ".shapescript-" in n)


@pytest.mark.parametrize("kind", ["file", "dir"])
def test_a_killed_writers_temporary_is_removed_by_the_next_writer(tmp_path, kind):
    out = tmp_path / "out"
    (tmp_path / "out").write_text("previous") if kind == "file" else out.mkdir()
    killed = _writer(out, kind)
    killed.kill()
    killed.wait()
    [left] = _temporaries(tmp_path)
    assert left.startswith(f".out.shapescript-{killed.pid}-")    # recognisable
    working = _writer(tmp_path / "other", kind)                 # alive: its temporary stays
    try:
        atomic_write(tmp_path / "module.py", "x = 1\n")           # any writer in the folder
        [still] = _temporaries(tmp_path)
        assert still.startswith(f".other.shapescript-{working.pid}-")
    finally:
        working.kill()
        working.wait()
    assert out.exists() and (kind == "dir" or out.read_text() == "previous")


def test_a_folder_moved_aside_by_a_killed_writer_is_put_back(tmp_path):
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True).stdout.strip()
    old = tmp_path / f".model_hf.shapescript-{dead}-abcd1234.old"
    old.mkdir()
    (old / "config.json").write_text("{}")
    atomic_write(tmp_path / "module.py", "x = 1\n")
    assert (tmp_path / "model_hf" / "config.json").read_text() == "{}"
    assert _temporaries(tmp_path) == []


def test_sigterm_unwinds_the_writer_which_removes_its_temporary(tmp_path):
    code = ("from shapescript.signals import stop_on_signals\nstop_on_signals()\n"
            + _KILLED_WRITER)
    proc = subprocess.Popen([sys.executable, "-c", code, str(tmp_path / "out"), "file"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdout.readline() == "writing\n"
    assert _temporaries(tmp_path) != []
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=30)
    assert "Stopped" in err                      # raised where the program was, then unwound
    assert os.listdir(tmp_path) == []


# ---- write errors: one mapping, naming the output ----

def test_a_full_disk_is_a_write_error_naming_the_output(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)

    def full(tmp: str) -> None:
        with open(tmp, "wb") as f:
            f.write(b"half")
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    with pytest.raises(WriteError) as caught:
        atomic_write_with("model.gguf", full)
    assert caught.value.errno == errno.ENOSPC
    assert str(caught.value) == "cannot write model.gguf: No space left on device"
    assert os.listdir(tmp_path) == []


def test_an_error_naming_the_temporary_names_the_output(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "llama_hf").mkdir()
    real = tempfile.mkdtemp

    def read_only(*args, **kwargs):
        path = real(*args, **kwargs)
        os.rmdir(path)
        raise OSError(errno.EROFS, os.strerror(errno.EROFS), path)

    monkeypatch.setattr(tempfile, "mkdtemp", read_only)
    with pytest.raises(WriteError) as caught:
        atomic_dir("llama_hf", lambda d: None)
    assert str(caught.value) == "cannot write llama_hf: Read-only file system"
    assert os.listdir(tmp_path) == ["llama_hf"]


def test_serializers_errors_for_a_failed_write_are_write_errors(tmp_path):
    class SafetensorError(Exception):
        pass

    io = SafetensorError('Error while serializing: IoError(Os { code: 28, kind: StorageFull, '
                         'message: "No space left on device" })')
    assert str(write_error(io, "w.safetensors")) == ("cannot write w.safetensors: "
                                                     "No space left on device")
    torch_writer = RuntimeError("[enforce fail at inline_container.cc:664] . "
                                "PytorchStreamWriter failed writing file data/0: file write failed")
    assert write_error(torch_writer, tmp_path / "p.pt2").filename == str(tmp_path / "p.pt2")
    # Not about writing: a bug, an input that couldn't be read, an error without an errno.
    assert write_error(SafetensorError("invalid dtype"), "w.safetensors") is None
    assert write_error(ValueError("shape"), "w.safetensors") is None
    assert write_error(FileNotFoundError(errno.ENOENT, "gone", "/elsewhere/tok.json"),
                       tmp_path / "out") is None
    assert write_error(OSError("can't load the model"), tmp_path / "out") is None


def test_an_input_the_filler_cannot_read_keeps_its_own_error(tmp_path):
    def copy_missing(d: str) -> None:
        open(tmp_path / "no-such-tokenizer.json").read()

    with pytest.raises(FileNotFoundError) as caught:
        atomic_dir(tmp_path / "out_hf", copy_missing)
    assert not isinstance(caught.value, WriteError)
    assert caught.value.filename.endswith("no-such-tokenizer.json")


def test_a_second_signal_during_the_cleanup_waits_for_it(tmp_path, monkeypatch):
    # A first SIGTERM unwinds the writer; a second (a rank's parent-death signal after
    # the launcher's own) lands while the temporary is removed: it is raised only once
    # the temporary is gone. Holding the signals back isn't enough: the kernel hands a
    # process's signal to a thread not holding it (torch has several) and the main
    # thread runs the handler at its next instruction, wherever that is. The handler is
    # called here where a signal's timing would put it, so that the test is not a race.
    import signal as _signal

    from shapescript import files
    from shapescript.signals import Stopped
    from shapescript.signals import _raise_stopped as handler

    def write(tmp):
        handler(_signal.SIGTERM, None)

    unlink = files._unlink_quietly

    def signalled_unlink(path):
        handler(_signal.SIGTERM, None)
        unlink(path)

    monkeypatch.setattr(files, "_unlink_quietly", signalled_unlink)
    with pytest.raises(Stopped):
        files.atomic_write_with(tmp_path / "out.txt", write)
    assert os.listdir(tmp_path) == []
    assert not files.holding_temporaries()

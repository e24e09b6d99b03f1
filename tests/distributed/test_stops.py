"""Stopping ``shapescript run --nproc-per-node 2``: SIGTERM and SIGINT stop the ranks and
end the command with one line and 143 or 130; SIGKILL of the command ends the ranks too
(they asked for SIGTERM at their parent's death). Either way no rank is left, no
temporary file of a writer is left, and the output written before is whole."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from dist_helpers import HANG_GUARD_S, child_env

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(not sys.platform.startswith("linux"),
                                 reason="/proc and PR_SET_PDEATHSIG")]

# Each rank records its pid, then writes `out.txt` again and again through ShapeScript's
# atomic writer (as `save` writes a checkpoint), so a signal lands mid-write often.
WRITER = textwrap.dedent('''
    import os
    from shapescript.api import atomic_write_with

    def write(tmp):
        with open(tmp, "w") as f:
            for _ in range(2000):
                f.write("x" * 100 + "\\n")

    rank = os.environ["RANK"]
    target = "out.txt" if rank == "0" else "out1.txt"
    atomic_write_with(target, write)
    with open(f"rank{rank}.pid", "w") as f:
        f.write(str(os.getpid()))
    while True:
        atomic_write_with(target, write)
''')


def _alive(pid: int) -> bool:
    """Running (a zombie, dead but not reaped by an init that doesn't reap, is not)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rpartition(")")[2].split()[0] != "Z"
    except FileNotFoundError:
        return False


def _wait_for(predicate, timeout: float) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(0.05)
    return False


def _launch(tmp_path: Path) -> tuple[subprocess.Popen, list[int]]:
    (tmp_path / "writer.py").write_text(WRITER)
    proc = subprocess.Popen([sys.executable, "-m", "shapescript_cli", "run",
                             "--nproc-per-node", "2", "writer.py"], cwd=tmp_path,
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=child_env())
    pidfiles = [tmp_path / "rank0.pid", tmp_path / "rank1.pid"]
    started = _wait_for(lambda: all(p.exists() and p.read_text() for p in pidfiles),
                        HANG_GUARD_S)
    if not started:
        proc.kill()
        pytest.fail("the ranks never started: " + proc.communicate()[1])
    return proc, [int(p.read_text()) for p in pidfiles]


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT, signal.SIGKILL])
def test_a_stopped_launcher_leaves_no_rank_and_no_temporary(tmp_path, sig):
    proc, ranks = _launch(tmp_path)
    try:
        time.sleep(0.3)                      # the ranks are writing
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=60)
        assert _wait_for(lambda: not any(_alive(p) for p in ranks), 30), \
            "a rank outlived the command"
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        for pid in ranks:
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)
    if sig == signal.SIGKILL:
        assert proc.returncode == -signal.SIGKILL
    else:
        assert proc.returncode == 128 + sig, err
        what = "interrupted by SIGINT" if sig == signal.SIGINT else "terminated by SIGTERM"
        # One line of ours (torchrun's start-up banner aside), no traceback, no
        # internal error.
        ours = [line for line in err.splitlines() if not line.startswith("W")]
        assert ours == [f"error: {what}: the ranks were stopped"], err
    # Each rank unwound through its writer: the outputs written before are whole, and
    # no temporary is left.
    names = sorted(os.listdir(tmp_path))
    assert [n for n in names if ".shapescript-" in n] == [], err
    for out in ("out.txt", "out1.txt"):
        assert (tmp_path / out).read_text() == ("x" * 100 + "\n") * 2000


def test_a_rank_whose_launcher_is_already_gone_stops(tmp_path):
    """The launcher died before the rank asked to follow it: the rank stops at once."""
    (tmp_path / "hello.py").write_text("print('ran')\n")
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True).stdout.strip()
    r = subprocess.run([sys.executable, "-m", "shapescript_cli", "run", "hello.py"],
                       cwd=tmp_path, capture_output=True, text=True, timeout=HANG_GUARD_S,
                       env=child_env(SHAPESCRIPT_LAUNCHER_PID=dead))
    assert r.returncode == 128 + signal.SIGTERM
    assert "ran" not in r.stdout

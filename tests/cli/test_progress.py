"""Progress on long work: export's phases and summary, training's report lines on a
terminal (a pty) and off it, ``run --log``, ``plot`` and closed pipes."""

from __future__ import annotations

import io
import json
import os
import pty
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from shapescript.progress import Progress, format_duration, format_size
from shapescript_cli.commands import plot as plot_cmd

ROOT = Path(__file__).resolve().parents[2]
SPOTTER = ROOT / "examples" / "spotter"
SHAPESCRIPT = [sys.executable, "-m", "shapescript_cli"]

TRAIN = """\
fn main():
    for step in 0..30:
        report(step, 30, loss=1.0 / (step + 1))
    print("done")
"""


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("SHAPESCRIPT_LOG", "NO_COLOR")}
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


def _in_pty(args: list[str], cwd: Path) -> tuple[int, str]:
    """Runs ``args`` with stdout and stderr on a terminal: its exit code and what it
    showed."""
    pid, fd = pty.fork()
    if pid == 0:                                          # the child: run it on the pty
        os.chdir(cwd)
        os.execve(args[0], args, _env())
    chunks = []
    while True:
        try:
            data = os.read(fd, 4096)
        except OSError:                                   # EIO: the child closed the pty
            break
        if not data:
            break
        chunks.append(data)
    _, status = os.waitpid(pid, 0)
    os.close(fd)
    return os.waitstatus_to_exitcode(status), b"".join(chunks).decode().replace("\r\n", "\n")


# -- the helper -----------------------------------------------------------------------


def test_progress_shows_phases_only_on_a_terminal(tmp_path):
    out = tmp_path / "m.pt2"
    out.write_bytes(b"x" * 1500)
    ticks = iter([0.0, 1.0, 1.25, 1.25, 3.0, 4.5])
    stream = io.StringIO()
    p = Progress(stream=stream, live=True, clock=lambda: next(ticks))
    with p.phase("checking"):
        pass
    with p.phase("tracing"):
        pass
    p.wrote(str(out))
    assert stream.getvalue() == ("checking…\rchecking   0.25 s\x1b[K\n"
                                 "tracing…\rtracing    1.75 s\x1b[K\n"
                                 f"wrote {out} (1.5 kB) in 4.50 s\n")
    stream = io.StringIO()                               # a StringIO is no TTY
    p = Progress(stream=stream, clock=iter([0.0, 0.0, 1.0, 2.0]).__next__)
    with p.phase("checking"):
        pass
    p.wrote(str(out), "llama")
    assert stream.getvalue() == f"wrote {out} (1.5 kB, llama) in 2.00 s\n"


def test_a_failed_phase_says_so_and_lets_the_error_through():
    stream = io.StringIO()
    p = Progress(stream=stream, live=True)
    with pytest.raises(ValueError):
        with p.phase("tracing"):
            raise ValueError("boom")
    assert stream.getvalue() == "tracing…\rtracing failed\x1b[K\n"
    stream = io.StringIO()
    with pytest.raises(ValueError), Progress(stream=stream).phase("tracing"):
        raise ValueError("boom")
    assert stream.getvalue() == ""                       # off a terminal: the error alone


def test_sizes_and_durations():
    assert [format_size(n) for n in (0, 999, 1000, 1_234_567, 5 * 10**9)] == \
        ["0 B", "999 B", "1.0 kB", "1.2 MB", "5.0 GB"]
    assert [format_duration(s) for s in (0.0, 9.994, 59.4, 61, 3600)] == \
        ["0.00 s", "9.99 s", "59 s", "1:01", "1:00:00"]


# -- export ---------------------------------------------------------------------------

FN = "dim D = 4\n\nexport fn double(x: [b D]) -> [b D]:\n    return x * 2.0\n"


def test_export_summary_off_a_terminal_and_phases_on_one(tmp_path):
    (tmp_path / "m.ss").write_text(FN)
    r = subprocess.run([*SHAPESCRIPT, "export", "m.ss", "--emit-python", "m_export.py"],
                       cwd=tmp_path, capture_output=True, text=True, env=_env(), timeout=120)
    assert r.returncode == 0, r.stderr
    size = (tmp_path / "m_export.py").stat().st_size
    assert r.stdout == ""
    assert re.fullmatch(rf"wrote m_export\.py \({re.escape(format_size(size))}\) in \S+ s\n",
                        r.stderr), r.stderr
    code, shown = _in_pty([*SHAPESCRIPT, "export", "m.ss", "--emit-python", "m2.py"], tmp_path)
    assert code == 0, shown
    assert re.fullmatch(r"checking…\rchecking   \S+ s\x1b\[K\nwrote m2\.py \(\S+ k?B\) in \S+ s\n",
                        shown), repr(shown)


def test_export_failure_output_is_unchanged(tmp_path):
    (tmp_path / "m.ss").write_text(FN.replace("x * 2.0", "x * y"))
    r = subprocess.run([*SHAPESCRIPT, "export", "m.ss", "--emit-python", "m_export.py"],
                       cwd=tmp_path, capture_output=True, text=True, env=_env(), timeout=120)
    assert r.returncode == 1 and "wrote" not in r.stderr and "error[" in r.stderr
    assert not (tmp_path / "m_export.py").exists()


# -- training -------------------------------------------------------------------------


def test_training_lines_on_a_terminal_and_off_it(tmp_path):
    (tmp_path / "train.ss").write_text(TRAIN)
    r = subprocess.run([*SHAPESCRIPT, "run", "--log", "run.jsonl", "train.ss"], cwd=tmp_path,
                       capture_output=True, text=True, env=_env(), timeout=120)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert len(lines) == 31 and lines[-1] == "done"     # off a terminal: every report
    assert lines[0] == "step 0/30: loss 1"
    assert re.fullmatch(r"step 29/30: loss 0\.03333 \(\S+ (steps/s|s/step), ETA 0s\)", lines[29])
    records = [json.loads(x) for x in (tmp_path / "run.jsonl").read_text().splitlines()]
    assert [rec["step"] for rec in records] == list(range(30))
    assert list(records[1]) == ["step", "loss", "time"] and records[1]["loss"] == 0.5
    assert all(a["time"] <= b["time"] for a, b in zip(records, records[1:]))

    code, shown = _in_pty([*SHAPESCRIPT, "run", "train.ss"], tmp_path)
    assert code == 0, shown
    kept = shown.split("\n")
    # On a terminal: a live line rewritten in place, a line kept per tenth and the last.
    finals = [k.split("\r")[-1].replace("\x1b[K", "") for k in kept if k]
    steps = [int(m.group(1)) for f in finals if (m := re.match(r"step (\d+)/30", f))]
    assert steps == [0, 3, 6, 9, 12, 15, 18, 21, 24, 27, 29], shown
    assert finals[-1] == "done"
    assert "step 1/30" in shown and "step 1/30: loss 0.5" not in "\n".join(finals)


def test_closed_pipe_ends_quietly(tmp_path):
    for name in ("train.ss", "spotter.ss", "shapes.py"):
        shutil.copy(SPOTTER / name, tmp_path / name)
    cmd = " ".join([*SHAPESCRIPT, "run", "train.ss", "1"])
    r = subprocess.run(f"{cmd} | head -1; exit ${{PIPESTATUS[0]}}", shell=True,
                       executable="/bin/bash", cwd=tmp_path, capture_output=True, text=True,
                       env=_env(), timeout=300)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("step 0/32: loss ") and r.stdout.count("\n") == 1
    assert "Traceback" not in r.stderr and "Error" not in r.stderr, r.stderr


def test_closed_pipe_of_a_script_and_of_its_own(tmp_path):
    (tmp_path / "many.py").write_text("for i in range(5000):\n    print('line', i)\n")
    (tmp_path / "own.py").write_text(
        "import subprocess\n"
        "p = subprocess.Popen(['true'], stdin=subprocess.PIPE)\n"
        "p.wait()\n"
        "p.stdin.write(b'x' * 100000)\n"
        "p.stdin.flush()\n")
    cmd = " ".join([*SHAPESCRIPT, "run", "many.py"])
    r = subprocess.run(f"{cmd} | head -1; exit ${{PIPESTATUS[0]}}", shell=True,
                       executable="/bin/bash", cwd=tmp_path, capture_output=True, text=True,
                       env=_env(), timeout=120)
    assert (r.returncode, r.stdout, r.stderr) == (0, "line 0\n", "")
    # A pipe the program opened itself is its own error: the traceback, exit 1.
    r = subprocess.run([*SHAPESCRIPT, "run", "own.py"], cwd=tmp_path, capture_output=True,
                       text=True, env=_env(), timeout=120)
    assert r.returncode == 1 and r.stderr.rstrip().endswith("BrokenPipeError: [Errno 32] Broken pipe")


def test_run_log_that_cannot_be_written(tmp_path):
    (tmp_path / "train.ss").write_text(TRAIN)
    r = subprocess.run([*SHAPESCRIPT, "run", "--log", "no/such/run.jsonl", "train.ss"],
                       cwd=tmp_path, capture_output=True, text=True, env=_env(), timeout=120)
    assert r.returncode == 2 and r.stderr.startswith("error: cannot write no/such/run.jsonl")


# -- plot -----------------------------------------------------------------------------


def _log(tmp_path: Path) -> Path:
    path = tmp_path / "run.jsonl"
    path.write_text("".join(json.dumps({"step": 10 * i, "loss": 2.0 / (i + 1), "acc": i / 9,
                                        "time": 1000.0 + i}) + "\n" for i in range(10)))
    return path


def test_plot_writes_a_png(tmp_path):
    pytest.importorskip("matplotlib")
    log = _log(tmp_path)
    r = CliRunner().invoke(plot_cmd.command, [str(log), "-o", str(tmp_path / "loss.png")])
    assert r.exit_code == 0, r.output
    assert (tmp_path / "loss.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_plot_draws_sparklines_without_matplotlib(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)   # as if it weren't installed
    log = _log(tmp_path)
    r = CliRunner().invoke(plot_cmd.command, [str(log)])
    assert r.exit_code == 0
    assert r.output.splitlines()[0] == ("loss  █▄▃▂▁▁▁▁▁▁  2 → 0.2 "
                                        "(min 0.2 at step 90, max 2 at step 0)")
    assert r.output.splitlines()[1].startswith("acc   ▁▁▂▃▄▅▆▇██  0 → 1 ")
    r = CliRunner().invoke(plot_cmd.command, [str(log), "-o", str(tmp_path / "loss.png")])
    assert r.exit_code == 2 and "needs matplotlib" in r.output and "loss  " in r.output
    assert not (tmp_path / "loss.png").exists()


def test_plot_rejects_what_is_not_a_log(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"step": 0, "loss": 1}\nnot json\n')
    r = CliRunner().invoke(plot_cmd.command, [str(bad)])
    assert r.exit_code == 2 and f"{bad}:2: not a JSON object" in r.output
    r = CliRunner().invoke(plot_cmd.command, [str(tmp_path / "missing.jsonl")])
    assert r.exit_code == 2 and "cannot read" in r.output

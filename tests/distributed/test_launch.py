"""Starting a program on two processes: through ``shapescript run --nproc-per-node`` and
through ``torchrun`` itself; what each rank sees; save from rank 0, load on every rank."""

from __future__ import annotations

import signal
import textwrap
import types

import click
import pytest

from dist_helpers import run_shapescript, run_torchrun

HELLO = textwrap.dedent('''
    fn main():
        print("rank", rank(), "of", world_size())
''')


def test_torchrun_runs_the_same_program(tmp_path):
    (tmp_path / "hello.ss").write_text(HELLO)
    r = run_torchrun("--nproc-per-node", "2", "--rdzv-backend", "c10d", "--rdzv-endpoint",
                     "127.0.0.1:0", "--local-addr", "127.0.0.1",
                     "-m", "shapescript_cli", "run", "hello.ss", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == ["rank 0 of 2"]


def test_all_ranks_print_prefixed(tmp_path):
    (tmp_path / "hello.ss").write_text(HELLO)
    r = run_shapescript("run", "--all-ranks", "--nproc-per-node", "2", "hello.ss", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert sorted(r.stdout.splitlines()) == ["[rank0]: rank 0 of 2", "[rank1]: rank 1 of 2"]


def test_one_process_is_world_of_one(tmp_path):
    (tmp_path / "hello.ss").write_text(HELLO)
    r = run_shapescript("run", "hello.ss", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == ["rank 0 of 1"]


# probe.py counts, per process, the files safetensors writes, in a log the test reads.
PROBE = textwrap.dedent('''
    import os
    import safetensors.torch

    _save = safetensors.torch.save_file

    def _counted(tensors, filename, metadata=None):
        with open("writes.log", "a") as f:
            f.write(f"rank {os.environ['RANK']} wrote\\n")
        return _save(tensors, filename, metadata=metadata)

    safetensors.torch.save_file = _counted
''')

SAVE = textwrap.dedent('''
    import python probe

    dim D = 3

    model Line:
        param w: [D D]

    fn main():
        m = Line.init(seed=rank())
        opt = sgd(m, lr=0.1)
        save("line.safetensors", m)
        again = load("line.safetensors", Line)
        print("loaded", sum(again.w), "on", rank())
        sink("run.jsonl")
        report(0, total=sum(again.w))
''')


def test_save_once_from_rank0_and_load_everywhere(tmp_path):
    (tmp_path / "probe.py").write_text(PROBE)
    (tmp_path / "save.ss").write_text(SAVE)
    r = run_shapescript("run", "--all-ranks", "--nproc-per-node", "2", "save.ss", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "writes.log").read_text() == "rank 0 wrote\n"
    # The optimizer started every rank from rank 0's weights (init(seed=rank()) differs),
    # and both loaded the one file.
    lines = sorted(ln for ln in r.stdout.splitlines() if " loaded " in ln)
    assert len(lines) == 2, r.stdout
    assert lines[0].split(" on ")[0].split("]: ")[1] == lines[1].split(" on ")[0].split("]: ")[1]
    # The report file is rank 0's: one record.
    assert len((tmp_path / "run.jsonl").read_text().splitlines()) == 1


# -- the launcher's pieces, without launching ------------------------------------------


def test_torchrun_arguments():
    from shapescript_cli.commands import _launch

    assert _launch.torchrun_args(2, 1, 0, None, 300) == [
        "--nproc-per-node", "2", "--max-restarts", "0", "--monitor-interval", "0.1",
        "--nnodes", "1", "--rdzv-backend", "c10d", "--rdzv-endpoint", "127.0.0.1:0",
        "--local-addr", "127.0.0.1"]
    assert _launch.torchrun_args(4, 2, 1, "10.0.0.1:29500", 60.0)[6:] == [
        "--nnodes", "2", "--node-rank", "1", "--rdzv-backend", "static",
        "--rdzv-endpoint", "10.0.0.1:29500", "--rdzv-conf", "timeout=60"]
    assert _launch.worker_args("never", None, "train.ss", ("2",)) == [
        "-m", "shapescript_cli", "run", "--checks", "never", "train.ss", "2"]


def test_failures_are_described_by_rank():
    from shapescript_cli.commands import _launch

    killed = types.SimpleNamespace(local_rank=1, pid=42, exitcode=-signal.SIGKILL)
    assert _launch.describe_failure(3, killed) == "rank 3 (local rank 1, pid 42) was killed by SIGKILL"
    failed = types.SimpleNamespace(local_rank=0, pid=7, exitcode=1)
    assert _launch.describe_failure(0, failed) == "rank 0 (local rank 0, pid 7) exited with code 1"


@pytest.mark.parametrize("endpoint", ["nohost", "host:", ":29500", "host:0", "host:99999"])
def test_bad_endpoints(endpoint):
    from shapescript_cli.commands import _launch

    with pytest.raises(click.BadParameter):
        _launch.parse_endpoint(endpoint)
    assert _launch.parse_endpoint("[::1]:29500") == ("::1", 29500)


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_two_machines_meet_at_the_endpoint(tmp_path):
    """Two "machines" (two launches, one process each) on this one, at 127.0.0.1."""
    import subprocess
    import sys

    from dist_helpers import HANG_GUARD_S, child_env

    (tmp_path / "hello.ss").write_text(HELLO)
    port = _free_port()
    cmd = [sys.executable, "-m", "shapescript_cli", "run", "--nproc-per-node", "1",
           "--nnodes", "2", "--rdzv-endpoint", f"127.0.0.1:{port}", "--all-ranks"]
    other = subprocess.Popen(cmd + ["--node-rank", "1", "hello.ss"], cwd=tmp_path,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             env=child_env())
    r = run_shapescript(*cmd[3:], "--node-rank", "0", "hello.ss", cwd=tmp_path)
    out, err = other.communicate(timeout=HANG_GUARD_S)
    assert r.returncode == 0, r.stderr
    assert other.returncode == 0, err
    assert r.stdout.splitlines() == ["[rank0]: rank 0 of 2"]
    assert out.splitlines() == ["[rank1]: rank 1 of 2"]


def test_a_machine_that_never_comes(tmp_path):
    (tmp_path / "hello.ss").write_text(HELLO)
    port = _free_port()
    r = run_shapescript("run", "--nproc-per-node", "1", "--nnodes", "2", "--node-rank", "0",
                        "--rdzv-endpoint", f"127.0.0.1:{port}", "--timeout", "3", "hello.ss",
                        cwd=tmp_path)
    assert r.returncode == 1
    last = r.stderr.strip().splitlines()[-1]
    assert last.startswith(f"error: the ranks could not meet at 127.0.0.1:{port}: ")
    assert "1/2 clients joined" in last


SCRIPT = textwrap.dedent('''
    import sys
    from shapescript import rt
    from shapescript.rt import distributed

    distributed.start()                 # a Python script starts its own group
    sys.stdout.write(f"py rank {rt.rank()} of {rt.world_size()}\\n")
    rt.report(0, x=1.0)                 # rank 0's alone
    distributed.stop()
''')


def test_a_python_script_starts_its_own_group(tmp_path):
    (tmp_path / "script.py").write_text(SCRIPT)
    r = run_shapescript("run", "--nproc-per-node", "2", "script.py", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert sorted(r.stdout.splitlines()) == ["py rank 0 of 2", "py rank 1 of 2", "step 0: x 1"]


INIT = textwrap.dedent('''
    import python torch

    dim D = 4

    model M:
        param w: [D D]

    fn main():
        # torch's own generator differs on each rank: init draws from one of its own
        torch.manual_seed(rank())
        m = M.init(seed=3)
        print(sum(m.w * m.w), sum(m.w))
''')


def test_init_with_a_seed_gives_every_rank_the_same_weights(tmp_path):
    (tmp_path / "init.ss").write_text(INIT)
    r = run_shapescript("run", "--all-ranks", "--nproc-per-node", "2", "init.ss", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    lines = sorted(r.stdout.splitlines())
    assert [ln[:8] for ln in lines] == ["[rank0]:", "[rank1]:"]
    assert lines[0][8:] == lines[1][8:]
    one = run_shapescript("run", "init.ss", cwd=tmp_path)
    assert one.returncode == 0, one.stderr
    assert one.stdout.strip() == lines[0][8:].strip()


HELD = textwrap.dedent('''
    import os
    import torch.distributed as dist

    dist.init_process_group("gloo")
    LOG = open(f"held{os.environ['RANK']}.txt", "w")
    LOG.write("written, never closed\\n")
''')


def test_a_finished_rank_leaves_at_once_with_its_open_files_written(tmp_path):
    # A rank that ended well leaves without the interpreter's teardown (where torch's
    # gloo threads abort it now and then); what it left open is written all the same.
    (tmp_path / "held.py").write_text(HELD)
    r = run_shapescript("run", "--nproc-per-node", "2", "held.py", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    for k in (0, 1):
        assert (tmp_path / f"held{k}.txt").read_text() == "written, never closed\n"

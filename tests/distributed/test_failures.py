"""Runs on two processes that go wrong end with a clear error and a non-zero exit, never
a hang: a rank killed, a batch that doesn't divide among the ranks, a port in use."""

from __future__ import annotations

import socket
import textwrap

from dist_helpers import run_shapescript

KILLED = textwrap.dedent('''
    import python os
    import python signal

    dim D = 4

    model Line:
        param w: [D D]

    fn loss(m: Line, x: [n D]) -> []:
        return mean(x @ m.w)

    fn main():
        m = Line.init(seed=0)
        opt = sgd(m, lr=0.1)
        x = zeros[64 D]
        for step in 0..1000:
            for xb in batches(x, size=8):
                l, g = value_and_grad(loss, m, xb)
                update(m, g, opt)
            if step == 3 and rank() == 1:
                os.kill(os.getpid(), signal.SIGKILL)
''')


def test_a_killed_rank_ends_the_run_naming_it(tmp_path):
    (tmp_path / "killed.ss").write_text(KILLED)
    r = run_shapescript("run", "--nproc-per-node", "2", "killed.ss", cwd=tmp_path)
    assert r.returncode != 0
    assert "error: rank 1 (local rank 1, pid " in r.stderr
    assert "was killed by SIGKILL" in r.stderr


UNEVEN = textwrap.dedent('''
    fn main():
        x = zeros[10 3]
        for xb in batches(x, size={size}):
            print(xb)
''')


def test_a_batch_that_does_not_divide_among_the_ranks(tmp_path):
    (tmp_path / "uneven.ss").write_text(UNEVEN.format(size=5))
    r = run_shapescript("run", "--nproc-per-node", "2", "uneven.ss", cwd=tmp_path)
    assert r.returncode != 0
    assert ("ValueError: batches: a batch of size=5 doesn't divide among 2 processes"
            in r.stderr)
    assert "[rank0]: " in r.stderr and "[rank1]: " in r.stderr


def test_a_last_batch_that_does_not_divide_among_the_ranks(tmp_path):
    (tmp_path / "odd.ss").write_text(UNEVEN.replace("zeros[10 3]", "zeros[9 3]").format(size=4))
    r = run_shapescript("run", "--nproc-per-node", "2", "odd.ss", cwd=tmp_path)
    assert r.returncode != 0
    assert ("batches: the last batch, 1 of the 9 items after batches of 4, doesn't divide "
            "among 2 processes" in r.stderr)


def test_a_port_in_use(tmp_path):
    (tmp_path / "hello.ss").write_text('fn main():\n    print("hello")\n')
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        r = run_shapescript("run", "--nproc-per-node", "2", "--rdzv-endpoint",
                            f"127.0.0.1:{port}", "hello.ss", cwd=tmp_path)
    assert r.returncode == 2
    assert r.stderr.strip().splitlines()[-1] == (
        f"error: port {port} on 127.0.0.1 is in use: node 0 hosts the rendezvous there; "
        "choose another --rdzv-endpoint port")


def test_launcher_options_that_do_not_fit(tmp_path):
    (tmp_path / "hello.ss").write_text('fn main():\n    print("hello")\n')
    r = run_shapescript("run", "--nproc-per-node", "2", "--nnodes", "2", "hello.ss",
                        cwd=tmp_path)
    assert r.returncode == 2
    assert "--nnodes > 1 needs --rdzv-endpoint HOST:PORT" in r.stderr
    r = run_shapescript("run", "--nnodes", "2", "hello.ss", cwd=tmp_path)
    assert r.returncode == 2
    assert "go with --nproc-per-node" in r.stderr
    r = run_shapescript("run", "--nproc-per-node", "2", "--rdzv-endpoint", "nohost",
                        "hello.ss", cwd=tmp_path)
    assert r.returncode == 2
    assert "expected HOST:PORT" in r.stderr


LONELY = textwrap.dedent('''
    dim D = 2

    model Line:
        param w: [D D]

    fn main():
        m = Line.init(seed=0)
        if rank() == 1:
            save("line.safetensors", m)
''')


def test_a_collective_no_other_rank_reaches_times_out(tmp_path):
    (tmp_path / "lonely.ss").write_text(LONELY)
    r = run_shapescript("run", "--nproc-per-node", "2", "--timeout", "5", "lonely.ss",
                        cwd=tmp_path)
    assert r.returncode != 0
    assert "error: rank 1 (local rank 1, pid " in r.stderr
    assert "[rank1]: " in r.stderr
    assert not (tmp_path / "line.safetensors").exists()

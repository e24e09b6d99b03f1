"""The training built-ins against their torch equivalents (LANGUAGE §7, DECISIONS §18):
each is called from a compiled ShapeScript program and compared with the same steps
written in torch."""

from __future__ import annotations

import math

import pytest
import torch
import torch.nn.functional as F

from shapescript import rt
from shapescript.compiler import check_source

PROGRAM = '''
dim D = 4
dim H = 5
dim C = 3

model Mlp:
    param w1: [D H]
    param w2: [H C]
    param unused: [C] = ones

fn loss(m: Mlp, x: [n D], y: [n] Index[C]) -> [] NonNeg:
    return cross_entropy(relu(x @ m.w1) @ m.w2, y, over=C)

fn value_grads(m: Mlp, x: [n D], y: [n] Index[C]) -> ([], [D H], [H C], [C]):
    l, g = value_and_grad(loss, m, x, y)
    return l, g.w1, g.w2, g.unused

fn clipped(m: Mlp, x: [n D], y: [n] Index[C], most: float) -> ([D H], [H C]):
    l, g = value_and_grad(loss, m, x, y)
    c = clip_norm(g, max=most)
    return c.w1, c.w2

fn train_adamw(m: Mlp, x: [n D], y: [n] Index[C], steps: int, lr: float, wd: float):
    opt = adamw(m, lr=lr, weight_decay=wd)
    for s in 0..steps:
        l, g = value_and_grad(loss, m, x, y)
        update(m, g, opt)

fn train_adamw_cosine(m: Mlp, x: [n D], y: [n] Index[C], steps: int):
    opt = adamw(m, lr=cosine(steps, lr=0.1, min=0.01), beta1=0.8, beta2=0.99, eps=1e-6,
                weight_decay=0.1)
    for s in 0..steps:
        l, g = value_and_grad(loss, m, x, y)
        update(m, g, opt)

fn train_sgd(m: Mlp, x: [n D], y: [n] Index[C], steps: int):
    opt = sgd(m, lr=warmup(3, 0.1), momentum=0.9, weight_decay=0.01)
    for s in 0..steps:
        l, g = value_and_grad(loss, m, x, y)
        update(m, clip_norm(g, max=0.5), opt)

fn walk(x: [n D], y: [n] Index[C], seed: int, size: int):
    k = 0
    for xb, yb in batches(shuffle((x, y), seed=seed), size=size):
        report(k, first=xb[0, 0], label=yb[0], rows=sum(yb >= 0))
        k = k + 1

fn walk_plain(x: [n D], size: int):
    k = 0
    for xb in batches(x, size=size):
        report(k, total=sum(xb), first=xb[0, 0])
        k = k + 1

fn noisy(x: [n D]) -> [n D] = dropout(x, p=0.5)

fn noisy_in_training(x: [n D]) -> [n D]:
    with Train:
        return noisy(x)

fn log_to(path: str, x: [n D]):
    sink(path)
    report(7, loss=mean(x), big=12345678, flag=true)
'''


@pytest.fixture
def prog(ss):
    return ss(PROGRAM, "prog")


@pytest.fixture
def data():
    g = torch.Generator().manual_seed(1)
    x = torch.randn(16, 4, generator=g)
    y = torch.randint(0, 3, (16,), generator=g)
    return x, y


@pytest.fixture(autouse=True)
def _quiet_sinks():
    records = []
    rt.reset_sinks(terminal=records.append)
    yield records
    rt.reset_sinks()


def torch_loss(w, x, y):
    return F.cross_entropy(torch.relu(x @ w[0]) @ w[1], y)


def clone(m):
    return [p.detach().clone().requires_grad_() for p in m.parameters()]


def test_value_and_grad_matches_backward(prog, data):
    x, y = data
    m = prog.Mlp.init(seed=0)
    value, g1, g2, gu = prog.value_grads(m, x, y)
    w = clone(m)
    ref = torch_loss(w, x, y)
    ref.backward()
    assert torch.equal(value, ref.detach()) and not value.requires_grad
    assert torch.equal(g1, w[0].grad) and torch.equal(g2, w[1].grad)
    assert torch.equal(gu, torch.zeros(3))                     # not used by `loss`
    assert all(p.grad is None for p in m.parameters())         # nothing accumulates
    v, grads = rt.value_and_grad(prog._unchecked_loss, m, x, y)
    assert dict(grads.items())["unused"] is None
    assert "grads of Mlp" in repr(grads)


def test_value_and_grad_needs_a_function_of_the_model_giving_a_float():
    head = "dim D = 2\nmodel M:\n    param w: [D]\n"
    first = head + "fn f(x: [D], m: M) -> [] = sum(x)\nfn g(m: M):\n    v, d = value_and_grad(f, m, zeros[D])\n"
    assert [d.code for d in check_source(first, "m.ss")] == ["E1101"]
    vector = head + "fn f(m: M) -> [D] = m.w\nfn g(m: M):\n    v, d = value_and_grad(f, m)\n"
    assert [d.code for d in check_source(vector, "m.ss")] == ["E1101"]
    count = head + "fn f(m: M) -> [] i64 = sum(m.w > 0)\nfn g(m: M):\n    v, d = value_and_grad(f, m)\n"
    assert [d.code for d in check_source(count, "m.ss")] == ["E1101"]
    value = head + "fn g(m: M):\n    v, d = value_and_grad(m, m)\n"
    assert [d.code for d in check_source(value, "m.ss")] == ["E1101"]


def test_adamw_steps_match_torch_optim_adamw(prog, data):
    x, y = data
    m = prog.Mlp.init(seed=0)
    w = clone(m)
    prog.train_adamw(m, x, y, 7, 0.05, 0.02)
    opt = torch.optim.AdamW(w, lr=0.05, weight_decay=0.02)
    for _ in range(7):
        opt.zero_grad()
        torch_loss(w, x, y).backward()
        opt.step()
    for p, q in zip(m.parameters(), w):
        assert torch.equal(p.detach(), q.detach())
    assert torch.equal(m.unused, torch.ones(3))               # no gradient: left alone


def test_adamw_with_a_cosine_schedule_matches_torch(prog, data):
    x, y = data
    m = prog.Mlp.init(seed=2)
    w = clone(m)
    prog.train_adamw_cosine(m, x, y, 6)
    opt = torch.optim.AdamW(w, lr=0.1, betas=(0.8, 0.99), eps=1e-6, weight_decay=0.1)
    for k in range(6):
        for group in opt.param_groups:
            group["lr"] = 0.01 + (0.1 - 0.01) * (1 + math.cos(math.pi * k / 6)) / 2
        opt.zero_grad()
        torch_loss(w, x, y).backward()
        opt.step()
    for p, q in zip(m.parameters(), w):
        torch.testing.assert_close(p.detach(), q.detach(), rtol=0, atol=1e-7)


def test_sgd_with_momentum_warmup_and_clipping_matches_torch(prog, data):
    x, y = data
    m = prog.Mlp.init(seed=3)
    w = clone(m)
    prog.train_sgd(m, x, y, 6)
    opt = torch.optim.SGD(w, lr=0.1, momentum=0.9, weight_decay=0.01)
    for k in range(6):
        for group in opt.param_groups:
            group["lr"] = 0.1 * (k + 1) / 3 if k < 3 else 0.1
        opt.zero_grad()
        torch_loss(w, x, y).backward()
        torch.nn.utils.clip_grad_norm_(w, 0.5)
        opt.step()
    for p, q in zip(m.parameters(), w):
        torch.testing.assert_close(p.detach(), q.detach(), rtol=0, atol=1e-7)


@pytest.mark.parametrize("most", [0.05, 1e6])
def test_clip_norm_matches_clip_grad_norm(prog, data, most):
    x, y = data
    m = prog.Mlp.init(seed=0)
    c1, c2 = prog.clipped(m, x, y, most)
    w = clone(m)
    torch_loss(w, x, y).backward()
    torch.nn.utils.clip_grad_norm_(w, most)
    torch.testing.assert_close(c1, w[0].grad, rtol=1e-6, atol=0)
    torch.testing.assert_close(c2, w[1].grad, rtol=1e-6, atol=0)


def test_cosine_matches_its_formula_and_cosine_annealing():
    s = rt.cosine(10, lr=0.5, min=0.05)
    for k in range(14):
        want = 0.05 + (0.5 - 0.05) * (1 + math.cos(math.pi * min(k, 10) / 10)) / 2
        assert s(k) == pytest.approx(want, abs=1e-15)
    assert s(0) == 0.5 and s(10) == pytest.approx(0.05) and s(100) == pytest.approx(0.05)
    p = torch.nn.Parameter(torch.zeros(1))
    opt = torch.optim.SGD([p], lr=0.5)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=10, eta_min=0.05)
    for k in range(11):
        assert opt.param_groups[0]["lr"] == pytest.approx(s(k), rel=1e-9)
        opt.step()
        sched.step()
    assert rt.cosine(4, lr=1.0)(2) == pytest.approx(0.5)    # `min` defaults to 0
    with pytest.raises(ValueError):
        rt.cosine(0, lr=1.0)


def test_warmup_matches_its_formula():
    s = rt.warmup(4, 0.2)
    assert [s(k) for k in range(7)] == pytest.approx([0.05, 0.1, 0.15, 0.2, 0.2, 0.2, 0.2])
    inner = rt.cosine(10, lr=1.0)
    w = rt.warmup(3, inner)
    assert [w(k) for k in range(3)] == pytest.approx([1 / 3, 2 / 3, 1.0])
    assert [w(k) for k in range(3, 14)] == pytest.approx([inner(k) for k in range(11)])
    assert rt.warmup(0, 0.3)(0) == 0.3


def test_schedules_advance_one_step_per_update(prog, data):
    x, y = data
    m = prog.Mlp.init(seed=0)
    opt = rt.adamw(m, lr=rt.warmup(2, 0.4))
    lrs = []
    for _ in range(4):
        _, g = rt.value_and_grad(prog._unchecked_loss, m, x, y)
        rt.update(m, g, opt)
        lrs.append(opt.torch_optimizer.param_groups[0]["lr"])
    assert lrs == pytest.approx([0.2, 0.4, 0.4, 0.4]) and opt.steps == 4
    with pytest.raises(ValueError, match="made for another Mlp"):
        rt.update(prog.Mlp.init(seed=1), g, opt)


def test_shuffle_is_deterministic_per_seed():
    x = torch.arange(20.0).reshape(10, 2)
    y = torch.arange(10)
    a = rt.shuffle((x, y), seed=4)
    b = rt.shuffle((x, y), seed=4)
    c = rt.shuffle((x, y), seed=5)
    perm = torch.randperm(10, generator=torch.Generator().manual_seed(4))
    assert torch.equal(a.items[1], perm) and torch.equal(a.items[0], x[perm])
    assert all(torch.equal(p, q) for p, q in zip(a.items, b.items))
    assert not torch.equal(a.items[1], c.items[1])
    assert sorted(a.items[1].tolist()) == list(range(10))
    torch.manual_seed(0)
    d = rt.shuffle(y)                                    # no seed: torch's generator
    torch.manual_seed(0)
    assert torch.equal(rt.shuffle(y).items[0], d.items[0])
    with pytest.raises(ValueError, match="different first axes"):
        rt.shuffle((x, torch.arange(3)), seed=0)


def test_batches_keep_the_last_smaller_batch():
    x = torch.arange(10.0)
    y = torch.arange(10) * 2
    got = list(rt.batches((x, y), size=4))
    assert [tuple(b[0].tolist()) for b in got] == [(0, 1, 2, 3), (4, 5, 6, 7), (8, 9)]
    assert all(isinstance(b, tuple) and torch.equal(b[1], b[0].long() * 2) for b in got)
    assert len(rt.batches((x, y), size=4)) == 3
    single = list(rt.batches(x, size=5))                 # one tensor: tensors, not tuples
    assert all(isinstance(b, torch.Tensor) for b in single) and len(single) == 2
    with pytest.raises(ValueError):
        rt.batches(x, size=0)


def test_batches_and_shuffle_from_shapescript(prog, data, _quiet_sinks):
    x, y = data
    prog.walk(x, y, 3, 5)
    perm = torch.randperm(16, generator=torch.Generator().manual_seed(3))
    assert [r["step"] for r in _quiet_sinks] == [0, 1, 2, 3]
    assert [r["rows"] for r in _quiet_sinks] == [5, 5, 5, 1]
    assert [r["first"] for r in _quiet_sinks] == [x[perm][i, 0].item() for i in (0, 5, 10, 15)]
    assert [r["label"] for r in _quiet_sinks] == [y[perm][i].item() for i in (0, 5, 10, 15)]
    _quiet_sinks.clear()
    prog.walk_plain(x, 6)
    assert [r["first"] for r in _quiet_sinks] == [x[i, 0].item() for i in (0, 6, 12)]


def test_batches_need_matching_names_and_datasets():
    head = "dim D = 2\nfn f(x: [n D], y: [n]):\n"
    assert [d.code for d in check_source(head + "    for a in batches((x, y), size=2):\n        print(a)\n",
                                         "m.ss")] == ["E0406"]
    assert [d.code for d in check_source(head + "    for a in shuffle((x, y), seed=0):\n        print(a)\n",
                                         "m.ss")] == ["E0805"]
    bad = "dim D = 2\nfn f(x: [n D], y: [m]):\n    for a, b in batches((x, y), size=2):\n        print(a)\n"
    assert [d.code for d in check_source(bad, "m.ss")] == ["E0401"]


def test_dropout_is_the_identity_outside_training(prog):
    x = torch.ones(200, 4)
    assert torch.equal(prog.noisy(x), x)
    torch.manual_seed(0)
    y = prog.noisy_in_training(x)
    assert set(y.unique().tolist()) == {0.0, 2.0}            # dropped, the rest scaled by 2
    assert 0.3 < (y == 0).float().mean().item() < 0.7
    with rt.train():                                          # Python's way into training mode
        assert not torch.equal(prog.noisy(x), x)
    assert torch.equal(prog.noisy(x), x)


def test_report_formats_the_terminal_line():
    assert rt.format_record(50, {"loss": 0.56789, "acc": 0.9123}) == "step 50: loss 0.5679, acc 0.9123"
    assert rt.format_record(3, {"n": 12345678, "x": 1e-7}) == "step 3: n 12345678, x 1e-07"
    assert rt.format_record(3, {}) == "step 3"


def _fake_clock(monkeypatch, clock):
    """``report``'s ``time.time()`` reads ``clock``: rates and ETAs to compare exactly."""
    import sys
    import types

    module = sys.modules["shapescript.rt.report"]
    monkeypatch.setattr(module, "time", types.SimpleNamespace(time=lambda: next(clock)))


def test_report_prints_plain_lines_when_not_a_tty(capsys, monkeypatch):
    clock = iter([100.0, 102.0, 103.0])                      # seconds: the rate is exact
    _fake_clock(monkeypatch, clock)
    rt.reset_sinks()
    rt.report(0, loss=torch.tensor(1.5), acc=0.25)
    rt.report(10, loss=torch.tensor(0.5))
    rt.report(20, 101, loss=torch.tensor(0.25))             # with the total: step/total, ETA
    assert capsys.readouterr().out == ("step 0: loss 1.5, acc 0.25\n"
                                       "step 10: loss 0.5 (5 steps/s)\n"
                                       "step 20/101: loss 0.25 (6.67 steps/s, ETA 12s)\n")
    with pytest.raises(TypeError):
        rt.report(2, loss=torch.zeros(3))
    with pytest.raises(ValueError):
        rt.report(2, time=1.0)


class FakeTTY:
    def __init__(self):
        self.text = ""

    def write(self, s):
        self.text += s
        return len(s)

    def flush(self):
        pass

    def isatty(self):
        return True


def test_report_keeps_a_line_per_tenth_on_a_tty(monkeypatch):
    out, err = FakeTTY(), FakeTTY()
    monkeypatch.setattr("sys.stdout", out)
    monkeypatch.setattr("sys.stderr", err)
    clock = iter(float(t) for t in range(100))
    _fake_clock(monkeypatch, clock)
    rt.reset_sinks()
    rt.report(0, 100, loss=1.0)                              # the first line stays
    rt.report(5, 100, loss=0.5)                              # within a tenth: a live line
    assert out.text == ("\rstep 0/100: loss 1\x1b[K\n"
                        "\rstep 5/100: loss 0.5 (5 steps/s, ETA 19s)\x1b[K")
    print("done")                                            # other output ends the line first
    assert out.text.endswith("\x1b[K\ndone\n")
    import sys

    assert sys.stdout is out and sys.stderr is err           # the streams are given back
    rt.report(7, 100, loss=0.4)                              # live again…
    rt.report(10, 100, loss=0.25)                            # …until the next tenth: kept
    assert out.text.endswith("\rstep 7/100: loss 0.4 (3.5 steps/s, ETA 26s)\x1b[K"
                             "\rstep 10/100: loss 0.25 (3.33 steps/s, ETA 27s)\x1b[K\n")
    assert sys.stdout is out
    rt.report(12, 100, loss=0.2)
    rt.reset_sinks()                                         # closing ends the line too
    assert out.text.endswith("\rstep 12/100: loss 0.2 (3 steps/s, ETA 29s)\x1b[K\n")
    rt.report(0, loss=1.0)                                   # no total: every line stays
    rt.report(1, loss=0.9)
    assert out.text.endswith("\rstep 0: loss 1\x1b[K\n\rstep 1: loss 0.9 (1 steps/s)\x1b[K\n")


def test_sink_writes_json_lines(prog, tmp_path, monkeypatch):
    import json
    import time

    monkeypatch.chdir(tmp_path)
    before = time.time()
    prog.log_to("run.jsonl", torch.ones(2, 4))
    prog.log_to("run.jsonl", torch.zeros(2, 4))            # the same path: one sink
    lines = (tmp_path / "run.jsonl").read_text().splitlines()
    assert len(lines) == 2
    rec = json.loads(lines[0])
    assert list(rec) == ["step", "loss", "big", "flag", "time"]
    assert rec["step"] == 7 and rec["loss"] == 1.0 and rec["big"] == 12345678 and rec["flag"] is True
    assert before <= rec["time"] <= time.time()
    seen = []
    rt.sink(seen.append)                                    # from Python: any callable
    rt.report(8, loss=0.5)
    assert seen[0]["loss"] == 0.5 and seen[0]["step"] == 8


def test_report_values_are_numbers():
    src = "dim D = 2\nfn f(x: [n D]):\n    report(0, x=x)\n"
    assert [d.code for d in check_source(src, "m.ss")] == ["E1102"]
    src = "dim D = 2\nfn f(x: [n D]):\n    report(0, step=1)\n"
    assert [d.code for d in check_source(src, "m.ss")] == ["E0502"]

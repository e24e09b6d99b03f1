"""Training steps per second on two processes: ``fit`` of ``examples/spotter/train.ss``
under a gloo process group, against the same ``fit`` on one process (the same global
batch of 64) and against the same model written as a plain torch DDP script
(``torch.nn.parallel.DistributedDataParallel`` over ``reference.forward``'s weights,
``torch.optim.AdamW``, the same schedule, shuffles, shards and reports).

Two processes are launched through ``torch.distributed.run``, and run ShapeScript's and
DDP's passes interleaved, so the machine's load hits both alike; one process runs alone.
Each warms up with one pass, then times ``--rounds`` passes of 32 updates on rank 0; the
figure is the median pass, and the median over ``--repeats`` launches. Reports go to a
sink that drops them. ``--fsdp`` adds ShapeScript with the fields sharded among the two
processes (``shapescript run --fsdp``) to the interleaved passes.

    uv run python benchmarks/train_ddp.py [--rounds N] [--repeats N] [--fsdp]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SPOTTER = ROOT / "examples" / "spotter"
BATCH, WARM, LR = 64, 20, 1e-2


def rate(step: int, steps: int) -> float:
    """The learning rate of ``warmup(WARM, cosine(steps - WARM, lr=LR))`` at ``step``."""
    if step < WARM:
        return LR * (step + 1) / WARM
    k, n = step - WARM, steps - WARM
    return LR * (1 + math.cos(math.pi * min(k, n) / n)) / 2


def ddp_fit(model, img, y, epochs: int, rank: int, world: int, sink) -> None:
    """``fit`` of train.ss as a plain torch DDP script: each rank takes its shard of every
    global batch of 64; DDP averages the gradients."""
    import torch
    import torch.nn.functional as F

    n = img.shape[0]
    steps = epochs * math.ceil(n / BATCH)
    opt = torch.optim.AdamW(model.parameters(), lr=rate(0, steps))
    step = 0
    for epoch in range(epochs):
        perm = torch.randperm(n, generator=torch.Generator().manual_seed(epoch))
        xs, ys = img[perm], y[perm]
        for i in range(0, n, BATCH):
            part = min(BATCH, n - i) // world
            lo, hi = i + rank * part, i + (rank + 1) * part
            xb, yb = xs[lo:hi], ys[lo:hi]
            for group in opt.param_groups:
                group["lr"] = rate(step, steps)
            loss = F.cross_entropy(model(xb), yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
            if step % 20 == 0 or step == steps - 1:
                with torch.no_grad():
                    acc = (model.module(xb).argmax(1) == yb).float().mean()
                sink({"step": step, "loss": loss.item(), "acc": acc.item(), "time": time.time()})
            step += 1


def worker(kinds: list[str], rounds: int) -> None:
    """One rank: times ``rounds`` passes of each of ``kinds`` (``shapescript``, ``ddp``),
    interleaved."""
    import torch

    torch.set_num_threads(1)
    sys.path.insert(0, str(SPOTTER))
    import shapescript
    from shapescript import rt
    from shapescript.importer import import_file
    from shapescript.rt import distributed

    launched = distributed.launched()
    if launched:
        distributed.start()
    rank, world = rt.rank(), rt.world_size()
    shapescript.install()
    # train.py (the same training in Python) is next to train.ss, and a .py wins an import.
    train = import_file(str(SPOTTER / "train.ss"), "spotter_train")
    import reference
    import shapes

    img, y = shapes.draw(2000, 0)
    records: dict[str, list[dict]] = {k: [] for k in kinds}
    start = train.Spotter.init(seed=0)

    def run_shapescript() -> None:
        rt.reset_sinks(terminal=records["shapescript"].append)
        m = train.Spotter._ss_from_tensors(
            {k: v.detach().clone() for k, v in start.named_parameters()})
        train.fit(m, img, y, 1)

    def run_fsdp() -> None:
        # adamw reads it when it makes the optimizer: this pass's model is sharded.
        os.environ["SHAPESCRIPT_FSDP"] = "1"
        try:
            rt.reset_sinks(terminal=records["fsdp"].append)
            m = train.Spotter._ss_from_tensors(
                {k: v.detach().clone() for k, v in start.named_parameters()})
            train.fit(m, img, y, 1)
        finally:
            del os.environ["SHAPESCRIPT_FSDP"]

    class Weights(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.w = torch.nn.ParameterList(
                [torch.nn.Parameter(p.detach().clone()) for _, p in start.named_parameters()])

        def forward(self, xb):
            return reference.forward(xb, *self.w)

    def run_ddp() -> None:
        model = torch.nn.parallel.DistributedDataParallel(Weights())
        ddp_fit(model, img, y, 1, rank, world, records["ddp"].append)

    fns = {"shapescript": run_shapescript, "ddp": run_ddp, "fsdp": run_fsdp}
    steps = math.ceil(img.shape[0] / BATCH)
    for k in kinds:
        fns[k]()                    # warm-up
    times: dict[str, list[float]] = {k: [] for k in kinds}
    for r in range(rounds):
        for k in (kinds if r % 2 == 0 else list(reversed(kinds))):
            if launched:
                torch.distributed.barrier()
            t0 = time.perf_counter()
            fns[k]()
            times[k].append(time.perf_counter() - t0)
    if rank == 0:
        for k in kinds:
            print(json.dumps({"kind": k, "world": world,
                              "steps_per_s": steps / statistics.median(times[k]),
                              "loss": records[k][-1]["loss"]}))
    if launched:
        distributed.stop()


def launch(kinds: list[str], nproc: int, rounds: int) -> dict[str, dict]:
    """One launch of ``kinds`` on ``nproc`` processes; rank 0's figures by kind."""
    me = [str(Path(__file__).resolve()), "--worker", ",".join(kinds), "--rounds", str(rounds)]
    if nproc == 1:
        cmd = [sys.executable, *me]
    else:
        cmd = [sys.executable, "-m", "torch.distributed.run", "--nproc-per-node", str(nproc),
               "--rdzv-backend", "c10d", "--rdzv-endpoint", "127.0.0.1:0",
               "--local-addr", "127.0.0.1", *me]
    env = dict(os.environ, OMP_NUM_THREADS="1")
    r = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=1800)
    if r.returncode != 0:
        raise SystemExit(f"{kinds} on {nproc} failed:\n{r.stderr}")
    rows = [json.loads(ln) for ln in r.stdout.splitlines() if ln.startswith("{")]
    return {row["kind"]: row for row in rows}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--fsdp", action="store_true",
                        help="also ShapeScript with sharded fields on 2 processes")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(args.worker.split(","), args.rounds)
        return
    got: dict[tuple[str, int], list[dict]] = {("shapescript", 1): [], ("shapescript", 2): [],
                                              ("ddp", 2): []}
    two = ["shapescript", "ddp"]
    if args.fsdp:
        got[("fsdp", 2)] = []
        two.append("fsdp")
    for r in range(args.repeats):
        runs = [(["shapescript"], 1), (two, 2)]
        for kinds, n in (runs if r % 2 == 0 else list(reversed(runs))):
            for kind, row in launch(kinds, n, args.rounds).items():
                got[(kind, n)].append(row)
    med = {c: statistics.median(x["steps_per_s"] for x in v) for c, v in got.items()}
    print(f"steps/s, global batch {BATCH}, median of {args.repeats} launches × {args.rounds} "
          f"passes of 32 steps (gloo, CPU, 1 thread per process; on 2 processes ShapeScript "
          f"and DDP passes interleaved in one launch):")
    for (kind, n), v in med.items():
        label = {"shapescript": "ShapeScript", "fsdp": "ShapeScript FSDP",
                 "ddp": "plain torch DDP"}[kind]
        note = " (rank 0's shard)" if kind == "ddp" else ""
        print(f"  {label:16s} {n} process{'es' if n > 1 else '  '} {v:7.1f} steps/s   "
              f"({1e3 / v:.2f} ms/step)   last loss {got[(kind, n)][-1]['loss']:.4g}{note}")
    ss1, ss2, ddp2 = med[("shapescript", 1)], med[("shapescript", 2)], med[("ddp", 2)]
    print(f"  ShapeScript 2 processes / 1 process: {ss2 / ss1:.3f}×")
    print(f"  ShapeScript / plain DDP, 2 processes: {ss2 / ddp2:.3f}×")
    if args.fsdp:
        print(f"  ShapeScript FSDP / ShapeScript, 2 processes: {med[('fsdp', 2)] / ss2:.3f}×")


if __name__ == "__main__":
    main()

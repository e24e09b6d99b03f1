"""Training steps per second: ``fit`` of ``examples/spotter/train.ss`` against the same loop
written by hand in torch (``reference.forward``, ``torch.optim.AdamW``, the same
warm-up and cosine schedule, the same shuffles and batches, the same reports).

Interleaved in one run, one pass over the 2000 training images (32 updates) at a time,
so the machine's load hits both alike; the figures are the ratio of the medians, the
ratio of the best passes and the median of each round's own ratio (the two passes of a
round run back to back, so a round's ratio is the least touched by the load changing),
in wall-clock time and in CPU time (which a loaded machine's waiting doesn't count). Both
start each pass from the same weights. Reports go to a sink that drops them, so the
terminal's speed doesn't count.

    uv run python benchmarks/train_steps.py [--rounds N] [--threads N]
"""

from __future__ import annotations

import argparse
import importlib
import math
import statistics
import sys
import time
from pathlib import Path

import torch
import torch.nn.functional as F

ROOT = Path(__file__).resolve().parents[1]
SPOTTER = ROOT / "examples" / "spotter"
sys.path.insert(0, str(SPOTTER))

import shapescript  # noqa: E402
from shapescript import rt  # noqa: E402
from shapescript.importer import import_file  # noqa: E402

shapescript.install()
# train.py (the book's script) is next to train.ss, and a .py wins an import: load by path.
train = import_file(str(SPOTTER / "train.ss"), "spotter_train")
reference = importlib.import_module("reference")
shapes = importlib.import_module("shapes")

BATCH, WARM, LR = 64, 20, 1e-2


def rate(step: int, steps: int) -> float:
    """The learning rate of ``warmup(WARM, cosine(steps - WARM, lr=LR))`` at ``step``."""
    if step < WARM:
        return LR * (step + 1) / WARM
    k, n = step - WARM, steps - WARM
    return LR * (1 + math.cos(math.pi * min(k, n) / n)) / 2


def torch_fit(w: list[torch.Tensor], img: torch.Tensor, y: torch.Tensor, epochs: int,
              sink) -> None:
    """``fit`` of train.ss, written by hand in torch."""
    n = img.shape[0]
    steps = epochs * math.ceil(n / BATCH)
    opt = torch.optim.AdamW(w, lr=rate(0, steps))
    step = 0
    for epoch in range(epochs):
        perm = torch.randperm(n, generator=torch.Generator().manual_seed(epoch))
        xs, ys = img[perm], y[perm]
        for i in range(0, n, BATCH):
            xb, yb = xs[i:i + BATCH], ys[i:i + BATCH]
            for group in opt.param_groups:
                group["lr"] = rate(step, steps)
            loss = F.cross_entropy(reference.forward(xb, *w), yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
            if step % 20 == 0 or step == steps - 1:
                acc = (reference.forward(xb, *w).argmax(1) == yb).float().mean()
                sink({"step": step, "loss": loss.item(), "acc": acc.item(), "time": time.time()})
            step += 1


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    img, y = shapes.draw(2000, 0)
    records = {"shapescript": [], "torch": []}
    rt.reset_sinks(terminal=records["shapescript"].append)

    start = train.Spotter.init(seed=0)

    def run_ss() -> None:
        m = train.Spotter._ss_from_tensors({k: v.detach().clone() for k, v in start.named_parameters()})
        train.fit(m, img, y, 1)

    def run_torch() -> None:
        w = [p.detach().clone().requires_grad_() for _, p in start.named_parameters()]
        torch_fit(w, img, y, 1, records["torch"].append)

    fns = {"shapescript": run_ss, "torch": run_torch}
    steps = math.ceil(img.shape[0] / BATCH)
    for f in fns.values():            # warm up both
        f()
    wall: dict[str, list[float]] = {k: [] for k in fns}
    cpu: dict[str, list[float]] = {k: [] for k in fns}
    for r in range(args.rounds):
        order = list(fns.items()) if r % 2 == 0 else list(reversed(fns.items()))
        for name, f in order:
            t0, c0 = time.perf_counter(), time.process_time()
            f()
            wall[name].append(time.perf_counter() - t0)
            cpu[name].append(time.process_time() - c0)
    for label, times in (("wall clock", wall), ("CPU time", cpu)):
        med = {k: statistics.median(v) for k, v in times.items()}
        print(f"{label} (median of {args.rounds} passes of {steps} steps, {args.threads} thread"
              f"{'s' if args.threads > 1 else ''}):")
        for name, t in med.items():
            print(f"  {name:12s} {steps / t:7.1f} steps/s   ({t * 1e3 / steps:.2f} ms/step)")
        paired = statistics.median(t / s for s, t in zip(times["shapescript"], times["torch"]))
        best = min(times["torch"]) / min(times["shapescript"])
        print(f"  shapescript / torch: {med['torch'] / med['shapescript']:.3f}× the steps per "
              f"second (best passes {best:.3f}×, median round {paired:.3f}×)")
    # The two loops compute the same thing: their reports agree.
    a, b = records["shapescript"][-1], records["torch"][-1]
    print(f"last report: shapescript loss {a['loss']:.4g}, torch loss {b['loss']:.4g}")
    rt.reset_sinks()


if __name__ == "__main__":
    main()

"""The spotter's forward pass: checked ShapeScript against hand-written torch + einops,
and against the same hand-written code wrapped by jaxtyping + beartype.

Interleaved in one run, so the machine's load hits every variant alike; the figures are
ratios against the hand-written baseline. Also times importing the cached ``.ss`` module
against importing the same generated code as a ``.py`` file, in fresh interpreters.

    uv run python benchmarks/spotter_forward.py
"""

from __future__ import annotations

import importlib
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[1]
SPOTTER = ROOT / "examples" / "spotter"
sys.path.insert(0, str(SPOTTER))

import shapescript  # noqa: E402

shapescript.install()
spotter = importlib.import_module("spotter")
reference = importlib.import_module("reference")

from beartype import beartype  # noqa: E402
from jaxtyping import Float, UInt8, jaxtyped  # noqa: E402
from torch import Tensor  # noqa: E402


@jaxtyped(typechecker=beartype)
def forward_jaxtyping(img: UInt8[Tensor, "b 1 16 16"], w_e: Float[Tensor, "16 32"],
                      tw1: Float[Tensor, "2 16 64"], tw2: Float[Tensor, "2 64 16"],
                      cw1: Float[Tensor, "2 32 64"], cw2: Float[Tensor, "2 64 32"],
                      w_h: Float[Tensor, "32 4"]) -> Float[Tensor, "b 4"]:
    return reference.forward(img, w_e, tw1, tw2, cw1, cw2, w_h)


def interleaved(fns: dict, args: tuple, rounds: int, inner: int) -> dict[str, float]:
    """Median seconds per call of each function, measured in alternating rounds."""
    times: dict[str, list[float]] = {k: [] for k in fns}
    with torch.no_grad():
        for f in fns.values():
            for _ in range(3):
                f(*args)
        for _ in range(rounds):
            for name, f in fns.items():
                t0 = time.perf_counter()
                for _ in range(inner):
                    f(*args)
                times[name].append((time.perf_counter() - t0) / inner)
    return {k: statistics.median(v) for k, v in times.items()}


def forward_figures() -> None:
    torch.set_num_threads(1)
    w = reference.weights(0)
    fns = {"hand-written": reference.forward, "shapescript": spotter.forward,
           "shapescript body": spotter._unchecked_forward,
           "jaxtyping+beartype": forward_jaxtyping}
    for b, rounds, inner in ((1, 30, 200), (64, 30, 40)):
        img = torch.randint(0, 256, (b, 1, 16, 16), dtype=torch.uint8)
        t = interleaved(fns, (img, *w), rounds, inner)
        base = t["hand-written"]
        print(f"batch {b}:")
        for name, v in t.items():
            print(f"  {name:20s} {v * 1e6:9.1f} µs/call   {v / base:5.3f}× hand-written")
        if b == 1:
            # What each wrapper adds to its own body: the checked entry over the unchecked
            # body it calls; jaxtyping + beartype over the hand-written function it wraps.
            ours = t["shapescript"] - t["shapescript body"]
            theirs = t["jaxtyping+beartype"] - base
            print(f"  per-call overhead: shapescript {ours * 1e6:.1f} µs, "
                  f"jaxtyping+beartype {theirs * 1e6:.1f} µs, ratio {ours / theirs:.3f}")
            body = t["shapescript body"] - base
            print(f"  compiled body against hand-written: {body * 1e6:+.1f} µs "
                  f"({t['shapescript body'] / base:.3f}×)")


def import_figures() -> None:
    from shapescript.compiler import compile_file

    tmp = Path(tempfile.mkdtemp())
    try:
        shutil.copy(SPOTTER / "spotter.ss", tmp / "spotter_ss.ss")
        out = compile_file(str(tmp / "spotter_ss.ss"))
        (tmp / "spotter_py.py").write_text(out.python)
        env = dict(os.environ, PYTHONPATH=str(tmp))
        # Both caches are wanted here, as on a user's machine.
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        # Warm both caches (the .ss code cache and Python's bytecode cache) and torch.
        warm = "import torch, shapescript; shapescript.install(); import spotter_ss, spotter_py"
        subprocess.run([sys.executable, "-c", warm], env=env, cwd=tmp, check=True)

        def one(mod: str) -> float:
            code = ("import time, torch, einops, shapescript, shapescript.rt, shapescript.importer;"
                    "shapescript.install(); t = time.perf_counter(); "
                    f"import {mod}; print(time.perf_counter() - t)")
            r = subprocess.run([sys.executable, "-c", code], env=env, cwd=tmp, check=True,
                               capture_output=True, text=True)
            return float(r.stdout.strip())

        ss, py = [], []
        for _ in range(7):
            ss.append(one("spotter_ss"))
            py.append(one("spotter_py"))
        a, b = statistics.median(ss), statistics.median(py)
        print(f"import: cached .ss {a * 1e3:.2f} ms, same code as .py {b * 1e3:.2f} ms, "
              f"ratio {a / b:.2f}×")
    finally:
        shutil.rmtree(tmp)


if __name__ == "__main__":
    forward_figures()
    import_figures()

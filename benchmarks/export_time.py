"""Exporting through ShapeScript against ``torch.export.export`` called by hand.

For each function, two figures (book ch. 17; targets in the export issue):

- export time: ``shapescript.export(path, fn)`` (check, code generation and tracing)
  against ``torch.export.export`` of the same computation written by hand, with
  hand-written ``dynamic_shapes``. Target: at most 1.2× the hand-written time. Measured
  warm (median of interleaved rounds in one process, after one export of each) and
  cold (the first export in a fresh interpreter, after ``import torch``).
- run time: the exported program (``ep.module()``) against the hand-written eager
  code, median of interleaved rounds. Target: equal within noise.

    uv run python benchmarks/export_time.py [--rounds N]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import textwrap
import time
import warnings
from pathlib import Path

import einops
import torch
import torch.nn.functional as F
from torch.export import Dim

warnings.filterwarnings("ignore")
ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
BENCH_SS = Path(__file__).resolve().parent / "export_bench.ss"


# -- the hand-written versions ------------------------------------------------------------

class HandAttention(torch.nn.Module):
    def forward(self, x, w_qkv, w_o):
        b, n, _ = x.shape
        qkv = (x @ w_qkv).reshape(b, n, 3, 4, 16).permute(2, 0, 3, 1, 4)
        mask = torch.ones(n, n, dtype=torch.bool, device=x.device).tril()
        y = F.scaled_dot_product_attention(qkv[0], qkv[1], qkv[2], attn_mask=mask)
        return y.transpose(1, 2).reshape(b, n, 64) @ w_o


class HandPatchEmbed(torch.nn.Module):
    def forward(self, img, w):
        t = einops.rearrange(img, "b c (gh p1) (gw p2) -> b (gh gw) (p1 p2 c)", p1=16, p2=16)
        return t @ w


class HandNonempty(torch.nn.Module):
    def forward(self, img):
        t = einops.rearrange(img, "b c (gh p1) (gw p2) -> b (gh gw) (p1 p2 c)", p1=16, p2=16)
        rows = t[0][t[0].abs().amax(dim=1) > 0]
        torch._check(rows.shape[0] == 196)
        return rows


def cases():
    """(name, .ss path, fn, hand module, hand dynamic_shapes, export args, run args,
    small run args)."""
    b, n = Dim("b", min=1), Dim("n", min=1)
    gh, gw = Dim("gh", min=1), Dim("gw", min=1)
    w_qkv, w_o = torch.randn(64, 192), torch.randn(64, 64)
    w_e = torch.randn(768, 64)
    return [
        ("causal_attention", EXAMPLES / "attention.ss", "causal_attention", HandAttention(),
         {"x": {0: b, 1: n}, "w_qkv": None, "w_o": None},
         (torch.randn(2, 3, 64), w_qkv, w_o), (torch.randn(16, 512, 64), w_qkv, w_o),
         (torch.randn(1, 4, 64), w_qkv, w_o)),
        ("patch_embed [b 3 16gh 16gw]", BENCH_SS, "patch_embed", HandPatchEmbed(),
         {"img": {0: b, 2: 16 * gh, 3: 16 * gw}, "w": None},
         (torch.randn(2, 3, 32, 48), w_e), (torch.randn(32, 3, 224, 224), w_e),
         (torch.randn(1, 3, 32, 32), w_e)),
        ("first_image_tokens (as [N …])", EXAMPLES / "nonempty.ss", "first_image_tokens",
         HandNonempty(), {"img": {0: b, 2: 16 * gh, 3: 16 * gw}},
         (torch.rand(2, 3, 32, 48),), (torch.rand(32, 3, 224, 224),),
         (torch.rand(1, 3, 224, 224),)),
    ]


# -- measuring ----------------------------------------------------------------------------

def export_times(rounds: int):
    import shapescript

    out = {}
    for name, path, fn, hand, ds, args, *_ in cases():
        ss = lambda: shapescript.export(str(path), fn)           # noqa: E731
        by_hand = lambda: torch.export.export(hand, args, dynamic_shapes=ds)  # noqa: E731
        ss(), by_hand()                                           # warm both paths
        t = {"shapescript": [], "hand": []}
        for _ in range(rounds):
            for key, f in (("shapescript", ss), ("hand", by_hand)):
                t0 = time.perf_counter()
                f()
                t[key].append(time.perf_counter() - t0)
        out[name] = {k: statistics.median(v) for k, v in t.items()}
    return out


COLD = textwrap.dedent("""
    import sys, time, warnings
    warnings.filterwarnings("ignore")
    sys.path.insert(0, {bench!r})
    import torch, export_time
    name, which = sys.argv[1], sys.argv[2]
    case = next(c for c in export_time.cases() if c[0] == name)
    _, path, fn, hand, ds, args, *_ = case
    if which == "shapescript":
        import shapescript
        t0 = time.perf_counter(); shapescript.export(str(path), fn)
    else:
        t0 = time.perf_counter(); torch.export.export(hand, args, dynamic_shapes=ds)
    print(time.perf_counter() - t0)
""")


def cold_times(reps: int):
    code = COLD.format(bench=str(Path(__file__).resolve().parent))
    out = {}
    for name, *_ in cases():
        t = {"shapescript": [], "hand": []}
        for _ in range(reps):
            for key in t:
                r = subprocess.run([sys.executable, "-c", code, name, key], capture_output=True,
                                   text=True, check=True)
                t[key].append(float(r.stdout.strip().splitlines()[-1]))
        out[name] = {k: statistics.median(v) for k, v in t.items()}
    return out


def run_times(rounds: int, inner: int, small: bool):
    """Seconds per call of the exported program, the hand-written eager code and the
    hand-written code exported by hand, on the large inputs (``small``: the small ones,
    where torch's fixed per-call cost of ``ep.module()`` shows)."""
    import shapescript

    torch.set_num_threads(1)
    out = {}
    with torch.no_grad():
        for name, path, fn, hand, ds, args, large_args, small_args in cases():
            run_args = small_args if small else large_args
            program = shapescript.export(str(path), fn).module()
            by_hand = torch.export.export(hand, args, dynamic_shapes=ds).module()
            fns = {"exported": program, "eager": hand, "hand-exported": by_hand}
            for f in fns.values():
                for _ in range(3):
                    f(*run_args)
            t = {k: [] for k in fns}
            for _ in range(rounds):
                for key, f in fns.items():
                    t0 = time.perf_counter()
                    for _ in range(inner):
                        f(*run_args)
                    t[key].append((time.perf_counter() - t0) / inner)
            out[name] = {k: statistics.median(v) for k, v in t.items()}
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rounds", type=int, default=7)
    p.add_argument("--cold", type=int, default=3, help="fresh interpreters per figure")
    p.add_argument("--only", choices=["export", "run"], default=None)
    args = p.parse_args()
    print(f"torch {torch.__version__}, {os.cpu_count()} CPUs")
    if args.only != "run":
        export_figures(args)
    if args.only != "export":
        for small, what in ((False, "large inputs"), (True, "small inputs: per-call cost")):
            print(f"\nrun time, one thread, {what} (median of interleaved rounds):")
            for name, t in run_times(args.rounds * 3, 50 if small else 5, small).items():
                print(f"  {name:32s} exported {t['exported'] * 1e3:8.3f} ms   eager "
                      f"{t['eager'] * 1e3:8.3f} ms   {t['exported'] / t['eager']:.3f}×   "
                      f"(hand-written, exported: {t['hand-exported'] / t['eager']:.3f}×)")


def export_figures(args) -> None:
    print("\nexport time, warm (median of interleaved rounds):")
    for name, t in export_times(args.rounds).items():
        print(f"  {name:32s} shapescript {t['shapescript']:.3f} s   by hand {t['hand']:.3f} s"
              f"   {t['shapescript'] / t['hand']:.2f}×")
    if args.cold:
        print("\nexport time, cold (first export in a fresh interpreter, median):")
        for name, t in cold_times(args.cold).items():
            print(f"  {name:32s} shapescript {t['shapescript']:.3f} s   by hand "
                  f"{t['hand']:.3f} s   {t['shapescript'] / t['hand']:.2f}×")


if __name__ == "__main__":
    main()

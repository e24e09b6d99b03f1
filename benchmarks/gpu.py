"""ShapeScript on a CUDA GPU, as ratios against hand-written torch and native transformers,
in one interleaved, synchronised run:

- ``forward``: the spotter's forward at batch 1, 64 and 8192: the checked entry, its
  unchecked body, the hand-written reference (``examples/spotter/reference.py``) and the
  reference wrapped by jaxtyping + beartype; the device synchronisations one checked
  call makes (``torch.cuda.set_sync_debug_mode``) (target: checked ≤ 1.05× hand-written
  at every batch, 0 synchronisations);
- ``compile``: ``torch.compile(fullgraph=True)`` of the checked entry against the
  compiled hand-written forward, batch 64;
- ``train``: ``fit`` of ``examples/spotter/train.ss`` against the same loop by hand
  (``train_steps.torch_fit``), data on the GPU, steps per second (target ≥ 0.97×) and the
  last loss of each;
- ``hf``: the llama example at a width that keeps the GPU busy (about 156M parameters,
  bf16), exported as a Hugging Face folder, against transformers' ``LlamaForCausalLM``
  with the same weights (``native_llama.py``): prefill time (target ≤ 1.05×), cached greedy
  decoding at batch 1 and 32 in tokens per second (target ≥ 0.95×), and the peak memory of
  generation at batch 32 after a 1,536-token prompt.

Every variant of a section runs in the same rounds, taking turns at going first; each
timing ends with ``torch.cuda.synchronize()``. Each section has a time budget and the
results go to ``--json`` as each section ends, so a crash or a timeout keeps what came
before. Without CUDA it refuses (exit 2); ``--rehearse`` runs every section on the CPU at
toy sizes, to try the script itself before a GPU session (its figures mean nothing).

    python -X faulthandler benchmarks/gpu.py [--json OUT.json] [--only forward,train]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parents[1]
SPOTTER = ROOT / "examples" / "spotter"
sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(SPOTTER))
os.environ.setdefault("HF_HOME", tempfile.mkdtemp(prefix="gpu-bench-hf-home-"))

import torch  # noqa: E402

SECTIONS = ("forward", "compile", "train", "hf")
# The busy llama: 8 blocks of width 1024, 16 query heads over 4 key/value heads, a 32k
# vocabulary (about 156M parameters); positions up to 2048 for the long prompt.
WIDE = {"V": 32000, "P": 2048, "D": 1024, "H": 16, "Hkv": 4, "F": 2816, "L": 8}
TOY = {"V": 64, "P": 96, "D": 64, "H": 4, "Hkv": 2, "F": 128, "L": 2}


class Bench:
    """The device, the sizes and the results of one run."""

    def __init__(self, device: str, rehearse: bool, out: str | None, budget: float) -> None:
        self.device, self.rehearse, self.out, self.budget = device, rehearse, out, budget
        self.results: dict[str, Any] = {
            "device": torch.cuda.get_device_name() if device == "cuda" else "cpu (rehearsal)",
            "torch": torch.__version__, "rehearsal": rehearse, "sections": {}}

    def sync(self) -> None:
        if self.device == "cuda":
            torch.cuda.synchronize()

    def timed(self, fn: Callable[[], Any], inner: int = 1) -> float:
        """Seconds per call of ``fn``, from a synchronised start to a synchronised end."""
        self.sync()
        t = time.perf_counter()
        for _ in range(inner):
            fn()
        self.sync()
        return (time.perf_counter() - t) / inner

    def interleaved(self, fns: dict[str, Callable[[], Any]], rounds: int, inner: int,
                    deadline: float) -> dict[str, list[float]]:
        """Seconds per call of each function, in rounds where each takes its turn going
        first; stops early (after 3 rounds at least) at ``deadline``."""
        times: dict[str, list[float]] = {k: [] for k in fns}
        for f in fns.values():
            for _ in range(3):
                f()
        names = list(fns)
        for r in range(rounds):
            order = names[r % len(names):] + names[:r % len(names)]
            for name in order:
                times[name].append(self.timed(fns[name], inner))
            if r >= 2 and time.perf_counter() > deadline:
                break
        return times

    def record(self, section: str, figures: dict[str, Any]) -> None:
        self.results["sections"][section] = figures
        print(json.dumps({section: figures}, indent=1), flush=True)
        if self.out:
            tmp = self.out + ".tmp"
            with open(tmp, "w", encoding="utf-8") as f:
                json.dump(self.results, f, indent=1)
            os.replace(tmp, self.out)


def ratio(times: dict[str, list[float]], name: str, base: str) -> float:
    return round(statistics.median(times[name]) / statistics.median(times[base]), 4)


# -- the spotter ----------------------------------------------------------------------------

def spotter_modules(device: str):
    import importlib

    import shapescript

    shapescript.install()
    spotter = importlib.import_module("spotter")
    reference = importlib.import_module("reference")
    shapescript.devices(device)
    return spotter, reference


def jaxtyped_forward(reference):
    from beartype import beartype
    from jaxtyping import Float, UInt8, jaxtyped
    from torch import Tensor

    @jaxtyped(typechecker=beartype)
    def forward(img: UInt8[Tensor, "b 1 16 16"], w_e: Float[Tensor, "16 32"],
                tw1: Float[Tensor, "2 16 64"], tw2: Float[Tensor, "2 64 16"],
                cw1: Float[Tensor, "2 32 64"], cw2: Float[Tensor, "2 64 32"],
                w_h: Float[Tensor, "32 4"]) -> Float[Tensor, "b 4"]:
        return reference.forward(img, w_e, tw1, tw2, cw1, cw2, w_h)

    return forward


def syncs_in_a_checked_call(bench: Bench, fn, args) -> int | str:
    """0 where a checked call makes no device synchronisation; else what torch said."""
    if bench.device != "cuda":
        return "not measured on the CPU"
    torch.cuda.set_sync_debug_mode("error")
    try:
        fn(*args)
        return 0
    except RuntimeError as err:
        return f"synchronises: {str(err).splitlines()[0]}"
    finally:
        torch.cuda.set_sync_debug_mode(0)


def forward_section(bench: Bench, deadline: float) -> None:
    spotter, reference = spotter_modules(bench.device)
    w = [x.to(bench.device) for x in reference.weights(0)]
    fns = {"hand-written": reference.forward, "checked": spotter.forward,
           "body": spotter._unchecked_forward}
    figures: dict[str, Any] = {}
    try:
        fns["jaxtyping+beartype"] = jaxtyped_forward(reference)
    except ImportError as err:           # a GPU machine may lack them: the rest still runs
        figures["jaxtyping+beartype"] = f"not measured: {err}"
    batches = (1, 64, 8192) if not bench.rehearse else (1, 64, 512)
    for k, b in enumerate(batches):
        img = torch.randint(0, 256, (b, 1, 16, 16), dtype=torch.uint8).to(bench.device)
        args = (img, *w)
        share = deadline - (deadline - time.perf_counter()) * (len(batches) - k - 1) / (len(batches) - k)
        with torch.no_grad():
            times = bench.interleaved({n: (lambda f=f: f(*args)) for n, f in fns.items()},
                                      rounds=30, inner=20 if b < 8192 else 5, deadline=share)
            syncs = syncs_in_a_checked_call(bench, spotter.forward, args)
        figures[f"batch {b}"] = {
            "hand-written µs": round(statistics.median(times["hand-written"]) * 1e6, 1),
            **{f"{n} / hand-written": ratio(times, n, "hand-written")
               for n in fns if n != "hand-written"},
            "syncs in a checked call": syncs, "rounds": len(times["checked"])}
    figures["target"] = "checked / hand-written <= 1.05 at every batch, 0 syncs"
    bench.record("forward", figures)


def compile_section(bench: Bench, deadline: float) -> None:
    import torch._dynamo

    spotter, reference = spotter_modules(bench.device)
    w = [x.to(bench.device) for x in reference.weights(0)]
    img = torch.randint(0, 256, (64, 1, 16, 16), dtype=torch.uint8).to(bench.device)
    torch._dynamo.reset()
    t0 = time.perf_counter()
    ours = torch.compile(spotter.forward, fullgraph=True)
    theirs = torch.compile(reference.forward, fullgraph=True)
    with torch.no_grad():
        same = (ours(img, *w) - theirs(img, *w)).abs().max().item()
        compile_s = time.perf_counter() - t0
        times = bench.interleaved({"compiled checked": lambda: ours(img, *w),
                                   "compiled hand-written": lambda: theirs(img, *w)},
                                  rounds=30, inner=20, deadline=deadline)
    bench.record("compile", {
        "compiled checked / compiled hand-written":
            ratio(times, "compiled checked", "compiled hand-written"),
        "compiled hand-written µs": round(statistics.median(times["compiled hand-written"]) * 1e6, 1),
        "largest difference": same, "both compiled in s": round(compile_s, 1),
        "rounds": len(times["compiled checked"])})


def train_section(bench: Bench, deadline: float) -> None:
    from shapescript import rt

    import train_steps               # the hand-written loop, and train.ss loaded by path

    shapes = train_steps.shapes
    import shapescript

    shapescript.devices(bench.device)
    img, y = shapes.draw(2000, 0)
    img, y = img.to(bench.device), y.to(bench.device)
    records: dict[str, list] = {"shapescript": [], "torch": []}
    rt.reset_sinks(terminal=records["shapescript"].append)
    start = train_steps.train.Spotter.init(seed=0)

    def run_ss() -> None:
        m = train_steps.train.Spotter._ss_from_tensors(
            {k: v.detach().clone() for k, v in start.named_parameters()})
        train_steps.train.fit(m, img, y, 1)

    def run_torch() -> None:
        w = [p.detach().clone().requires_grad_() for _, p in start.named_parameters()]
        train_steps.torch_fit(w, img, y, 1, records["torch"].append)

    try:
        times = bench.interleaved({"shapescript": run_ss, "torch": run_torch}, rounds=15,
                                  inner=1, deadline=deadline)
    finally:
        rt.reset_sinks()
    steps = -(-img.shape[0] // train_steps.BATCH)
    a, b = records["shapescript"][-1], records["torch"][-1]
    bench.record("train", {
        "shapescript / torch steps per second": ratio(times, "torch", "shapescript"),
        "torch steps/s": round(steps / statistics.median(times["torch"]), 1),
        "last loss shapescript": a["loss"], "last loss torch": b["loss"],
        "rounds": len(times["torch"]), "target": ">= 0.97"})


# -- the Hugging Face folder ----------------------------------------------------------------

def wide_llama(bench: Bench, work: str) -> tuple[Any, Any, str]:
    """(the exported folder's model, transformers' LlamaForCausalLM) on the device, bf16."""
    from transformers import AutoModelForCausalLM

    import shapescript_hf
    from native_llama import LLAMA, reference_model
    from shapescript import api

    dims = TOY if bench.rehearse else WIDE
    source = os.path.join(work, "llama_wide.ss")
    with open(source, "w", encoding="utf-8") as f:
        f.write(api.source_with_dims(api.read_source(LLAMA), LLAMA, dims))
    folder = os.path.join(work, "llama_wide_hf")
    shapescript_hf.export_hf(source, folder, seed=0, dtype="bfloat16")
    ours = AutoModelForCausalLM.from_pretrained(folder, trust_remote_code=True,
                                                dtype=torch.bfloat16)
    native = reference_model(folder, source)
    return ours.to(bench.device).eval(), native.to(bench.device).eval(), source


def peak_memory(bench: Bench, fn: Callable[[], Any]) -> int | None:
    if bench.device != "cuda":
        return None
    torch.cuda.empty_cache()
    torch.cuda.reset_peak_memory_stats()
    base = torch.cuda.memory_allocated()
    fn()
    torch.cuda.synchronize()
    return torch.cuda.max_memory_allocated() - base


def hf_section(bench: Bench, deadline: float) -> None:
    work = tempfile.mkdtemp(prefix="gpu-bench-hf-")
    t0 = time.perf_counter()
    ours, native, _ = wide_llama(bench, work)
    setup_s = time.perf_counter() - t0
    V = ours.config.vocab_size
    g = torch.Generator().manual_seed(0)
    n_pre, n_prompt, n_new, n_long = (1024, 128, 64, 1536) if not bench.rehearse else (32, 8, 8, 48)
    prefill = torch.randint(0, V, (8, n_pre), generator=g).to(bench.device)
    prompts = {b: torch.randint(0, V, (b, n_prompt), generator=g).to(bench.device) for b in (1, 32)}
    long = torch.randint(0, V, (32, n_long), generator=g).to(bench.device)
    models = {"folder": ours, "native": native}

    def generate(model, ids, new):
        return model.generate(ids, max_new_tokens=new, min_new_tokens=new, do_sample=False,
                              use_cache=True, pad_token_id=0)

    figures: dict[str, Any] = {"setup s (export, verify, load)": round(setup_s, 1)}
    with torch.no_grad():
        a = ours(input_ids=prefill[:2], use_cache=False).logits.float()
        b = native(input_ids=prefill[:2], use_cache=False).logits.float()
        figures["bf16 logits: largest difference / largest logit"] = \
            round(((a - b).abs().max() / b.abs().max()).item(), 5)
        left = deadline - time.perf_counter()
        times = bench.interleaved(
            {k: (lambda m=m: m(input_ids=prefill, use_cache=False)) for k, m in models.items()},
            rounds=10, inner=1, deadline=time.perf_counter() + left * 0.3)
        figures[f"prefill 8x{n_pre}: folder / native time"] = ratio(times, "folder", "native")
        for k, b in enumerate((1, 32)):
            left = deadline - time.perf_counter()
            times = bench.interleaved(
                {n: (lambda m=m, b=b: generate(m, prompts[b], n_new)) for n, m in models.items()},
                rounds=6, inner=1, deadline=time.perf_counter() + left * (0.4 if k == 0 else 0.6))
            figures[f"cached decode batch {b}: folder / native tokens per second"] = \
                ratio(times, "native", "folder")
        for name, m in models.items():
            peak = peak_memory(bench, lambda m=m: generate(m, long, 8))
            figures[f"peak bytes, batch 32, {n_long}-token prompt: {name}"] = peak
    peaks = [figures[f"peak bytes, batch 32, {n_long}-token prompt: {n}"] for n in models]
    if None not in peaks:
        figures["peak memory: folder / native"] = round(peaks[0] / peaks[1], 3)
    figures["target"] = "prefill <= 1.05, decode >= 0.95"
    bench.record("hf", figures)


RUNNERS = {"forward": forward_section, "compile": compile_section, "train": train_section,
           "hf": hf_section}
# Each section's share of the run's budget.
SHARES = {"forward": 0.2, "compile": 0.25, "train": 0.15, "hf": 0.4}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", default=None, metavar="OUT", help="write the results here")
    parser.add_argument("--only", default=",".join(SECTIONS),
                        help=f"sections to run, comma-separated ({', '.join(SECTIONS)})")
    parser.add_argument("--budget", type=float, default=300.0, metavar="SECONDS",
                        help="the whole run's time budget, shared among the sections")
    parser.add_argument("--rehearse", action="store_true",
                        help="run on the CPU at toy sizes, to try the script (figures mean nothing)")
    args = parser.parse_args()
    chosen = [s.strip() for s in args.only.split(",") if s.strip()]
    unknown = [s for s in chosen if s not in SECTIONS]
    if unknown:
        parser.error(f"unknown section {unknown[0]!r}: choose from {', '.join(SECTIONS)}")
    if not args.rehearse and not torch.cuda.is_available():
        why = ("this torch is built without CUDA" if torch.version.cuda is None
               else "no CUDA GPU is visible")
        print(f"error: benchmarks/gpu.py measures a CUDA GPU, and {why} (torch "
              f"{torch.__version__}); --rehearse tries the script on the CPU", file=sys.stderr)
        return 2
    bench = Bench("cpu" if args.rehearse else "cuda", args.rehearse, args.json, args.budget)
    if args.rehearse:
        torch.set_num_threads(1)
    failed = False
    total = sum(SHARES[s] for s in chosen)
    for section in chosen:
        deadline = time.perf_counter() + args.budget * SHARES[section] / total
        try:
            RUNNERS[section](bench, deadline)
        except Exception as err:            # the next sections still run
            failed = True
            bench.record(section, {"error": f"{type(err).__name__}: {err}"})
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

"""The exported llama example in transformers against transformers' own
``LlamaForCausalLM`` with the same configuration and the same weights, CPU, float32.

Interleaved in one run, each first in every other round, so the machine's load hits
both alike; the figures are ratios (ours over transformers'):

- prefill: one forward pass over b=4 sequences of n=128 tokens, time ratio (target ≤ 1.05);
- cached greedy generation of 64 tokens after a 16-token prompt, tokens/s ratio
  (target ≥ 0.9);

and the time ``export_hf`` takes to write and verify the llama example, cold (the first
export in a process, importing transformers included) and warm.

With ``--long``, a long-context run instead, where the KV cache counts: greedy generation
of 32 tokens after a prompt of 1,024 tokens for each of 16 sequences, the llama example
with 2,048 positions, each model measured alone in a new process (so that the high-water
mark of its memory is its own): the peak memory generation adds to the loaded model
(ratio target <= 1.05), the prefill's time (<= 1.05) and the cached generation's tokens/s
after it (>= 0.95).

Each ratio is given over wall-clock time and over the thread's CPU time, medians and
bests. On a machine other programs share, the wall clock counts the time the benchmark
waits for a core; the CPU time doesn't, so it is the steadier figure there.

    uv run python benchmarks/hf_forward.py [--rounds N]

The weights are mapped, not retrained (``native_llama.py``). Both caches hold the Hkv
key and value heads: the folder leaves the source's repeat to H heads to the attention
function, as transformers' Llama does.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LLAMA = str(ROOT / "examples" / "llama.ss")
os.environ.setdefault("HF_HOME", tempfile.mkdtemp(prefix="hf-bench-home-"))

import torch  # noqa: E402

from native_llama import reference_model  # noqa: E402


def timed(fn) -> float:
    t = time.perf_counter()
    fn()
    return time.perf_counter() - t


def timed_both(fn) -> tuple[float, float]:
    """(wall-clock, thread CPU) seconds of ``fn()``."""
    w, c = time.perf_counter(), time.thread_time()
    fn()
    return time.perf_counter() - w, time.thread_time() - c


def ratios(ours: list[float], ref: list[float], higher_is_better: bool = False) -> tuple[float, float]:
    """(median ratio, best ratio) of ours over transformers'."""
    best = max if higher_is_better else min
    return (statistics.median(ours) / statistics.median(ref), best(ours) / best(ref))


LONG_BATCH, LONG_PROMPT, LONG_NEW = 16, 1024, 32


def measure_long(which: str, folder: str, path: str) -> None:
    """One model's long-context figures, printed as JSON: the memory generation adds
    (the process's high-water mark after it, less before it), the prefill's seconds and
    the cached generation's tokens/s, over wall-clock and thread CPU time."""
    import json
    import resource

    from transformers import AutoModelForCausalLM

    torch.set_num_threads(1)
    if which == "ours":
        model = AutoModelForCausalLM.from_pretrained(folder, trust_remote_code=True).eval()
    else:
        model = reference_model(folder, path)
    g = torch.Generator().manual_seed(0)
    prompt = torch.randint(0, model.config.vocab_size, (LONG_BATCH, LONG_PROMPT), generator=g)

    def generate():
        return model.generate(prompt, max_new_tokens=LONG_NEW + 1, min_new_tokens=LONG_NEW + 1,
                              do_sample=False, use_cache=True, pad_token_id=0)

    with torch.no_grad():
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        tokens = generate()
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
        gen = timed_both(generate)
        pre = timed_both(lambda: model(input_ids=prompt, use_cache=True))
    print(json.dumps({"peak_mib": peak / 1024, "prefill": pre,
                      "tokens_per_s": [LONG_NEW / max(g_ - p_, 1e-9) for g_, p_ in zip(gen, pre)],
                      "tokens": tokens[:, LONG_PROMPT:].tolist()}))


def long_context(rounds: int) -> None:
    """The long-context comparison: each model in its own process, taking turns."""
    import json
    import subprocess

    import shapescript_hf

    work = tempfile.mkdtemp(prefix="hf-bench-long-")
    path = os.path.join(work, "llama.ss")
    text = Path(LLAMA).read_text(encoding="utf-8")
    assert "dim P = 128\n" in text
    Path(path).write_text(text.replace("dim P = 128\n", "dim P = 2048\n"), encoding="utf-8")
    folder = os.path.join(work, "hf")
    config = shapescript_hf.export_hf(path, folder, seed=0)
    runs: dict[str, list[dict]] = {"ours": [], "ref": []}
    for r in range(rounds):
        for which in (["ours", "ref"] if r % 2 == 0 else ["ref", "ours"]):
            out = subprocess.run([sys.executable, __file__, "--measure", which, folder, path],
                                 capture_output=True, text=True, check=True)
            runs[which].append(json.loads(out.stdout.strip().splitlines()[-1]))
    same = runs["ours"][0]["tokens"] == runs["ref"][0]["tokens"]
    print(f"long context: b={LONG_BATCH}, prompt {LONG_PROMPT}, {LONG_NEW} new tokens, "
          f"H={config['num_attention_heads']}, Hkv={config['num_key_value_heads']}, "
          f"{config['num_hidden_layers']} layers, f32, 1 thread, {rounds} runs each; "
          f"greedy tokens {'equal' if same else 'DIFFER'}")

    def med(which, key, k=None):
        xs = [x[key] if k is None else x[key][k] for x in runs[which]]
        return statistics.median(xs)

    po, pr = med("ours", "peak_mib"), med("ref", "peak_mib")
    print(f"peak memory generation adds: ours {po:.1f} MiB, LlamaForCausalLM {pr:.1f} MiB, "
          f"ratio {po / pr:.3f} (target <= 1.05)")
    for k, clock in enumerate(("wall clock", "CPU time")):
        a, b = med("ours", "prefill", k), med("ref", "prefill", k)
        c, d = med("ours", "tokens_per_s", k), med("ref", "tokens_per_s", k)
        print(f"{clock}: prefill ours {a:.2f} s, LlamaForCausalLM {b:.2f} s, ratio {a / b:.3f} "
              f"(target <= 1.05); cached generation ours {c:.1f} tokens/s, "
              f"LlamaForCausalLM {d:.1f} tokens/s, ratio {c / d:.3f} (target >= 0.95)")


def main() -> None:
    if len(sys.argv) == 5 and sys.argv[1] == "--measure":
        measure_long(*sys.argv[2:])
        return
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=25)
    parser.add_argument("--layout", choices=["layered", "stacked"], default=None,
                        help="the folder's layout (default: the export's, layered)")
    parser.add_argument("--long", action="store_true",
                        help="the long-context run (b=16, prompt 1,024): memory and speed")
    args = parser.parse_args()
    if args.long:
        long_context(min(args.rounds, 3))
        return
    torch.set_num_threads(1)

    from transformers import AutoModelForCausalLM

    import shapescript_hf

    work = tempfile.mkdtemp(prefix="hf-bench-")
    cold = timed(lambda: shapescript_hf.export_hf(LLAMA, os.path.join(work, "a"), seed=0,
                                                  layout=args.layout))
    warm = timed(lambda: shapescript_hf.export_hf(LLAMA, os.path.join(work, "b"), seed=0,
                                                  layout=args.layout))
    folder = os.path.join(work, "a")
    ours = AutoModelForCausalLM.from_pretrained(folder, trust_remote_code=True,
                                                attn_implementation="eager").eval()
    ref = reference_model(folder)

    g = torch.Generator().manual_seed(0)
    prefill = torch.randint(0, ours.config.vocab_size, (4, 128), generator=g)
    prompt = torch.randint(0, ours.config.vocab_size, (1, 16), generator=g)
    with torch.no_grad():
        a = ours(input_ids=prefill, use_cache=False).logits
        b = ref(input_ids=prefill, use_cache=False).logits
    same = (a - b).abs().max().item() / b.abs().max().item()

    def generate(model):
        return model.generate(prompt, max_new_tokens=64, min_new_tokens=64, do_sample=False,
                              use_cache=True, pad_token_id=0)

    tokens_same = generate(ours).tolist() == generate(ref).tolist()
    # [wall, cpu] lists: prefill seconds, generation tokens/s
    pre = {"ours": ([], []), "ref": ([], [])}
    gen = {"ours": ([], []), "ref": ([], [])}
    with torch.no_grad():
        for _ in range(3):  # warm up
            ours(input_ids=prefill, use_cache=False)
            ref(input_ids=prefill, use_cache=False)
        for r in range(args.rounds):
            # Each goes first in every other round: what runs first after a switch of
            # task pays for the caches the other left behind.
            both = [("ours", ours), ("ref", ref)][::1 if r % 2 == 0 else -1]
            for name, model in both:
                for k, t in enumerate(timed_both(lambda: model(input_ids=prefill, use_cache=False))):
                    pre[name][k].append(t)
            for name, model in both:
                for k, t in enumerate(timed_both(lambda: generate(model))):
                    gen[name][k].append(64 / t)
    print(f"logits of the two models differ by {same:.2e} of their size; "
          f"greedy tokens {'equal' if tokens_same else 'DIFFER'}")
    for k, clock in enumerate(("wall clock", "CPU time")):
        p_ours, p_ref = statistics.median(pre["ours"][k]), statistics.median(pre["ref"][k])
        g_ours, g_ref = statistics.median(gen["ours"][k]), statistics.median(gen["ref"][k])
        p_med, p_best = ratios(pre["ours"][k], pre["ref"][k])
        g_med, g_best = ratios(gen["ours"][k], gen["ref"][k], higher_is_better=True)
        print(f"{clock}: prefill b=4 n=128: ours {p_ours * 1e3:.2f} ms, LlamaForCausalLM "
              f"{p_ref * 1e3:.2f} ms, ratio {p_med:.3f}, best {p_best:.3f} (target <= 1.05)")
        print(f"{clock}: cached greedy, 64 tokens: ours {g_ours:.0f} tokens/s, "
              f"LlamaForCausalLM {g_ref:.0f} tokens/s, ratio {g_med:.3f}, best {g_best:.3f} "
              f"(target >= 0.9)")
    print(f"export_hf of examples/llama.ss (written and verified): cold {cold:.2f} s, "
          f"warm {warm:.2f} s")
    sys.stdout.flush()


if __name__ == "__main__":
    main()

"""The GGUF export: how long the search takes, and how fast llama.cpp runs the files.

For each model (the examples, and the test models that exercise the search: rotary on
halves, fields read in another order, matrices multiplied as ``x @ w``, and the
refusals):

- search: ``match_architecture`` (check, compile, one observed run of the source, then
  pairings × variants computed in f64 until one agrees), in a fresh process and warm
  (median of rounds); with the number of pairings × variants computed. Target: under
  30 s each.
- llama.cpp (through llama-cpp-python, CPU, f32 weights and cache): prompt processing
  (one ``eval`` of a 64-token prompt) and generation (one token per ``eval``, 48 tokens,
  with llama.cpp's cache; half the model's context each when that is shorter) in tokens per second: medians of ``--llama-rounds`` rounds after
  one warm-up round (the models are small, so one call takes about a millisecond and a
  busy machine's pauses show; the median keeps them out).

    uv run python benchmarks/gguf_search.py [--rounds N] [--llama-rounds N] [--threads T]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("GGML_NO_BACKTRACE", "1")

ROOT = Path(__file__).resolve().parents[1]
MODELS = [
    ("examples/llama.ss", True),
    ("examples/gpt2.ss", True),
    ("tests/gguf/models/llama_halves.ss", True),
    ("tests/gguf/models/llama_reordered.ss", True),
    ("tests/gguf/models/gpt2_conv1d.ss", True),
    ("tests/gguf/models/gpt2_exact_gelu.ss", False),
    ("tests/gguf/models/llama_layernorm.ss", False),
    ("tests/gguf/models/llama_extra_tensor.ss", True),
    ("examples/architectures/qwen2.ss", True),
    ("examples/architectures/qwen3.ss", True),
    ("examples/architectures/gemma.ss", True),
    ("examples/architectures/phi3.ss", True),
    ("examples/architectures/neox.ss", True),
    ("examples/architectures/starcoder2.ss", True),
    ("examples/architectures/mistral.ss", True),
    ("examples/architectures/gemma2.ss", True),
    ("examples/architectures/gemma3.ss", True),
    ("tests/gguf/models/gpt2_separate.ss", True),
    ("tests/gguf/models/llama_gate_up.ss", True),
]

_COLD = """
import sys, time
t = time.perf_counter()
from shapescript_gguf import NoMatch, match_architecture
try:
    m = match_architecture(sys.argv[1]); n = m.computed
except NoMatch as e:
    n = e.computed
print(time.perf_counter() - t, n)
"""


def _search(path: str, rounds: int) -> tuple[float, float, int, str]:
    from shapescript_gguf import NoMatch, match_architecture

    cold = subprocess.run([sys.executable, "-c", _COLD, path], capture_output=True,
                          text=True, check=True)
    cold_s = float(cold.stdout.split()[0])
    times, computed, result = [], 0, ""
    for _ in range(rounds):
        t = time.perf_counter()
        try:
            m = match_architecture(path)
            computed, result = m.computed, m.arch
        except NoMatch as e:
            computed, result = e.computed, "refused"
        times.append(time.perf_counter() - t)
    return cold_s, statistics.median(times), computed, result


_TIMING = """
import os, statistics, sys, time
import llama_cpp
import numpy as np
path, rounds, threads, ctx = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
# within the context the model was made for (gpt2's position table has that many rows)
n_prompt, n_gen = min(64, ctx // 2), min(48, ctx // 2 - 1)
llm = llama_cpp.Llama(model_path=path, n_ctx=256, n_batch=128, type_k=0, type_v=0,
                      n_threads=threads, verbose=False)
vocab = llm.n_vocab()
prompt = [(7 * i + 3) % vocab for i in range(n_prompt)]
pp, tg = [], []
for _ in range(rounds + 1):
    llm.reset()
    t = time.perf_counter()
    llm.eval(prompt)
    pp.append(len(prompt) / (time.perf_counter() - t))
    t = time.perf_counter()
    for _ in range(n_gen):
        llm.eval([int(np.argmax(llm.scores[llm.n_tokens - 1]))])
    tg.append(n_gen / (time.perf_counter() - t))
print(statistics.median(pp[1:]), statistics.median(tg[1:]), max(pp[1:]), max(tg[1:]))
"""


def _llama_cpp(path: str, rounds: int, threads: int) -> list[float]:
    """Export ``path`` (f32), then time llama.cpp on it in a process of its own, without
    torch (whose OpenMP threads would compete with llama.cpp's)."""
    import gguf
    from shapescript_gguf import export_gguf

    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "m.gguf")
        arch = export_gguf(path, out)
        ctx = gguf.GGUFReader(out).fields[f"{arch}.context_length"].contents()
        r = subprocess.run([sys.executable, "-c", _TIMING, out, str(rounds), str(threads),
                            str(ctx)],
                           capture_output=True, text=True, check=True)
    return [float(x) for x in r.stdout.split()]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--llama-rounds", type=int, default=41)
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    print(f"{'model':<42} {'result':<8} {'cold s':>7} {'warm s':>7} {'computed':>8} "
          f"{'pp tok/s (best)':>17} {'tg tok/s (best)':>17}")
    worst = 0.0
    for rel, runs in MODELS:
        path = str(ROOT / rel)
        cold, warm, computed, result = _search(path, args.rounds)
        worst = max(worst, cold, warm)
        pp = tg = ""
        if runs:
            p, g, pbest, gbest = _llama_cpp(path, args.llama_rounds, args.threads)
            pp, tg = f"{p:,.0f} ({pbest:,.0f})", f"{g:,.0f} ({gbest:,.0f})"
        print(f"{rel:<42} {result:<8} {cold:7.2f} {warm:7.3f} {computed:8d} {pp:>17} {tg:>17}")
    print(f"slowest search: {worst:.2f} s (target < 30 s)")


if __name__ == "__main__":
    main()

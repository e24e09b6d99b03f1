"""``torch.compile(fullgraph=False)`` on the GPT-2 example's forward: graph breaks and
recompiles of the checked entry (what Python calls: argument checks, then the body) and
of the unchecked body, over three sequence lengths.

Graph breaks are counted by ``torch._dynamo.explain`` (one call), recompiles by
``torch._dynamo.utils.counters`` over calls at n = 8, 16, 24 (a first compile is not a
recompile). The target for the checked entry with default checks is 0 breaks and at most
1 recompile; the body already meets it. With ``--fullgraph`` each entry is also compiled
with ``fullgraph=True`` and the error, if any, reported.

    uv run python benchmarks/compile.py [--fullgraph]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def measure(fn, model, make_inputs, lengths):
    import torch
    import torch._dynamo as dynamo
    from torch._dynamo.utils import counters

    dynamo.reset()
    explained = dynamo.explain(fn)(model, *make_inputs(lengths[0]))
    dynamo.reset()
    counters.clear()
    compiled = torch.compile(fn, backend="eager")
    with torch.no_grad():
        for n in lengths:
            compiled(model, *make_inputs(n))
    frames = sum(counters["stats"].values()) if "stats" in counters else 0
    recompiles = counters["stats"].get("unique_graphs", 0)
    reasons = [str(r) for r in explained.break_reasons]
    return explained.graph_break_count, explained.graph_count, recompiles, frames, reasons


def fullgraph_error(fn, model, make_inputs, n):
    import torch
    import torch._dynamo as dynamo

    dynamo.reset()
    try:
        with torch.no_grad():
            torch.compile(fn, backend="eager", fullgraph=True)(model, *make_inputs(n))
    except Exception as err:  # what stops a full graph, for the report
        return type(err).__name__ + ": " + str(err).splitlines()[0][:160]
    return None


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--fullgraph", action="store_true")
    args = ap.parse_args()
    import torch

    import shapescript

    torch.manual_seed(0)
    gpt2 = shapescript.load_module(ROOT / "examples" / "gpt2.ss")
    model = gpt2.GPT2.init(seed=0)

    def inputs(n):
        ids = torch.randint(0, 64, (2, n))
        return ids, torch.arange(n).expand(2, n)

    lengths = [8, 16, 24]
    print(f"GPT-2 example forward, torch {torch.__version__}, lengths {lengths}")
    print(f"{'entry':<12} {'breaks':>6} {'graphs':>6} {'unique graphs':>13}")
    for name, fn in [("checked", gpt2.forward), ("unchecked", gpt2._unchecked_forward)]:
        breaks, graphs, unique, _, reasons = measure(fn, model, inputs, lengths)
        print(f"{name:<12} {breaks:>6} {graphs:>6} {unique:>13}")
        for r in reasons[:4]:
            print(f"    break: {r[:150]}")
        if args.fullgraph:
            err = fullgraph_error(fn, model, inputs, 8)
            print(f"    fullgraph=True: {err or 'compiles'}")
    sys.stdout.flush()


if __name__ == "__main__":
    main()

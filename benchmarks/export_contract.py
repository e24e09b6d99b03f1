"""The exporters' contract over many programs: every export that exits 0 wrote output
that loads and runs (``torch.export.load`` for ``.pt2``, transformers for ``--hf``,
llama.cpp for ``--gguf``), and none is an internal error. The programs are the fuzzer's
clean ones (``tests/export/contract.py`` picks them and checks each export); the test
``tests/export/test_export_contract.py`` runs three of each target.

    uv run python benchmarks/export_contract.py [--target hf] [--seeds 0:2000] [--max 20]

Prints each program's outcome (``loaded``, ``refused`` or the counterexample) and the
counts; exit status 1 when there is a counterexample.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "fuzz"))
sys.path.insert(0, str(ROOT / "tests" / "export"))

import contract  # noqa: E402

ORIGINS = {"pt2": ("",), "hf": ("gpt2.ss", "llama.ss", "spotter.ss"),
           "gguf": ("gpt2.ss", "llama.ss")}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--target", choices=contract.TARGETS, default="hf")
    ap.add_argument("--seeds", default="0:2000", help="START:STOP of the fuzzer's seeds")
    ap.add_argument("--max", type=int, default=20, help="programs to export at most")
    args = ap.parse_args(argv)
    start, stop = (int(x) for x in args.seeds.split(":"))
    cases = contract.programs(range(start, stop), ORIGINS[args.target])[:args.max]
    counts = {"loaded": 0, "refused": 0, "counterexample": 0}
    t0 = time.perf_counter()
    for seed, data in cases:
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / f"p{seed}.ss"
            path.write_bytes(data)
            try:
                kind = contract.check(str(path), args.target, str(Path(tmp) / "out"))
            except AssertionError as err:
                kind = "counterexample"
                print(f"seed {seed}: {err}", flush=True)
        counts[kind] += 1
        print(f"seed {seed}: {kind}", flush=True)
    print(f"\n{len(cases)} programs to --{args.target} in {time.perf_counter() - t0:.0f} s: "
          + ", ".join(f"{k} {v}" for k, v in counts.items()))
    return 1 if counts["counterexample"] else 0


if __name__ == "__main__":
    sys.exit(main())

"""Soundness on 10,000 random well-typed programs: counts of each outcome.

    uv run python benchmarks/soundness.py [--programs 10000] [--seed 0]

Each program (tests/soundness/gen.py) is checked, compiled and run on three random sets
of sizes (each generic 1 to 4) against a direct torch evaluation. ``ok`` and
``check_failed_as_predicted`` (a ``ShapeError`` exactly where a documented run-time check
must fail) are sound; every other outcome is a bug, printed with its program.
"""

from __future__ import annotations

import argparse
import collections
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "soundness"))

from gen import RandomChoices, program  # noqa: E402
from runner import GOOD, run  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--programs", type=int, default=10_000)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    counts: collections.Counter[str] = collections.Counter()
    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        path = str(Path(tmp) / "prog.ss")
        for seed in range(args.seed, args.seed + args.programs):
            ch = RandomChoices(seed)
            prog = program(ch)
            outcome, detail = run(prog, ch, path)
            counts[outcome] += 1
            if outcome not in GOOD:
                print(f"--- seed {seed}: {outcome}: {detail}\n{prog.source()}", file=sys.stderr)
    took = time.perf_counter() - start
    print(f"{args.programs} programs in {took:.0f} s ({1000 * took / args.programs:.1f} ms each)")
    for outcome, n in counts.most_common():
        print(f"  {outcome:28} {n:6}  {'sound' if outcome in GOOD else 'BUG'}")
    return 0 if set(counts) <= set(GOOD) else 1


if __name__ == "__main__":
    sys.exit(main())

"""Fuzzing the front end at scale: ``N`` programs (default 10,000) from
``tests/fuzz/fuzzer.py`` (mutants of every ``.ss`` file in the repository and generated
programs), each checked, rendered and, when clean, compiled to Python, imported, and its
functions called on random arguments of their declared shapes (``tests/fuzz/execute.py``;
``--no-run`` stops at compiling); prints the count of each outcome and the time taken,
and every failure's seed.

    uv run python benchmarks/fuzz.py [--count 10000] [--start 0] [--save] [--out DIR]

The programs run in a temporary folder (one may ``save`` a checkpoint). A generated
module that doesn't import is an ``import`` failure, and a call that fails otherwise than
with a ShapeScript error (``ShapeError``, ``DomainError``, ``DeviceError``) ``unsound``.

``--save`` minimises each distinct failure and writes it to ``tests/fuzz/regressions/``
(``<kind>-<seed>.ss``), where ``tests/fuzz/test_regressions.py`` keeps it fixed. The
acceptance is zero ``internal``, ``crash``, ``bad-diagnostic``, ``hang``, ``import`` and
``unsound`` outcomes.
Exit status 1 when there is any.
"""

from __future__ import annotations

import argparse
import collections
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "fuzz"))

import fuzzer  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--count", type=int, default=10_000)
    ap.add_argument("--start", type=int, default=0, help="the first seed")
    ap.add_argument("--save", action="store_true", help="minimise and keep each failure")
    ap.add_argument("--quiet", action="store_true")
    ap.add_argument("--out", default=None,
                    help="a folder to write each failing program (and its traceback) to")
    ap.add_argument("--limit", type=float, default=fuzzer.TIME_LIMIT,
                    help="seconds a program's check may take before it counts as a hang "
                         "(more on a loaded machine)")
    ap.add_argument("--no-run", action="store_true",
                    help="compile clean programs only: don't import and run them")
    args = ap.parse_args(argv)
    if args.out:
        args.out = os.path.abspath(args.out)
    os.chdir(tempfile.mkdtemp(prefix="ss-fuzz-"))  # where programs write what they save

    counts: collections.Counter[str] = collections.Counter()
    kinds: collections.Counter[str] = collections.Counter()
    failures: dict[str, tuple[fuzzer.Case, fuzzer.Outcome]] = {}
    slowest = (0.0, -1)
    t0 = time.perf_counter()
    for seed in range(args.start, args.start + args.count):
        case = fuzzer.program(seed)
        t = time.perf_counter()
        out = fuzzer.run_case(case, execute=not args.no_run, limit=args.limit)
        dt = time.perf_counter() - t
        slowest = max(slowest, (dt, seed))
        counts[out.kind] += 1
        kinds[case.kind] += 1
        if out.failed:
            sig = out.signature()
            print(f"seed {seed} ({case.kind} of {case.origin.parent.name}): {sig}", flush=True)
            failures.setdefault(sig, (case, out))
            if args.out:  # the program itself: seeds move when the repository's files do
                Path(args.out).mkdir(parents=True, exist_ok=True)
                (Path(args.out) / f"{out.kind}-{seed}.ss").write_bytes(case.data)
                (Path(args.out) / f"{out.kind}-{seed}.txt").write_text(
                    f"{case.origin}\n{out.detail}\n", encoding="utf-8")
        elif not args.quiet and (seed - args.start + 1) % 1000 == 0:
            print(f"  {seed - args.start + 1} programs, {time.perf_counter() - t0:.0f} s",
                  flush=True)
    total = time.perf_counter() - t0
    print(f"\n{args.count:,} programs (seeds {args.start}..{args.start + args.count - 1}; "
          f"{kinds['mutant']:,} mutants, {kinds['generated']:,} generated) in {total:.0f} s, "
          f"{args.count / total:.0f}/s; slowest {slowest[0]:.2f} s (seed {slowest[1]})")
    for kind in ("clean", "errors", "not-utf8") + fuzzer.FAILURES:
        print(f"  {kind:15} {counts[kind]:7,}")
    if not args.no_run:
        import execute

        print(f"  run stage: {execute.STATS['imported']:,} modules imported, "
              f"{execute.STATS['called']:,} functions called")
    if args.save and failures:
        fuzzer.REGRESSIONS.mkdir(exist_ok=True)
        for sig, (case, out) in failures.items():
            small = fuzzer.minimize(case.data, str(case.origin), sig)
            name = f"{out.kind}-{case.seed}.ss"
            (fuzzer.REGRESSIONS / name).write_bytes(small)
            print(f"kept {name} ({len(small)} bytes): {sig}")
    return 1 if any(counts[k] for k in fuzzer.FAILURES) else 0


if __name__ == "__main__":
    sys.exit(main())

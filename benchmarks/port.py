"""Porting time per model: `shapescript port` on each transformers architecture the
port's tests cover, at small widths with random weights (the target: under 60 s each).

    uv run --group test python benchmarks/port.py

Each line is one port (analysis, trace, writing, checking, verification, writes); the
first also pays for importing torch and transformers, reported on its own line.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "port"))


def main() -> None:
    start = time.perf_counter()
    import torch  # noqa: F401
    import transformers  # noqa: F401
    from conftest import ARCHITECTURES
    from shapescript_port import port

    print(f"imports: {time.perf_counter() - start:.1f} s")
    worst = 0.0
    with tempfile.TemporaryDirectory() as tmp:
        for name, (cls, options, _, _) in ARCHITECTURES.items():
            t = time.perf_counter()
            report = port(cls, os.path.join(tmp, f"{name}.ss"), config=options)
            took = time.perf_counter() - t
            worst = max(worst, took)
            print(f"{cls:22s} {took:5.1f} s  error {report.error:.1e}  "
                  f"coverage {report.coverage.fraction:.0%}")
    print(f"slowest: {worst:.1f} s (target < 60 s)")


if __name__ == "__main__":
    main()

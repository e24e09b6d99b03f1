"""How long the language server takes to re-check a file after an edit, by file size.

For generated clean programs of about 100, 1,000 and 5,000 lines (``check_speed.py``'s
spotter-like units), a document is opened in the server's own ``Document`` (the text,
its ``IncrementalChecker`` and the diagnostics in the editor's terms), then edited
repeatedly; each edit's time is the text's re-check plus the diagnostics' conversion,
which is what happens between a keystroke and the diagnostics the editor gets:

* ``edit``: a one-line edit in the middle of a function body (a keystroke: the line
  count stays);
* ``new line``: a line inserted into a body, then removed (Enter, then undo: every
  declaration below moves);
* ``signature``: a one-line edit to a function's signature (the whole file is checked
  again, from the chunks already parsed);
* ``fresh``: checking the text with no earlier version (opening the file), for scale.

    uv run python benchmarks/lsp_latency.py [--sizes 100 1000 5000] [--edits 30]

Target (the editor issue): a 1,000-line file re-checked in under 100 ms after a
one-line edit. Prints median and p95 per case, in milliseconds.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT))

from check_speed import program  # noqa: E402

from shapescript_lsp.diagnostics import diagnostics  # noqa: E402
from shapescript_lsp.documents import Document  # noqa: E402


def _p95(xs: list[float]) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, round(0.95 * (len(xs) - 1)))]


def _body_line(lines: list[str], near: int) -> int:
    k = near
    while not (lines[k].startswith("    ") and "=" in lines[k] and "return" not in lines[k]):
        k += 1
    return k


def _sig_line(lines: list[str], near: int) -> int:
    k = near
    while not (lines[k].startswith("fn ") and lines[k].rstrip().endswith(":")):
        k += 1
    return k


def measure(n: int, edits: int) -> dict[str, list[float]]:
    text = program(n)
    lines = text.split("\n")
    uri = (Path("/tmp") / f"lsp_latency_{n}.ss").as_uri()
    times: dict[str, list[float]] = {"edit": [], "new line": [], "signature": [], "fresh": []}

    def timed(doc: Document, new: str) -> float:
        t = time.perf_counter()
        doc.update(new)
        diagnostics(doc)
        return time.perf_counter() - t

    for _ in range(max(3, edits // 10)):
        times["fresh"].append(timed(Document(uri), text))
    doc = Document(uri)
    doc.update(text)
    before = [(d.code, d.line, d.column) for d in doc.program.diagnostics]
    k = _body_line(lines, len(lines) // 2)
    for i in range(edits):
        edited = list(lines)
        edited[k] = lines[k] + " " * (1 + i % 3)  # whitespace: the diagnostics stay
        times["edit"].append(timed(doc, "\n".join(edited)))
        assert doc.checker.last == "incremental", doc.checker.last
    for i in range(edits):
        edited = list(lines)
        if i % 2 == 0:
            indent = lines[k][:len(lines[k]) - len(lines[k].lstrip())]
            edited.insert(k, indent + "pad_ = 1")
        times["new line"].append(timed(doc, "\n".join(edited)))
        assert doc.checker.last == "incremental", doc.checker.last
    s = _sig_line(lines, len(lines) // 2)
    for i in range(max(3, edits // 3)):
        edited = list(lines)
        edited[s] = lines[s].replace(")", ", extra_%d: int = 0)" % (i % 2), 1)
        times["signature"].append(timed(doc, "\n".join(edited)))
    # After all that, the same diagnostics as a fresh check of the same text.
    doc.update(text)
    assert [(d.code, d.line, d.column) for d in doc.program.diagnostics] == before
    return times


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[100, 1000, 5000])
    ap.add_argument("--edits", type=int, default=30)
    args = ap.parse_args(argv)
    print(f"{'lines':>6} {'case':>10} {'median ms':>10} {'p95 ms':>8}")
    ok = True
    for n in args.sizes:
        times = measure(n, args.edits)
        real = program(n).count("\n")
        for case, xs in times.items():
            med, p95 = statistics.median(xs) * 1000, _p95(xs) * 1000
            print(f"{real:>6} {case:>10} {med:>10.1f} {p95:>8.1f}")
        if 500 <= real <= 2000 and statistics.median(times["edit"]) >= 0.1:
            ok = False
    if not ok:
        print("target missed: a one-line edit of a 1,000-line file took 100 ms or more")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

"""``shapescript plot LOG.jsonl [-o loss.png]``: the curves of a training log.

The log is what ``report`` writes to a sink (``shapescript run --log LOG.jsonl``, or
``sink("LOG.jsonl")`` in the program): one JSON object a line, ``step``, the reported
values and ``time``. Each value becomes a curve over the steps.

With matplotlib (``pip install 'shapescript[plot]'``) ``-o FILE`` writes a picture, one
panel per value; without ``-o``, or without matplotlib, each value is drawn as a text
sparkline with its first, last, lowest and highest values::

    loss  ▇█▅▃▂▂▁▁▁▁▁▁  1.535 → 0.05 (min 0.04 at step 300, max 1.61 at step 20)
"""

from __future__ import annotations

import json
import math
import os
import sys
from typing import Any

import click

from shapescript_cli.output import fail

__all__ = ["command", "read_log", "sparkline"]

BARS = "▁▂▃▄▅▆▇█"


def read_log(path: str) -> dict[str, list[tuple[int, float]]]:
    """The log's curves: for each value's name, in the order first seen, its
    ``(step, value)`` pairs. A line that isn't a JSON object with a ``step`` is an error
    (``ValueError`` naming the line); a blank line is skipped, and so is a last line cut
    short (a run still writing, or stopped)."""
    curves: dict[str, list[tuple[int, float]]] = {}
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
        except json.JSONDecodeError:
            if n == len(lines):       # no newline yet: the writer was cut off there
                continue
            raise ValueError(f"{path}:{n}: not a JSON object") from None
        if not isinstance(rec, dict) or not isinstance(rec.get("step"), int):
            raise ValueError(f"{path}:{n}: not a report record (an object with an int `step`)")
        for k, v in rec.items():
            if k in ("step", "time") or isinstance(v, bool) or not isinstance(v, (int, float)):
                continue
            curves.setdefault(k, []).append((rec["step"], float(v)))
    return curves


def sparkline(values: list[float], width: int = 60) -> str:
    """The values as a line of block characters, at most ``width`` wide (averaged in
    buckets when longer); non-finite values are blanks.

    >>> sparkline([0.0, 1.0, 2.0, 3.0])
    '▁▃▆█'
    """
    if not values:
        return ""
    if len(values) > width:
        step = len(values) / width
        buckets = [values[int(i * step):max(int((i + 1) * step), int(i * step) + 1)]
                   for i in range(width)]
        values = [sum(b) / len(b) for b in buckets]
    finite = [v for v in values if math.isfinite(v)]
    if not finite:
        return " " * len(values)
    lo, hi = min(finite), max(finite)
    span = hi - lo
    out = []
    for v in values:
        if not math.isfinite(v):
            out.append(" ")
        elif span == 0:
            out.append(BARS[len(BARS) // 2])
        else:
            out.append(BARS[min(len(BARS) - 1, int((v - lo) / span * len(BARS)))])
    return "".join(out)


def _text(curves: dict[str, list[tuple[int, float]]]) -> str:
    width = max(len(k) for k in curves)
    rows = []
    for name, points in curves.items():
        values = [v for _, v in points]
        finite = [(v, s) for s, v in points if math.isfinite(v)]
        line = f"{name:<{width}}  {sparkline(values)}  {values[0]:.4g} → {values[-1]:.4g}"
        if finite:
            (lo, lo_at), (hi, hi_at) = min(finite), max(finite)
            line += f" (min {lo:.4g} at step {lo_at}, max {hi:.4g} at step {hi_at})"
        rows.append(line)
    return "\n".join(rows)


def _matplotlib() -> Any | None:
    try:
        import matplotlib
    except ImportError:
        return None
    matplotlib.use("Agg")           # files only: no window, no display needed
    import matplotlib.pyplot as plt

    return plt


def _draw(plt: Any, curves: dict[str, list[tuple[int, float]]], title: str, output: str) -> None:
    from shapescript.api import atomic_write_with

    fig, axes = plt.subplots(len(curves), 1, sharex=True, squeeze=False,
                             figsize=(6.4, 1.2 + 1.6 * len(curves)))
    for ax, (name, points) in zip(axes[:, 0], curves.items()):
        ax.plot([s for s, _ in points], [v for _, v in points], linewidth=1.2)
        ax.set_ylabel(name)
        ax.grid(True, alpha=0.3)
    axes[-1, 0].set_xlabel("step")
    axes[0, 0].set_title(title)
    fig.tight_layout()
    ext = os.path.splitext(output)[1].lstrip(".").lower() or "png"
    try:
        atomic_write_with(output, lambda f: fig.savefig(f, format=ext, dpi=100))
    finally:
        plt.close(fig)


@click.command()
@click.argument("log", type=click.Path(dir_okay=False))
@click.option("-o", "--output", metavar="FILE", default=None,
              help="Write the curves as a picture (.png, .svg, .pdf; needs matplotlib: "
                   "pip install 'shapescript[plot]').")
def command(log: str, output: str | None) -> None:
    """Draw the curves of a training log written by report (run --log, sink)."""
    try:
        curves = read_log(log)
    except OSError as err:
        fail(f"cannot read {log}: {err.strerror or err}", 2)
    except ValueError as err:
        fail(str(err), 2)
    if not curves:
        fail(f"{log} has no reported values to draw", 2)
    if output is None:
        click.echo(_text(curves))
        return
    plt = _matplotlib()
    if plt is None:
        click.echo(_text(curves))
        fail(f"writing {output} needs matplotlib: pip install 'shapescript[plot]' "
             "(the curves are above, as text)", 2)
    if os.path.splitext(output)[1].lstrip(".").lower() not in ("png", "svg", "pdf", ""):
        fail(f"cannot write {output}: give a .png, .svg or .pdf file", 2)
    try:
        _draw(plt, curves, os.path.basename(log), output)
    except OSError as err:
        fail(f"cannot write {output}: {err.strerror or err}", 2)
    click.echo(f"wrote {output}", err=True)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(command())

"""``shapescript run train.ss``: the spotter trained, evaluated and saved in ShapeScript
alone (examples/spotter/train.ss), then its checkpoint loaded back from Python."""

from __future__ import annotations

import pathlib
import re
import shutil
import subprocess
import sys

import pytest
import torch

SPOTTER = pathlib.Path(__file__).parents[2] / "examples" / "spotter"


@pytest.mark.slow
def test_train_ss_trains_reports_and_saves(tmp_path):
    for name in ("spotter.ss", "shapes.py", "train.ss"):
        shutil.copy(SPOTTER / name, tmp_path / name)
    cmd = [sys.executable, "-c", "from shapescript_cli.main import main; main()", "run", "train.ss"]
    r = subprocess.run(cmd, cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()

    # Progress: plain lines (stdout isn't a terminal here), every 20 updates and the last,
    # each with step/total and, after the first, the rate and the time left.
    progress = [ln for ln in lines if ln.startswith("step ")]
    assert re.fullmatch(r"step 0/320: loss [\d.e+-]+, acc [\d.e+-]+", progress[0])
    steps = [int(re.match(r"step (\d+)/320: loss [\d.e+-]+, acc [\d.e+-]+ "
                          r"\([\d.e+]+ (steps/s|s/step), ETA [\d:]+s?\)$", ln).group(1))
             for ln in progress[1:]]
    steps = [0] + steps
    assert steps == list(range(0, 320, 20)) + [319]
    first, last = (float(re.search(r"loss ([\d.e+-]+)", progress[k]).group(1)) for k in (0, -1))
    assert last < first / 10

    # The same reports, in the JSON-lines log the program writes (`sink("spotter.jsonl")`).
    import json

    log = [json.loads(ln) for ln in (tmp_path / "spotter.jsonl").read_text().splitlines()]
    assert [rec["step"] for rec in log] == steps
    assert [list(rec) for rec in log] == [["step", "loss", "acc", "time"]] * len(steps)
    assert f"loss {log[-1]['loss']:.4g}," in progress[-1]

    acc_line = next(ln for ln in lines if ln.startswith("test accuracy: "))
    accuracy = float(re.fullmatch(r"test accuracy: ([\d.]+)%", acc_line).group(1))
    assert accuracy >= 95.0
    assert lines[-1] == "saved spotter.safetensors; reloaded, it makes the same predictions"
    ckpt = tmp_path / "spotter.safetensors"
    assert ckpt.exists()

    # The checkpoint, loaded from Python, makes the same predictions as the trained model:
    # the accuracy and the confusion matrix it printed.
    import shapescript
    from shapescript.importer import import_file

    shapescript.install()
    train = import_file(str(tmp_path / "train.ss"), "spotter_train_under_test")
    shapes = sys.modules["shapes"]
    m = shapescript.load(ckpt, train.Spotter)
    img, y = shapes.draw(500, 1)
    with torch.no_grad():
        pred = train.guess(m, img)
    assert f"test accuracy: {(pred == y).float().mean().item():.1%}" == acc_line
    confusion = sys.modules["spotter"].confusion(pred, y)
    start = lines.index(acc_line) + 2
    assert "\n".join(lines[start:start + 4]) == str(confusion)
    again = shapescript.load(ckpt, train.Spotter)
    assert torch.equal(train.guess(again, img), pred)

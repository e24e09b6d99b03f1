"""``examples/spotter/shapes.py``: the spotter's images (the book, chapters 7 and 10)."""

from __future__ import annotations

import importlib.util
import pathlib

import pytest
import torch

SHAPES_PY = pathlib.Path(__file__).parents[2] / "examples" / "spotter" / "shapes.py"


@pytest.fixture(scope="module")
def shapes():
    spec = importlib.util.spec_from_file_location("spotter_shapes", SHAPES_PY)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_classes(shapes):
    assert shapes.CLASSES == ["square", "disk", "plus", "cross"]


def test_shapes_and_dtypes(shapes):
    img, y = shapes.draw(37)
    assert img.shape == (37, 1, 16, 16) and img.dtype == torch.uint8
    assert y.shape == (37,) and y.dtype == torch.int64
    assert 0 <= y.min() and y.max() < 4


def test_deterministic_per_seed(shapes):
    a_img, a_y = shapes.draw(200)
    b_img, b_y = shapes.draw(200, seed=0)
    assert torch.equal(a_img, b_img) and torch.equal(a_y, b_y)
    c_img, _ = shapes.draw(200, seed=1)
    assert not torch.equal(a_img, c_img)
    torch.manual_seed(123)                       # the global generator plays no part
    d_img, _ = shapes.draw(200)
    assert torch.equal(a_img, d_img)


def test_classes_are_balanced(shapes):
    _, y = shapes.draw(2000)
    counts = torch.bincount(y, minlength=4)
    assert counts.min() >= 400 and counts.max() <= 600, counts.tolist()


def test_pixels_are_background_or_ink(shapes):
    img, y = shapes.draw(500)
    ink = img[img > 0]
    assert ink.min() >= 200 and ink.max() <= 255
    per_image = (img > 0).flatten(1).sum(1)
    assert per_image.min() >= 11                   # every image shows its shape
    assert per_image.max() < 16 * 16 // 2


def test_each_class_looks_like_itself(shapes):
    img, y = shapes.draw(400)
    on = img[:, 0] > 0
    for k in range(len(y)):
        rows = on[k].any(1).nonzero().flatten()
        cols = on[k].any(0).nonzero().flatten()
        h, w = rows[-1] - rows[0] + 1, cols[-1] - cols[0] + 1
        assert 6 <= h <= 12 and 6 <= w <= 12
        box = on[k, rows[0]:rows[-1] + 1, cols[0]:cols[-1] + 1]
        cls = shapes.CLASSES[y[k]]
        if cls == "square":                        # an outline: every edge full, centre empty
            assert box[0].all() and box[-1].all() and box[:, 0].all() and box[:, -1].all()
            assert not box[h // 2, w // 2]
        elif cls == "disk":                        # filled, corners empty
            assert box[h // 2, w // 2] and not box[0, 0] and not box[-1, -1]
        elif cls == "plus":                        # corners empty, centre lines full
            assert not box[0, 0] and not box[-1, -1] and box.any(0).all()
            assert box[:, (w - 1) // 2].all() or box[:, w // 2].all()
        else:                                      # a cross: corners full, edge middles empty
            assert box[0, 0] and box[-1, -1] and box[0, -1] and box[-1, 0]
            assert not box[0, w // 2] or w <= 2



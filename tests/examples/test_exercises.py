"""Chapter 10's exercises (examples/spotter/exercises.ss)."""


import pytest
import torch
import torch.nn.functional as F

import shapescript
from shapescript.compiler import check_file, check_source

from spotter_env import SPOTTER, spotter_modules


@pytest.fixture(scope="module")
def mods():
    with spotter_modules("exercises", "reference") as found:
        yield found


def test_exercises_check_clean():
    diags, _ = check_file(str(SPOTTER / "exercises.ss"))
    assert diags == []


def test_predict_both_adds_the_scores_of_the_nudged_image(mods):
    ex, ref = mods
    w = ref.weights(3)
    img = torch.randint(0, 256, (6, 1, 16, 16), dtype=torch.uint8)
    want = (ref.forward(img, *w) + ref.forward(ref.nudge(img), *w)).argmax(-1)
    assert torch.equal(ex.predict_both(img, *w), want)


def test_tiny_averages_each_patch(mods):
    ex, _ = mods
    img = torch.rand(3, 1, 16, 16)
    torch.testing.assert_close(ex.tiny(img), F.avg_pool2d(img, 4, stride=4))
    assert ex.tiny_5_3(img).shape == (3, 1, 4, 4)


def test_a_wrong_pooling_type_is_an_error():
    src = (SPOTTER / "exercises.ss").read_text().replace(
        "fn tiny_5_3(img: Images) -> [b 1 4 4]", "fn tiny_5_3(img: Images) -> [b 1 5 5]")
    codes = [d.code for d in check_source(src, str(SPOTTER / "exercises.ss"))]
    assert codes == ["E0401"]


def test_test_images_accepts_16_pixel_images(mods, tmp_path, monkeypatch):
    ex, _ = mods
    monkeypatch.chdir(tmp_path)
    torch.save(torch.zeros(100, 1, 16, 16, dtype=torch.uint8), "test.pt")
    assert ex.test_images().shape == (100, 1, 16, 16)


def test_test_images_rejects_28_pixel_images(mods, tmp_path, monkeypatch):
    ex, _ = mods
    monkeypatch.chdir(tmp_path)
    torch.save(torch.zeros(100, 1, 28, 28, dtype=torch.uint8), "test.pt")
    with pytest.raises(shapescript.ShapeError,
                       match=r"^exercises.ss:27:12: expected \[\?k 1 S S\] u8 = \(\?k, 1, 16, 16\), "
                             r"got shape \(100, 1, 28, 28\)$"):
        ex.test_images()

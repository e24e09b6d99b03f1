"""The spotter on a CUDA GPU: the checked entry's forward and backward against the
hand-written reference, no device synchronisation in a checked call, a CPU tensor's
`DeviceError`, and `train.ss` trained with the command line alone."""

from __future__ import annotations

import re
import shutil
import sys

import pytest

from cuda_helpers import SPOTTER, run_shapescript

pytestmark = pytest.mark.cuda
torch = pytest.importorskip("torch")


@pytest.fixture
def on_cuda():
    """``(spotter, reference)`` imported through the hook, the program's device ``cuda``
    (reset after each test by the suite's fixture)."""
    import importlib

    import shapescript

    sys.path.insert(0, str(SPOTTER))
    shapescript.install()
    try:
        spotter = importlib.import_module("spotter")
        reference = importlib.import_module("reference")
        shapescript.devices("cuda")
        yield spotter, reference
    finally:
        shapescript.uninstall()
        sys.path.remove(str(SPOTTER))
        for name in ("spotter", "reference"):
            sys.modules.pop(name, None)


def _weights(reference, device):
    return [w.to(device) for w in reference.weights(0)]


def _images(b, device):
    g = torch.Generator().manual_seed(b)
    return torch.randint(0, 256, (b, 1, 16, 16), dtype=torch.uint8, generator=g).to(device)


@pytest.mark.parametrize("b", [1, 64, 1024])
def test_checked_forward_on_the_device_matches_the_reference(on_cuda, b):
    spotter, reference = on_cuda
    w, img = _weights(reference, "cuda"), _images(b, "cuda")
    out = spotter.forward(img, *w)
    assert out.device.type == "cuda" and out.shape == (b, 4)
    want = reference.forward(img.cpu(), *[x.cpu() for x in w])
    torch.testing.assert_close(out.cpu(), want, rtol=1e-4, atol=1e-4)


def test_checked_backward_on_the_device_matches_the_reference(on_cuda):
    spotter, reference = on_cuda
    img = _images(64, "cuda")
    y = torch.randint(0, 4, (64,), generator=torch.Generator().manual_seed(1))
    w = [x.requires_grad_() for x in _weights(reference, "cuda")]
    torch.nn.functional.cross_entropy(spotter.forward(img, *w), y.cuda()).backward()
    w_cpu = [x.detach().cpu().requires_grad_() for x in w]
    torch.nn.functional.cross_entropy(reference.forward(img.cpu(), *w_cpu), y).backward()
    for ours, theirs in zip(w, w_cpu):
        assert ours.grad.device.type == "cuda"
        torch.testing.assert_close(ours.grad.cpu(), theirs.grad, rtol=1e-3, atol=2e-5)


def test_a_checked_call_never_synchronises_the_device(on_cuda):
    spotter, reference = on_cuda
    w, img = _weights(reference, "cuda"), _images(64, "cuda")
    spotter.forward(img, *w)                  # the checker is generated at the first call
    torch.cuda.synchronize()
    torch.cuda.set_sync_debug_mode("error")
    try:
        out = spotter.forward(img, *w)
    finally:
        torch.cuda.set_sync_debug_mode(0)
    assert out.shape == (64, 4)


def test_a_cpu_tensor_is_a_device_error_naming_the_argument(on_cuda):
    import shapescript

    spotter, reference = on_cuda
    w = _weights(reference, "cuda")
    with pytest.raises(shapescript.DeviceError,
                       match=r"spotter\.ss:\d+:\d+: img is on cpu, expected cuda"):
        spotter.forward(_images(2, "cpu"), *w)


def test_train_ss_trains_on_the_gpu_with_the_command_line_alone(tmp_path):
    for name in ("spotter.ss", "train.ss", "shapes.py"):
        shutil.copy(SPOTTER / name, tmp_path / name)
    # One pass over the 2000 images: 32 updates, past the schedule's 20 warm-up ones.
    r = run_shapescript("run", "--devices", "cuda", "train.ss", "1", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    accuracy = re.search(r"^test accuracy: ([\d.]+)%$", r.stdout, re.M)
    assert accuracy is not None and float(accuracy.group(1)) > 50.0, r.stdout
    assert "reloaded, it makes the same predictions" in r.stdout
    assert (tmp_path / "spotter.safetensors").exists()
    reports = [line for line in (tmp_path / "spotter.jsonl").read_text().splitlines() if line]
    assert len(reports) == 3                  # steps 0, 20 and the last, 31

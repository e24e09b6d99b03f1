"""The program's device: process-wide, from ``shapescript.devices`` or the files' lines.

``shapescript.devices(...)`` (or ``--devices``) wins over a file's
``devices`` line; files whose lines differ raise ``DeviceError`` at import unless an
override is set; with no device anywhere, each call uses its tensor arguments' device.

``_EFFECTIVE[0]`` is the device in force (``torch.device`` or ``None``), read by the
checked entries on every call: a list, so readers see updates without a function call.
"""

from __future__ import annotations


import torch

from shapescript.vocab import device_parts as _device_parts

from .errors import DeviceError

# [override, or None]; {path: (written spec, torch.device)}; [the device in force].
_OVERRIDE = [None]
_DECLARED = {}
_EFFECTIVE = [None]



def parse_device(spec):
    """``"cpu"``, ``"cuda"``, ``"cuda[1]"`` (or ``"cuda:1"``), ``"mps"`` → ``torch.device``.

    >>> parse_device("cuda[0]")
    device(type='cuda', index=0)
    """
    if isinstance(spec, torch.device):
        return spec
    kind, index = _device_parts(spec)
    return torch.device(kind, index) if index is not None else torch.device(kind)


def _refresh_device():
    if _OVERRIDE[0] is not None:
        _EFFECTIVE[0] = _OVERRIDE[0]
    elif _DECLARED:
        _EFFECTIVE[0] = next(iter(_DECLARED.values()))[1]
    else:
        _EFFECTIVE[0] = None


def devices(spec=None):
    """Sets the device of every ShapeScript program in this process; ``None`` clears it.

    It wins over the files' ``devices`` lines. Returns the ``torch.device`` set.

    >>> devices("cuda[0]")                                    # doctest: +SKIP
    device(type='cuda', index=0)
    """
    _OVERRIDE[0] = None if spec is None else parse_device(spec)
    _refresh_device()
    return _OVERRIDE[0]


def declare_module_device(path, spec):
    """Called by a compiled module at import with its file's ``devices`` line.

    Raises ``DeviceError`` when another loaded file declared a different device and no
    override (``devices(...)``, ``--devices``) is set. Returns the device in force.
    """
    device = parse_device(spec)
    path = str(path)
    if _OVERRIDE[0] is None:
        for other, (other_spec, other_device) in _DECLARED.items():
            if other != path and other_device != device:
                raise DeviceError(
                    f"{path}: declares `devices {spec}` but {other} declares "
                    f"`devices {other_spec}`; choose one with shapescript.devices(...)")
    _DECLARED[path] = (str(spec), device)
    _refresh_device()
    return _EFFECTIVE[0]


def current_device():
    """The device in force: the override, else a loaded file's line, else ``None``."""
    return _EFFECTIVE[0]


def call_device(*tensors):
    """The device a call uses: the one in force, else the first tensor's, else the CPU."""
    device = _EFFECTIVE[0]
    if device is not None:
        return device
    for t in tensors:
        if isinstance(t, torch.Tensor):
            return t.device
    return torch.device("cpu")


def reset_devices():
    """Forgets the override and every declared line (for tests and notebooks)."""
    _OVERRIDE[0] = None
    _DECLARED.clear()
    _refresh_device()

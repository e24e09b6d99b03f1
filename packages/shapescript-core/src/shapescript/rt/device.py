"""The program's device: process-wide, from ``shapescript.devices`` or the files' lines.

``shapescript.devices(...)`` (or ``--devices``) wins over a file's
``devices`` line; files whose lines differ raise ``DeviceError`` at import unless an
override is set; with no device anywhere, each call uses its tensor arguments' device.

``_EFFECTIVE[0]`` is the device in force (``torch.device`` or ``None``), read by the
checked entries on every call: a list, so readers see updates without a function call.

Host values reach the program's device at one place: an ``as`` on a Python value
(``shapes.draw(n, 0)[0] as [n 1 S S] u8``) moves a tensor that is on the CPU to the
program's device when the program has one that isn't the CPU (``from_host``). That is
the boundary where Python's values enter the program, so the program itself never copies
between devices; each move is counted (``host_transfers()``), so a test or a profile can
see that a loop doesn't move data it meant to keep on the device.
"""

from __future__ import annotations


from typing import TYPE_CHECKING

import torch

from shapescript.vocab import device_parts as _device_parts

from .errors import DeviceError

if TYPE_CHECKING:
    from os import PathLike

# [override, or None]; {path: (written spec, torch.device)}; [the device in force].
_OVERRIDE: list[torch.device | None] = [None]
_DECLARED: dict[str, tuple[str, torch.device]] = {}
_EFFECTIVE: list[torch.device | None] = [None]
# [moves, bytes] of the `as`s that brought a host tensor to the program's device.
_TRANSFERS = [0, 0]


def parse_device(spec: str | torch.device) -> torch.device:
    """``"cpu"``, ``"cuda"``, ``"cuda[1]"`` (or ``"cuda:1"``), ``"mps"`` → ``torch.device``.

    >>> parse_device("cuda[0]")
    device(type='cuda', index=0)
    """
    if isinstance(spec, torch.device):
        return spec
    kind, index = _device_parts(spec)
    return torch.device(kind, index) if index is not None else torch.device(kind)


def _refresh_device() -> None:
    if _OVERRIDE[0] is not None:
        _EFFECTIVE[0] = _OVERRIDE[0]
    elif _DECLARED:
        _EFFECTIVE[0] = next(iter(_DECLARED.values()))[1]
    else:
        _EFFECTIVE[0] = None


def devices(spec: str | torch.device | None = None) -> torch.device | None:
    """Sets the device of every ShapeScript program in this process; ``None`` clears it.

    It wins over the files' ``devices`` lines. Returns the ``torch.device`` set.

    >>> devices("cuda[0]")                                    # doctest: +SKIP
    device(type='cuda', index=0)
    """
    _OVERRIDE[0] = None if spec is None else parse_device(spec)
    _refresh_device()
    return _OVERRIDE[0]


def declare_module_device(path: str | PathLike[str], spec: str | torch.device) -> torch.device | None:
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


def current_device() -> torch.device | None:
    """The device in force: the override, else a loaded file's line, else ``None``."""
    return _EFFECTIVE[0]


def call_device(*tensors: object) -> torch.device:
    """The device a call uses: the one in force, else the first tensor's, else the CPU."""
    device = _EFFECTIVE[0]
    if device is not None:
        return device
    for t in tensors:
        if isinstance(t, torch.Tensor):
            return t.device
    return torch.device("cpu")


def from_host(value: object) -> object:
    """``value`` with its tensors that are on the CPU moved to the program's device.

    Called on the value of an ``as`` on a Python value (a tensor, or a tuple or list of
    them for a tuple ``as``), before its check. Nothing moves when the program has no
    device (``devices`` line, ``--devices`` or ``shapescript.devices``), when that device
    is the CPU, or when the tensor is on another accelerator (its ``as`` then raises
    ``DeviceError``: copies between accelerators are the program's to make, in Python).
    """
    device = _EFFECTIVE[0]
    if device is None or device.type == "cpu":
        return value
    if isinstance(value, torch.Tensor):
        return _moved(value, device)
    if isinstance(value, (tuple, list)):
        moved = [_moved(v, device) if isinstance(v, torch.Tensor) else v for v in value]
        return type(value)(moved) if isinstance(value, tuple) else moved
    return value


def _moved(t: torch.Tensor, device: torch.device) -> torch.Tensor:
    if t.device.type != "cpu":
        return t
    _TRANSFERS[0] += 1
    _TRANSFERS[1] += t.numel() * t.element_size()
    return t.to(device)


def host_transfers() -> tuple[int, int]:
    """``(moves, bytes)``: how many host tensors ``as`` has moved to the program's device
    in this process, and their size in bytes (``from_host``)."""
    return _TRANSFERS[0], _TRANSFERS[1]


def device_problem(spec: str | torch.device | None = None) -> str | None:
    """Why this process can't run a program on ``spec`` (``"cuda[1]"``; by default the
    device in force), or ``None``.

    >>> device_problem("cpu") is None
    True
    """
    device = _EFFECTIVE[0] if spec is None else parse_device(spec)
    if device is None:
        return None
    if device.type == "cuda":
        if not torch.cuda.is_available():
            why = ("this torch is built without CUDA" if torch.version.cuda is None
                   else "no CUDA device is visible")
            return f"CUDA is not available here ({why}, torch {torch.__version__})"
        count = torch.cuda.device_count()
        if device.index is not None and device.index >= count:
            return (f"there is no {device}: {count} CUDA device{'s' if count != 1 else ''} "
                    f"visible (cuda[0] to cuda[{count - 1}])")
    elif device.type == "mps":
        mps = getattr(torch.backends, "mps", None)
        if mps is None or not mps.is_available():
            return f"MPS is not available here (torch {torch.__version__})"
    elif device.type == "xpu":
        xpu = getattr(torch, "xpu", None)
        if xpu is None or not xpu.is_available():
            return f"XPU is not available here (torch {torch.__version__})"
    return None


def reset_devices() -> None:
    """Forgets the override and every declared line (for tests and notebooks)."""
    _OVERRIDE[0] = None
    _DECLARED.clear()
    _refresh_device()

"""What a module computes, found by running it: a norm is tried against `rms_norm` (by
`w` or by `1 + w`) and `layer_norm`, an activation against the language's; the candidate
that gives the module's values is the one written. Modules are copied before a probe
changes their weights, so the source is never touched."""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

# How close a candidate must come to the module, relative to the values' size.
_PROBE_TOLERANCE = 1e-5


@dataclass(frozen=True)
class Norm:
    """A norm: ``kind`` is ``rms`` (by ``w``), ``rms1p`` (by ``1 + w``) or ``layer``
    (``layer_norm`` with a bias), with its epsilon."""

    kind: str
    eps: float


def _close(a: Any, b: Any) -> bool:
    scale = float(b.abs().max()) or 1.0
    return bool(a.shape == b.shape and float((a - b).abs().max()) <= _PROBE_TOLERANCE * scale)


def _eps_candidates(module: Any, config: Any) -> list[float]:
    found = []
    for holder, attr in ((module, "variance_epsilon"), (module, "eps"),
                         (config, "rms_norm_eps"), (config, "layer_norm_eps"),
                         (config, "layer_norm_epsilon")):
        value = getattr(holder, attr, None)
        if isinstance(value, float) and value not in found:
            found.append(value)
    return found + [e for e in (1e-5, 1e-6, 1e-8, 1e-12) if e not in found]


def probe_norm(module: Any, width: int, config: Any) -> Norm | None:
    """The norm ``module`` is, or None. Probed with random weights and inputs small
    enough that the epsilon shows."""
    import torch
    import torch.nn.functional as F

    probe = copy.deepcopy(module).float()
    weight = getattr(probe, "weight", None)
    if not isinstance(weight, torch.Tensor) or tuple(weight.shape) != (width,):
        return None
    bias = getattr(probe, "bias", None)
    g = torch.Generator().manual_seed(7)
    with torch.no_grad():
        weight.copy_(torch.rand(width, generator=g) + 0.5)
        if isinstance(bias, torch.Tensor):
            bias.copy_(torch.randn(width, generator=g) * 0.1)
        for scale in (1.0, 1e-3):
            x = torch.randn(2, 3, width, generator=g) * scale
            y = probe(x)
            if not isinstance(y, torch.Tensor):
                return None
            found = None
            for eps in _eps_candidates(module, config):
                tries = [("rms", F.rms_norm(x, (width,), weight, eps)),
                         ("rms1p", F.rms_norm(x, (width,), 1.0 + weight, eps))]
                if isinstance(bias, torch.Tensor):
                    tries = [("layer", F.layer_norm(x, (width,), weight, bias, eps))]
                for kind, want in tries:
                    if _close(want, y):
                        found = Norm(kind, eps)
                        break
                if found:
                    break
            if found is None:
                return None
        return found


# The activations the language has, as the port writes them and as torch computes them.
ACTIVATIONS: dict[str, str] = {
    "silu": "silu({})",
    "gelu_tanh": 'gelu({}, approximate="tanh")',
    "gelu": "gelu({})",
    "relu": "relu({})",
}


def probe_activation(module: Any) -> str | None:
    """The key in ``ACTIVATIONS`` of what ``module`` computes, or None."""
    import torch
    import torch.nn.functional as F

    g = torch.Generator().manual_seed(11)
    x = torch.randn(4, 64, generator=g) * 3
    with torch.no_grad():
        y = module(x)
        candidates = {"silu": F.silu(x), "gelu_tanh": F.gelu(x, approximate="tanh"),
                      "gelu": F.gelu(x), "relu": F.relu(x)}
    errors = {k: float((v - y).abs().max()) for k, v in candidates.items()}
    best = min(errors, key=errors.__getitem__)
    return best if errors[best] <= _PROBE_TOLERANCE * float(y.abs().max()) else None

"""The source's graph: ``torch.export`` with every input size dynamic, the example sizes
distinct primes so that no two sizes are taken for one, and a failure to trace named by
the module and the line of Python that stopped it."""

from __future__ import annotations

import os
import traceback
from typing import Any

from shapescript_port.errors import UNTRACEABLE, PortError, where

# Example sizes: distinct primes, so sizes that are equal in the example stay apart.
PRIMES = (3, 7, 11, 13, 17, 19, 23, 29, 31, 37)


class _CausalLm:
    """``forward(ids, pos) -> logits``: the causal LM as its graph is traced."""

    @staticmethod
    def wrap(model: Any) -> Any:
        import torch

        class Logits(torch.nn.Module):
            def __init__(self) -> None:
                super().__init__()
                self.model = model

            def forward(self, ids: Any, pos: Any) -> Any:
                return self.model(input_ids=ids, position_ids=pos, use_cache=False).logits

        return Logits()


def lm_inputs(vocab: int, batch: int = 3, length: int = 7, seed: int = 0) -> tuple[Any, Any]:
    """Token ids and positions, ``[batch length]``."""
    import torch

    g = torch.Generator().manual_seed(seed)
    ids = torch.randint(0, vocab, (batch, length), generator=g)
    return ids, torch.arange(length).expand(batch, length).contiguous()


def export_lm(model: Any, vocab: int) -> Any:
    """The exported program of a causal LM, batch and length dynamic."""
    from torch.export import Dim

    ids, pos = lm_inputs(vocab, PRIMES[0], PRIMES[1])
    b, n = Dim("b"), Dim("n")
    return _export(_CausalLm.wrap(model), (ids, pos), ({0: b, 1: n}, {0: b, 1: n}), model)


def export_module(model: Any, inputs: tuple[Any, ...], dynamic: dict[tuple[int, int], str]) -> Any:
    """The exported program of a plain module; ``dynamic`` maps (input, axis) to the
    name of the size that axis has."""
    from torch.export import Dim

    dims: dict[str, Any] = {}
    shapes = []
    for i, t in enumerate(inputs):
        spec = {}
        for axis in range(t.dim()):
            name = dynamic.get((i, axis))
            if name is not None:
                spec[axis] = dims.setdefault(name, Dim(name))
        shapes.append(spec or None)
    return _export(model, inputs, tuple(shapes), model)


def _export(wrapper: Any, args: tuple[Any, ...], shapes: Any, model: Any) -> Any:
    import torch

    import contextlib
    import io

    try:
        # torch prints the partial graph of a failed trace; the error names what matters.
        with torch.no_grad(), contextlib.redirect_stderr(io.StringIO()):
            return torch.export.export(wrapper, args, dynamic_shapes=shapes, strict=False)
    except Exception as err:  # torch.export's errors have no common base class
        raise _untraceable(err, model) from None


def _untraceable(err: BaseException, model: Any) -> PortError:
    """E3601 naming the module whose Python stopped the trace, and its line."""
    import torch

    names = {id(m): n for n, m in model.named_modules()}
    module, line, op = "", "", type(err).__name__
    torch_dir = os.path.dirname(torch.__file__)
    tb = err.__traceback__
    for frame, lineno in traceback.walk_tb(tb):
        path = frame.f_code.co_filename
        owner = frame.f_locals.get("self")
        if path.startswith(torch_dir) or owner is None or id(owner) not in names:
            continue
        module = names[id(owner)] or type(owner).__name__
        text = _line(path, lineno)
        line, op = f"{os.path.basename(path)}:{lineno}", text or op
    first = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
    if "data-dependent" in str(err) or "GuardOnDataDependent" in type(err).__name__:
        why = "its control flow depends on the values of a tensor"
    else:
        why = first[:200]
    at = f" at {line}" if line else ""
    return PortError(UNTRACEABLE, f"torch.export can't trace {where(module, op)}{at}: {why}",
                     module=module, op=op)


def _line(path: str, lineno: int) -> str:
    try:
        with open(path, encoding="utf-8") as f:
            lines = f.read().splitlines()
        return lines[lineno - 1].strip() if 0 < lineno <= len(lines) else ""
    except OSError:
        return ""

"""The classes of the layered layout in ``modeling_shapescript.py`` (``layers.py``):
``ShapeScriptNorm`` (a norm's ``weight`` and ``variance_epsilon``) and
``ShapeScriptDecoderLayer`` (one layer's slices of the stacked fields, as ``nn.Linear``s
under the usual names, whose forward is the source's block on itself)."""

from __future__ import annotations

from typing import Any

from shapescript_hf.plan import Plan

__all__ = ["dict_text", "layer_classes"]

_NORM = '''

class ShapeScriptNorm(nn.Module):
    """A norm's scale, `weight`, and `variance_epsilon`, as engines look for them; the
    source's code computes the norm of a layer with them."""

    def __init__(self, width, eps, rms=True, bias=False):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(width))
        self.bias = nn.Parameter(torch.zeros(width)) if bias else None
        self.variance_epsilon = eps
        self.rms = rms

    def forward(self, hidden_states):
        shape = (hidden_states.shape[-1],)
        if self.rms:
            return torch.nn.functional.rms_norm(hidden_states, shape, self.weight,
                                                self.variance_epsilon)
        return torch.nn.functional.layer_norm(hidden_states, shape, self.weight, self.bias,
                                              1e-5 if self.variance_epsilon is None
                                              else self.variance_epsilon)
'''


def dict_text(d: dict[str, Any]) -> str:
    """A dict of plans as the file writes it, one entry a line."""
    if not d:
        return "{}"
    lines = [f"        {k!r}: {v!r}," for k, v in d.items()]
    return "{\n" + "\n".join(lines) + "\n    }"


def layer_classes(plan: Plan, compiled_block: str) -> str:
    """``ShapeScriptNorm`` and ``ShapeScriptDecoderLayer``; ``compiled_block``: the
    compiled block function's name."""
    from shapescript import api

    lay = plan.layout
    fields = plan.source.fields
    written = plan.written_types
    init: list[str] = []
    containers = sorted({p.split(".")[0] for p, _ in lay.paths.values()
                         if "." in p and p.split(".")[0] != "self_attn"})
    for c in containers:
        init.append(f"self.{c} = nn.Module()")
    for name, (path, attr) in lay.paths.items():
        shape, dtype = fields[name]
        note = "  " + api.py_comment(f"{name}: {written.get(name, '')}") if name in written \
            else ""
        if path in lay.linears and attr == "weight":
            n_in, n_out, bias = lay.linears[path]
            init.append(f"self.{path} = nn.Linear({n_in}, {n_out}, bias={bias}){note}")
        elif path in lay.norms and attr == "weight":
            eps, rms, bias = lay.norms[path]
            init.append(f"self.{path} = ShapeScriptNorm({shape[1]}, {eps!r}, rms={rms}, "
                        f"bias={bias}){note}")
        elif not path:
            dims = ", ".join(str(d) for d in shape[1:]) + ("," if len(shape) == 2 else "")
            dt = "" if dtype == "f32" else \
                f", dtype=torch.{api.vocab.TORCH_DTYPE_NAMES.get(dtype, 'float32')}"
            init.append(f"self.{attr} = nn.Parameter(torch.empty(({dims}){dt})){note}")
    params = lay.block_params
    model, carried, index = lay.block_args
    taken = {"self", "call", "hidden_states"}
    names: dict[int, str] = {carried: "hidden_states"}
    for i, p in enumerate(params):
        if i in (model, carried, index):
            continue
        n = api.python_name(p)
        while n in taken:
            n += "_"
        taken.add(n)
        names[i] = n
    order = [carried] + [i for i in range(len(params)) if i not in (model, carried, index)]
    sig = ", ".join(names[i] for i in order)
    args = ", ".join("self" if i == model else "self.layer_idx" if i == index else names[i]
                     for i in range(len(params)))
    body = "\n".join("        " + line for line in init)
    return _NORM + f'''

class ShapeScriptDecoderLayer(nn.Module):
    """Layer `layer_idx`: its slices of the source's stacked fields, as modules under the
    usual names; its forward is `{lay.block}` of the source on them."""

    def __init__(self, config, layer_idx):
        super().__init__()
        self.layer_idx = layer_idx
        self.self_attn = ShapeScriptAttention(config, layer_idx)
{body}

    def forward(self, {sig}, call):
        call.current = self
        return {compiled_block}(call, {args})
'''

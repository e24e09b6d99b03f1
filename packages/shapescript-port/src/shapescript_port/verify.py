"""The port against its source on fresh inputs, in float32: the written program's
output must be within ``TOLERANCE`` of the source's, relative to the source's largest
value. When it isn't, the parts are compared one by one, in the order they run, and
the first that differs is named with the source module it replaces."""

from __future__ import annotations

from typing import Any

from shapescript_port.errors import MISMATCH, PortError, where

TOLERANCE = 1e-5


def relative_error(got: Any, want: Any) -> float:
    """max |got - want| / max |want| (inf when the shapes differ)."""
    if tuple(got.shape) != tuple(want.shape):
        return float("inf")
    scale = float(want.abs().max()) or 1.0
    return float((got.float() - want.float()).abs().max()) / scale


def _first(x: Any) -> Any:
    return x[0] if isinstance(x, tuple) else x


def verify_lm(program: Any, plan: Any, m: Any, source: Any, *, seed: int = 1) -> float:
    """The relative error of the ported causal LM ``program`` (its model ``m``) against
    ``source``; ``PortError(MISMATCH)`` naming the first part that differs."""
    import torch

    g = torch.Generator().manual_seed(10_000 + seed)
    V = plan.dim("V")
    ids = torch.randint(0, V, (2, 13), generator=g)
    pos = torch.arange(13).expand(2, 13).contiguous()
    seen: dict[Any, Any] = {}
    layers = source.get_submodule(plan.layers)
    hooks = []
    for i, block in enumerate(layers):
        hooks.append(block.register_forward_pre_hook(
            lambda mod, a, k, i=i: seen.__setitem__(("in", i), a[0] if a else k["hidden_states"]),
            with_kwargs=True))
        hooks.append(block.register_forward_hook(lambda mod, a, out, i=i: seen.__setitem__(("out", i), _first(out))))
        for part in (plan.attn_path, plan.mlp_path):
            hooks.append(block.get_submodule(part).register_forward_hook(
                lambda mod, a, out, i=i, part=part: seen.__setitem__((part, i), _first(out))))
    try:
        with torch.no_grad():
            want = source(input_ids=ids, position_ids=pos, use_cache=False).logits
            got = program.forward(m, ids, pos)
    finally:
        for h in hooks:
            h.remove()
    err = relative_error(got, want)
    if err <= TOLERANCE:
        return err
    rot = plan.rotary is not None
    with torch.no_grad():
        steps: list[tuple[str, str, str, Any, Any]] = [
            ("the embedding", "", "embed", lambda: program.embed(m, ids, pos), seen[("in", 0)])]
        for i in range(len(layers)):
            x = seen[("in", i)]
            extra = (pos,) if rot else ()
            steps.append((f"the attention of block {i}", f"{plan.layers}.{i}.{plan.attn_path}",
                          "attention", lambda x=x, i=i, extra=extra: program.attention(m, x, *extra, i),
                          seen[(plan.attn_path, i)]))
            mid = x if plan.parallel else x + seen[(plan.attn_path, i)]
            steps.append((f"the feed-forward layer of block {i}", f"{plan.layers}.{i}.{plan.mlp_path}",
                          "feed_forward", lambda mid=mid, i=i: program.feed_forward(m, mid, i),
                          seen[(plan.mlp_path, i)]))
            steps.append((f"block {i}", f"{plan.layers}.{i}", "block",
                          lambda x=x, i=i, extra=extra: program.block(m, x, *extra, i),
                          seen[("out", i)]))
        for what, module, fn, run, expected in steps:
            e = relative_error(run(), expected)
            if e > TOLERANCE:
                raise PortError(MISMATCH, f"the port differs from the source first at {what}: "
                                f"`{fn}` against {where(module, type(source.get_submodule(module)).__name__)}, "
                                f"relative error {e:.1e} (more than {TOLERANCE:g})",
                                module=module, op=fn)
    raise PortError(MISMATCH, "the port differs from the source at the final norm and output "
                    f"layer: relative error {err:.1e} (more than {TOLERANCE:g})",
                    module="", op="forward")


def verify_module(program: Any, fn: str, m: Any, source: Any, inputs: tuple[Any, ...],
                  steps: list[tuple[str, str]] | None = None) -> float:
    """The relative error of the ported module's ``fn`` against ``source`` on fresh
    inputs shaped as ``inputs``; ``steps`` lists (function, source module) pairs of the
    program to compare one by one when the whole differs."""
    import torch

    g = torch.Generator().manual_seed(20_000)
    fresh = tuple(torch.randn(t.shape, generator=g) if t.is_floating_point()
                  else torch.randint(0, max(int(t.max()) + 1, 2), t.shape, generator=g) for t in inputs)
    with torch.no_grad():
        want = source(*fresh)
        got = getattr(program, fn)(m, *fresh)
    err = relative_error(got, want)
    if err <= TOLERANCE:
        return err
    raise PortError(MISMATCH, f"the port differs from the source: `{fn}` gives a relative error "
                    f"of {err:.1e} (more than {TOLERANCE:g})", module="", op=fn)

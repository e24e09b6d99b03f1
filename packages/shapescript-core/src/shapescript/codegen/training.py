"""The host-only training built-ins to calls of the runtime (``shapescript.rt.training``,
``shapescript.rt.checkpoint``).

Each is one call, arguments as written: ``adamw(m, lr=cosine(300, lr=1e-2))`` becomes
``_ss_rt.adamw(m, lr=_ss_rt.cosine(300, lr=0.01))``. ``value_and_grad(loss, m, x, y)``
passes the function's unchecked body, since the checker proved the call:
``_ss_rt.value_and_grad(_unchecked_loss, m, x, y)`` (defaults filled in as for a call).
``load(path, M)`` passes the model's class; it and ``M.init`` put the tensors on the
call's device.
"""

from __future__ import annotations

import keyword
from typing import Any

from shapescript.check.payloads import GradCall, LoadModel, Payload
from shapescript.check.resolutions import FnCall
from shapescript.syntax import ast



def _kwarg(name: str, code: str) -> str:
    if name.isidentifier() and not keyword.iskeyword(name):
        return f"{name}={code}"
    return f"**{{{name!r}: {code}}}"


def gen_training(ctx: Any, name: str, e: ast.Call, data: Payload, g: Any) -> str:
    """The Python expression for the training built-in ``name`` called as ``e``."""
    # Each is the runtime's function of its name (``shapescript.rt``).
    fn = ctx.rt_helper(name)
    match data:
        case GradCall(_, call):
            res = g.cm.res[call]
            assert isinstance(res, FnCall)
            args = ", ".join([ctx.unchecked_ref(res.sig)] + [g.argval(a) for a in res.args])
            return f"{fn}({args})"
        case LoadModel(model):
            pos = [a for a in e.args if a.name is None]
            return (f"{fn}({g.expr(pos[0].value)}, {ctx.model_ref(model)}, "
                    f"device={ctx.device_expr()})")
    parts = [g.expr(a.value) if a.name is None else _kwarg(a.name, g.expr(a.value))
             for a in e.args]
    return f"{fn}({', '.join(parts)})"


__all__ = ["gen_training"]

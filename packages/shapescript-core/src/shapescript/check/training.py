"""The host-only training built-ins, typed.

All of them are host-only: an exported function that reaches one is E1704.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from shapescript.check.builtins import rule, split_args
from shapescript.check.fail import Fail
from shapescript.check.payloads import GradCall, LoadModel
from shapescript.check.resolutions import BuiltinCall, FnName, ModelName
from shapescript.check.sizes import Size
from shapescript.check.types import (
    ERROR, NOTHING, Axis, Domain, ErrorType, HostOnlyType, HostType, ModelType, PyType,
    TensorType, TupleType, Type, is_float,
)
from shapescript.diagnostics import Diagnostic
from shapescript.syntax import ast
from shapescript import error_codes as ec

if TYPE_CHECKING:
    from shapescript.check.exprs import ExprChecker


# Names a field can't have: a compiled model is a ``torch.nn.Module`` whose parameters are
# its fields, so a field may not hide one of its attributes (torch 2.x's, and ``init``).
MODULE_ATTRIBUTES = frozenset("""
    T_destination add_module apply bfloat16 buffers call_super_init children compile cpu cuda
    double dump_patches eval extra_repr float forward get_buffer get_extra_state
    get_parameter get_submodule half ipu load_state_dict modules mtia named_buffers
    named_children named_modules named_parameters parameters register_backward_hook
    register_buffer register_forward_hook register_forward_pre_hook
    register_full_backward_hook register_full_backward_pre_hook
    register_load_state_dict_post_hook register_load_state_dict_pre_hook register_module
    register_parameter register_state_dict_post_hook register_state_dict_pre_hook
    requires_grad_ set_extra_state set_submodule share_memory state_dict to to_empty train
    training type xpu zero_grad init
""".split())


def check_field_names(cm: Any, env: Any) -> None:
    """E0203 for a field named like an attribute of ``torch.nn.Module`` (or ``init``), or
    starting with ``_``, which the model's class needs for itself."""
    for info in env.models.values():
        for f in info.decl.fields:
            if f.name in MODULE_ATTRIBUTES or f.name.startswith("_"):
                what = ("the model's `init`" if f.name == "init" else
                        "a private attribute" if f.name.startswith("_") else
                        "an attribute of `torch.nn.Module`")
                cm.diagnostics.append(Diagnostic.error(
                    ec.E0203, f"field `{f.name}` would hide {what}", f.span,
                    "a model is a `torch.nn.Module` whose parameters are its fields",
                    help=f"rename the field, e.g. `{f.name.lstrip('_')}_w`"))


def global_name(ck: ExprChecker, e: ast.Expr) -> str | None:
    """``name`` or ``module.name`` when ``e`` names a top-level declaration (not a local)."""
    if isinstance(e, ast.Name) and ck.body.scope.get(e.id) is None:
        return e.id
    if (isinstance(e, ast.Attr) and isinstance(e.value, ast.Name) and ck.body.scope.get(e.value.id) is None
            and e.value.id in ck.env.ssmods):
        return f"{e.value.id}.{e.attr}"
    return None


def host_number_or_schedule(ck: ExprChecker, a: ast.Arg, what: str) -> None:
    t = ck.expr(a.value)
    if isinstance(t, (ErrorType, PyType)):
        return
    if isinstance(t, HostType) and t.name in ("int", "float"):
        return
    if isinstance(t, HostOnlyType) and t.kind == "schedule" and what == "lr":
        return
    raise Fail(ec.E0410, f"`{what}=` is a number{' or a schedule' if what == 'lr' else ''}, not `{t}`",
               f"this is `{t}`", span=a.value.span)


def model_arg(ck: ExprChecker, a: ast.Arg, fn: str, grads: bool = False) -> ModelType | None:
    t = ck.expr(a.value)
    if isinstance(t, ErrorType):
        return None
    if not isinstance(t, ModelType) or t.grads != grads:
        want = "gradients (from `value_and_grad`)" if grads else "a model"
        raise Fail(ec.E0404, f"`{fn}` needs {want}, not `{t}`", f"this is `{t}`", span=a.value.span)
    return t


@rule("value_and_grad")
def t_value_and_grad(ck: ExprChecker, name: str, e: ast.Call) -> Type:
    pos, kw = split_args(e)
    if len(pos) < 2:
        raise Fail(ec.E0501, "`value_and_grad(f, m, args…)` needs a function and a model", "",
                   span=e.span)
    f = pos[0].value
    fname = global_name(ck, f)
    sig = None
    if fname is not None:
        mod, _, attr = fname.rpartition(".")
        sub = ck.env.ssmods.get(mod) if mod else None
        sig = (sub.fns.get(attr) if sub is not None and sub.public(attr) else None) if mod \
            else ck.env.fn(fname)
    if sig is None or sig.is_extern:
        raise Fail(ec.E1101, "`value_and_grad` needs a top-level `fn`", "not a function", span=f.span)
    ck.res[f] = FnName(sig)
    ck.body.note_call(sig)
    mt = model_arg(ck, pos[1], "value_and_grad")
    if not sig.params or not isinstance(sig.params[0].type, ModelType):
        raise Fail(ec.E1101, f"`{sig.name}` must take the model first", "its first parameter isn't a model",
                   span=f.span)
    ret = sig.ret
    if not (isinstance(ret, ErrorType)
            or (isinstance(ret, TensorType) and not ret.axes and is_float(ret.dtype))):
        raise Fail(ec.E1101, f"`{sig.name}` must return `[]`, a single float", f"it returns `{ret}`",
                   span=f.span)
    # Check the rest as a call of `f(m, args…)`.
    call = ast.Call(f, tuple(pos[1:]) + tuple(a for a in e.args if a.name is not None), e.span)
    value = ck.calls.call(sig, call)
    ck.res[e] = BuiltinCall("value_and_grad", GradCall(sig, call))
    if mt is None or isinstance(value, ErrorType):
        return ERROR
    return TupleType((value, ModelType(mt.name, mt.module, grads=True)))


@rule("sgd")
def t_sgd(ck: ExprChecker, name: str, e: ast.Call) -> Type:
    return optimizer(ck, e, "sgd", ("lr", "momentum", "weight_decay"))


@rule("adamw")
def t_adamw(ck: ExprChecker, name: str, e: ast.Call) -> Type:
    return optimizer(ck, e, "adamw", ("lr", "weight_decay", "beta1", "beta2", "eps"))


def optimizer(ck: ExprChecker, e: ast.Call, name: str, allowed: tuple[str, ...]) -> Type:
    pos, kw = split_args(e)
    if len(pos) != 1:
        raise Fail(ec.E0501, f"`{name}` takes the model, then keywords", "", span=e.span)
    model_arg(ck, pos[0], name)
    for k, a in kw.items():
        if k not in allowed:
            raise Fail(ec.E0502, f"`{name}` has no parameter `{k}`", "", span=a.span,
                       help="parameters: " + ", ".join(f"`{x}`" for x in allowed))
        host_number_or_schedule(ck, a, k)
    if "lr" not in kw:
        raise Fail(ec.E0501, f"`{name}` needs `lr=`", "missing `lr=`", span=e.span)
    return HostOnlyType("optimizer")


@rule("update")
def t_update(ck: ExprChecker, name: str, e: ast.Call) -> Type:
    pos, kw = split_args(e)
    if len(pos) != 3 or kw:
        raise Fail(ec.E0501, "`update(m, grads, opt)` takes three arguments", "", span=e.span)
    m = model_arg(ck, pos[0], "update")
    g = model_arg(ck, pos[1], "update", grads=True)
    o = ck.expr(pos[2].value)
    if m is not None and g is not None and m.name != g.name:
        raise Fail(ec.E0404, f"gradients of `{g.name}` for a `{m.name}`", "", span=pos[1].span)
    if not isinstance(o, (HostOnlyType, ErrorType)) or (isinstance(o, HostOnlyType) and o.kind != "optimizer"):
        raise Fail(ec.E0404, f"`update` needs an optimizer (`sgd`, `adamw`), not `{o}`", "",
                   span=pos[2].span)
    return NOTHING


@rule("clip_norm")
def t_clip_norm(ck: ExprChecker, name: str, e: ast.Call) -> Type:
    pos, kw = split_args(e)
    if len(pos) != 1 or set(kw) != {"max"}:
        raise Fail(ec.E0501, "`clip_norm(grads, max=…)`", "", span=e.span)
    g = model_arg(ck, pos[0], "clip_norm", grads=True)
    host_number_or_schedule(ck, kw["max"], "max")
    return g if g is not None else ERROR


@rule("cosine")
def t_cosine(ck: ExprChecker, name: str, e: ast.Call) -> Type:
    pos, kw = split_args(e)
    if len(pos) != 1 or "lr" not in kw or set(kw) - {"lr", "min"}:
        raise Fail(ec.E0501, "`cosine(steps, lr=…)`", "", span=e.span)
    int_arg(ck, pos[0], "steps")
    for k, a in kw.items():
        host_number_or_schedule(ck, a, k)
    return HostOnlyType("schedule")


@rule("warmup")
def t_warmup(ck: ExprChecker, name: str, e: ast.Call) -> Type:
    pos, kw = split_args(e)
    if len(pos) != 2 or kw:
        raise Fail(ec.E0501, "`warmup(steps, schedule)`", "", span=e.span)
    int_arg(ck, pos[0], "steps")
    host_number_or_schedule(ck, pos[1], "lr")
    return HostOnlyType("schedule")


def int_arg(ck: ExprChecker, a: ast.Arg, what: str) -> None:
    t = ck.expr(a.value)
    if isinstance(t, (ErrorType, PyType)) or (isinstance(t, HostType) and t.name == "int"):
        return
    raise Fail(ec.E0410, f"`{what}` is an int, not `{t}`", f"this is `{t}`", span=a.value.span)


def dataset_items(ck: ExprChecker, a: ast.Arg, fn: str) -> tuple[Type, ...]:
    t = ck.expr(a.value)
    if isinstance(t, ErrorType):
        return ()
    if isinstance(t, HostOnlyType) and t.kind == "dataset":
        return t.items
    items = t.items if isinstance(t, TupleType) else (t,)
    first = None
    for it in items:
        if not isinstance(it, TensorType) or not it.axes:
            raise Fail(ec.E0404, f"`{fn}` needs a tensor or a tuple of tensors sharing their first axis",
                       f"this is `{t}`", span=a.value.span)
        if first is None:
            first = it.axes[0].size
        elif it.axes[0].size != first:
            raise Fail(ec.E0401, f"the tensors given to `{fn}` have different first axes", "",
                       span=a.value.span)
    return tuple(items)


@rule("shuffle")
def t_shuffle(ck: ExprChecker, name: str, e: ast.Call) -> Type:
    pos, kw = split_args(e)
    if len(pos) != 1 or set(kw) - {"seed"}:
        raise Fail(ec.E0501, "`shuffle(data, seed=…)`", "", span=e.span)
    items = dataset_items(ck, pos[0], "shuffle")
    if "seed" in kw:
        int_arg(ck, kw["seed"], "seed")
    return HostOnlyType("dataset", items)


@rule("batches")
def t_batches(ck: ExprChecker, name: str, e: ast.Call) -> Type:
    pos, kw = split_args(e)
    if len(pos) != 1 or set(kw) != {"size"}:
        raise Fail(ec.E0501, "`batches(data, size=…)`", "", span=e.span)
    items = dataset_items(ck, pos[0], "batches")
    int_arg(ck, kw["size"], "size")
    if not items:
        return ERROR  # the data failed, already reported
    nb = Size.var(f"?batch#{ck.body.next_id()}")
    out = []
    for it in items:
        assert isinstance(it, TensorType)
        out.append(TensorType((Axis(nb, nb),) + it.axes[1:], it.dtype, it.domain))
    return HostOnlyType("batches", tuple(out))


@rule("report")
def t_report(ck: ExprChecker, name: str, e: ast.Call) -> Type:
    pos, kw = split_args(e)
    if len(pos) not in (1, 2):
        raise Fail(ec.E0501, "`report(step, name=value, …)` or `report(step, total, …)`", "",
                   span=e.span)
    int_arg(ck, pos[0], "step")
    if len(pos) == 2:
        int_arg(ck, pos[1], "total")
    for k, a in kw.items():
        if k in ("step", "time"):
            raise Fail(ec.E0502, f"`report` writes `{k}` itself", "a reserved name", span=a.span,
                       help="give the value another name")
        t = ck.expr(a.value)
        ok = isinstance(t, (ErrorType, PyType)) or (isinstance(t, HostType) and t.name in ("int", "float", "bool")) \
            or (isinstance(t, TensorType) and not t.axes)
        if not ok:
            raise Fail(ec.E1102, f"`report` value `{k}` is not a number", f"this is `{t}`",
                       span=a.value.span, help="report host numbers or `[]` tensors, e.g. `mean(x)`")
    return NOTHING


@rule("sink")
def t_sink(ck: ExprChecker, name: str, e: ast.Call) -> Type:
    pos, kw = split_args(e)
    if len(pos) != 1 or kw:
        raise Fail(ec.E0501, "`sink(\"run.jsonl\")`", "", span=e.span)
    str_arg(ck, pos[0])
    return NOTHING


def str_arg(ck: ExprChecker, a: ast.Arg) -> None:
    t = ck.expr(a.value)
    if not (isinstance(t, (ErrorType, PyType)) or (isinstance(t, HostType) and t.name == "str")):
        raise Fail(ec.E0410, f"a path is a str, not `{t}`", "", span=a.value.span)


@rule("save")
def t_save(ck: ExprChecker, name: str, e: ast.Call) -> Type:
    pos, kw = split_args(e)
    if len(pos) < 2 or kw:
        raise Fail(ec.E0501, "`save(path, m, …)` takes a path and models", "", span=e.span)
    str_arg(ck, pos[0])
    for a in pos[1:]:
        model_arg(ck, a, "save")
    return NOTHING


@rule("load")
def t_load(ck: ExprChecker, name: str, e: ast.Call) -> Type:
    pos, kw = split_args(e)
    if len(pos) != 2 or kw:
        raise Fail(ec.E0501, "`load(path, Model)`", "", span=e.span)
    str_arg(ck, pos[0])
    m = pos[1].value
    mname = global_name(ck, m)
    info = ck.env.model(mname) if mname is not None else None
    if info is None:
        raise Fail(ec.E0404, "`load` needs a model's name", "not a model", span=m.span)
    ck.res[m] = ModelName(info)
    ck.types[m] = info.type
    ck.res[e] = BuiltinCall("load", LoadModel(info))
    return info.type


__all__ = ["Domain"]

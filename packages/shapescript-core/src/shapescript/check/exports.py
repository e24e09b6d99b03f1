"""The export rules (E1701–E1707) as checker rules.

Bodies record the sites an exported program can't contain. Here each ``export fn``
(or a function named for export) walks the call graph; every site reached is
reported once, at its own location, naming every exported function that reaches it.
The parameters of the function being exported must be tensors with
shapes, or host scalars with defaults (E1705).
"""

from __future__ import annotations

from typing import Any

from shapescript.check.env import AxisParam, FnSig, ModuleEnv, SizeParam
from shapescript.check.result import CheckedModule, FnResult
from shapescript.check.types import HostType, ModelType, TensorType
from shapescript.diagnostics import Diagnostic
from shapescript import error_codes as ec


TORCH_MODULES = ("torch", "math", "shapescript.rt")
# The runtime's externs that read the process, not tensors: fixed at the value they had
# while tracing, so an exported program may not call them.
HOST_EXTERNS = frozenset({"shapescript.rt.world_size", "shapescript.rt.rank"})


def extern_in_torch(target: str) -> bool:
    return any(target == m or target.startswith(m + ".") for m in TORCH_MODULES)


def param_problem(sig: FnSig) -> list[Diagnostic]:
    out = []
    for p in sig.params:
        t = p.type
        bad = None
        if isinstance(t, TensorType):
            if t.has_variadic:
                bad = f"`{p.name}` is `{p.written}`, whose rank is unknown"
        elif isinstance(t, HostType) and t.name in ("int", "float", "bool"):
            if p.default is None:
                bad = f"`{p.name}` is `{t}` without a default"
        elif isinstance(t, (SizeParam, AxisParam)):
            bad = f"`{p.name}` is `{t}`"
        elif t is None:
            continue
        else:
            bad = f"`{p.name}` is `{p.written or t}`"
        if bad:
            out.append(Diagnostic.error(
                ec.E1705, "parameter of an export fn that isn't a tensor with a shape", p.span,
                bad + f", so the exported program of `{sig.name}` has no input for it",
                help="give it a tensor type such as `[b n D]`, or a host scalar a default, "
                     "which the exported program keeps"))
    return out


def site_diagnostics(roots: list[FnSig], fn_data: dict[int, Any],
                     allowed: set[tuple[Any, ...]] | None = None) -> list[Diagnostic]:
    """The E17xx sites reachable from ``roots``, each once, naming its exporters
    (but for the sites whose ``(code, file, start, end)`` is in ``allowed``)."""
    reached: dict[tuple[Any, ...], tuple[tuple[str, Any, str, str], list[str]]] = {}
    for root in roots:
        seen: set[int] = set()
        stack = [root]
        while stack:
            sig = stack.pop()
            if id(sig) in seen:
                continue
            seen.add(id(sig))
            data = fn_data.get(id(sig))
            if data is None:
                continue
            events, callees = data
            for ev in events:
                code, span = ev[0], ev[1]
                if allowed and (code, span.file, span.start, span.end) in allowed:
                    continue
                key = (code, span.file, span.start, span.end, span.line, span.col)
                if key not in reached:
                    reached[key] = (ev, [])
                if root.name not in reached[key][1]:
                    reached[key][1].append(root.name)
            stack.extend(callees)
    out = []
    for (ev, exporters) in reached.values():
        code, span, message, label = ev
        names = " and ".join(f"`{n}`" for n in exporters) if len(exporters) <= 2 else (
            ", ".join(f"`{n}`" for n in exporters[:-1]) + f" and `{exporters[-1]}`")
        plural = "s" if len(exporters) > 1 else ""
        out.append(Diagnostic.error(code, message, span, label,
                                    help=HELP.get(code),
                                    notes=(f"reached from the exported function{plural} {names}",)))
    return out


HELP = {
    ec.E1701: "pass the value in as a parameter, or give a torch function a type with `extern fn`",
    ec.E1702: "an exported function can call externs into `torch`, its submodules, or `math`",
    ec.E1703: "pass the value in as a parameter of the function",
    ec.E1704: "an exported program is for inference: pass the model's fields in as tensors",
    ec.E1706: "assign the value in both branches and return it after the `if`",
    ec.E1707: "`map` over a static size (a dim or a literal) in an exported function",
}


def fn_events(results: dict[str, FnResult], env: ModuleEnv) -> dict[int, Any]:
    """Per function (by ``id`` of its signature): its sites and its callees, from each
    body's result."""
    return {id(env.fns[name]): (list(r.exports.events), list(r.exports.callees))
            for name, r in results.items()}


def check_exports(cm: CheckedModule, env: ModuleEnv) -> None:
    """The export rules of a checked file: its exported functions' parameters (E1705)
    and every site they reach (E17xx); records each function's sites on ``env``."""
    data = fn_events(cm.fns, env)
    for sub in _all_imported(env):
        data.update(sub.fn_data)
    env.fn_data = data
    roots = [sig for sig in env.fns.values() if sig.export and not sig.is_extern]
    for sig in roots:
        cm.diagnostics.extend(param_problem(sig))
    cm.diagnostics.extend(site_diagnostics(roots, data))


def export_diagnostics(env: ModuleEnv, fn: str, *, model_first: bool = False) -> list[Diagnostic]:
    """The E17xx errors of exporting ``fn`` (marked ``export fn`` or not).

    ``model_first``: the export of a model (``--hf``, ``--gguf``, ``.pt2`` with
    ``--weights``), whose function takes the model first; the model may be passed around
    and its fields read, so neither its parameter (E1705) nor a model parameter of a
    function it calls (E1704) is an error."""
    sig = env.fns.get(fn)
    if sig is None or sig.is_extern:
        return []
    if sig.export and not model_first:
        return []  # already reported by ``check_exports``
    data = env.fn_data
    problems = param_problem(sig)
    allowed: set[tuple[Any, ...]] = set()
    if model_first and sig.params and isinstance(sig.params[0].type, ModelType):
        first = sig.params[0].span
        problems = [d for d in problems if (d.line, d.column) != (first.line, first.col)]
        for other in reached_functions(sig, data):
            for p in other.params:
                if isinstance(p.type, ModelType):
                    allowed.add((ec.E1704, p.span.file, p.span.start, p.span.end))
    return problems + site_diagnostics([sig], data, allowed)


def reached_functions(root: FnSig, fn_data: dict[int, Any]) -> list[FnSig]:
    """``root`` and every function it calls, at any depth and in any imported file, in
    the order met (externs left out: they have no body). ``fn_data`` is the module
    environment's record of each function's callees."""
    out: list[FnSig] = []
    seen: set[int] = set()
    stack = [root]
    while stack:
        sig = stack.pop()
        if id(sig) in seen or sig.is_extern:
            continue
        seen.add(id(sig))
        out.append(sig)
        entry = fn_data.get(id(sig))
        if entry is not None:
            stack.extend(entry[1])
    return out


def _all_imported(env: ModuleEnv) -> list[ModuleEnv]:
    out: list[ModuleEnv] = []
    seen: set[str] = set()
    stack = list(env.ssmods.values()) + [e for e, _ in env.imported.values()]
    while stack:
        e = stack.pop()
        if e.path in seen:
            continue
        seen.add(e.path)
        out.append(e)
        stack.extend(e.ssmods.values())
    return out

"""``shapescript check --vllm --tp N``: whether tensor parallelism of degree N can split
the model, and why not in the source's words (E3309, E3310).

It reads the checked program only (no torch, nothing compiled): the layered layout and
its splits (``layers.py``) come from the types."""

from __future__ import annotations

from typing import Any

from shapescript_export.model_export import ModelSource

from shapescript_hf.layers import Split, tp_problems
from shapescript_hf.plan import Plan, make_plan
from shapescript.api import error_codes as ec

__all__ = ["checked_plan", "tp_diagnostics"]


def checked_plan(program: Any, fn: str) -> Plan | None:
    """The export plan of ``fn`` from the checked program alone, or None where its
    model has no static shape (the serving rules say what else is wrong)."""
    sig = program.main.env.fns[fn]
    model_type = sig.params[0].type if sig.params else None
    if type(model_type).__name__ != "ModelType":
        return None
    info = None
    for module in program.modules.values():
        if module.env.path == model_type.module:  # type: ignore[union-attr]
            info = module.env.models.get(model_type.name)  # type: ignore[union-attr]
    if info is None:
        return None
    fields: dict[str, tuple[tuple[int, ...], str]] = {}
    for name, finfo in info.fields.items():
        dims = tuple(a.size.const_value for a in finfo.type.axes)
        if any(d is None for d in dims):
            return None
        fields[name] = (dims, finfo.type.dtype)
    source = ModelSource(program.main.env.path, fn, program, sig, model_type.name, None,  # type: ignore[union-attr]
                         fields, None)
    return make_plan(source)


def _field_span(plan: Plan, name: str) -> Any:
    for module in plan.source.program.modules.values():
        info = module.env.models.get(plan.source.model_name)
        if info is not None and name in info.fields:
            decl = info.fields[name].decl
            return getattr(getattr(decl, "type", None), "span", None) or decl.span
    return plan.source.sig.decl.span


def _legal(degrees: list[int]) -> str:
    return ", ".join(str(d) for d in degrees)


def tp_diagnostics(program: Any, fn: str, degree: int) -> list[Any]:
    """Why tensor parallelism of ``degree`` can't split ``fn``'s model: E3310 where its
    layers can't be modules, E3309 for each split axis (or the vocabulary) ``degree``
    doesn't divide. Empty where it can, or where a serving rule is broken (those say
    why first)."""
    from shapescript import api

    plan = checked_plan(program, fn)
    if plan is None or plan.notes or degree == 1:
        return []
    lay = plan.layout
    if not plan.layered:
        return [api.Diagnostic.error(
            ec.E3310, f"tensor parallelism of degree {degree} needs the model's layers as "
            "modules", plan.source.sig.decl.span,
            f"its layers stay stacked: {lay.reason}",
            help="write the layers as one loop `for l in 0..L: x = block(m, x, …, l)` "
                 "over fields stacked along L; as it is, the one legal degree is 1")]
    vocab = None if plan.form.tied or plan.form.vocab is None else plan.form.vocab.const_value
    legal = lay.tp_degrees(vocab)
    out = []
    seen: set[str] = set()
    for problem in tp_problems(lay, degree, vocab):
        if isinstance(problem, Split):
            if problem.dim in seen:
                continue
            seen.add(problem.dim)
            label = (f"`{problem.field}: {problem.written}` splits along {problem.dim} = "
                     f"{problem.size}, which {degree} doesn't divide")
            help = f"the legal degrees are {_legal(legal)}"
            if problem.what == "key and value heads" and degree % problem.size == 0:
                help = (f"each rank needs whole key and value heads: {degree} ranks would "
                        f"need copies of the {problem.dim} = {problem.size} heads, which the "
                        f"plan's colwise split doesn't make; {help}")
            out.append(api.Diagnostic.error(
                ec.E3309, f"tensor-parallel degree {degree} doesn't divide the "
                f"{problem.what} ({problem.dim} = {problem.size})",
                _field_span(plan, problem.field), label, help=help))
        else:
            field = plan.form.output_field
            out.append(api.Diagnostic.error(
                ec.E3309, f"tensor-parallel degree {degree} doesn't divide the vocabulary "
                f"(V = {vocab})", _field_span(plan, field),
                f"the output layer `{field}` splits along its {vocab} token ids, which "
                f"{degree} doesn't divide", help=f"the legal degrees are {_legal(legal)}"))
    return out

"""What a Hugging Face export writes, decided once: which model, what an engine runs
itself, and the configuration."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from shapescript_export.model_export import ModelSource
from shapescript.api import error_codes as ec


def walk(node: Any) -> Iterator[Any]:
    """Every node of a syntax tree (frozen dataclasses), depth first."""
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        for name in getattr(n, "__dataclass_fields__", {}):
            if name == "span":
                continue
            v = getattr(n, name)
            items = v if isinstance(v, tuple) else (v,)
            stack.extend(x for x in items if hasattr(x, "__dataclass_fields__"))


@dataclass
class Plan:
    """The export of one forward function."""

    source: ModelSource
    form: Any                                # shapescript.api.ServingForm (rules as notes)
    notes: list[Any] = field(default_factory=list)   # the serving rules it breaks
    layout: Any = None                       # layers.Layout, or None for the stacked one

    @property
    def layered(self) -> bool:
        """Its layers are modules (``layers.py``), not stacked parameters."""
        return self.layout is not None and self.layout.layered

    @property
    def servable(self) -> bool:
        """An engine may run it: it keeps every serving rule."""
        return not self.notes

    @property
    def split(self) -> bool:
        """It has the engine's embedding and output layer where the rules put them, so
        the folder cuts the model there (``embed_tokens``, ``lm_head``)."""
        f = self.form
        return (not any(d.code in (ec.E3301, ec.E3302, ec.E3303, ec.E3306) for d in self.notes)
                and f.embed_call is not None and f.output_call is not None)

    @property
    def language_model(self) -> bool:
        """It maps token ids (and positions) to a score for every token of V."""
        f = self.form
        if any(d.code in (ec.E3301, ec.E3306) for d in self.notes) or f.ids is None:
            return False
        ret = self.source.sig.ret
        if type(ret).__name__ != "TensorType" or len(ret.axes) != 3:
            return False
        ids_t = self.source.sig.params[1].type
        return (ret.axes[0].size == ids_t.axes[0].size and ret.axes[1].size == ids_t.axes[1].size
                and ret.axes[2].size == f.vocab)

    @property
    def engine_fields(self) -> set[str]:
        """Fields the folder keeps under an engine's names, not ``model.<field>``."""
        if not self.split:
            return set()
        return {self.form.embed_field, self.form.output_field}

    @property
    def written_types(self) -> dict[str, str]:
        """Each field's type as its declaration writes it (for the modeling file)."""
        out: dict[str, str] = {}
        info = None
        for module in self.source.program.modules.values():
            info = info or module.env.models.get(self.source.model_name)
        if info is None:
            return out
        text = self.source.program.sources.get(info.file) or ""
        for name, finfo in info.fields.items():
            decl = finfo.decl
            span = getattr(getattr(decl, "type", None), "span", None)
            if span is not None and text:
                out[name] = text[span.start:span.end]
        return out

    def unservable_reason(self) -> str | None:
        """One line saying why an engine can't serve it, or None."""
        if not self.notes:
            return None
        d = self.notes[0]
        more = f" (and {len(self.notes) - 1} more)" if len(self.notes) > 1 else ""
        return f"{d.code}: {d.message}, at {d.file}:{d.line}:{d.column}{more}"


def make_plan(source: ModelSource, layered: bool = True) -> Plan:
    """The export of ``source``'s function; ``layered``: its layers as modules where
    they fit (``Plan.layout`` says why not where they don't)."""
    from shapescript import api

    from shapescript_hf.layers import layout_of

    form = api.serving_form(source.program, source.fn, as_errors=False)
    plan = Plan(source, form, list(form.diagnostics))
    if layered:
        plan.layout = layout_of(plan)
    return plan

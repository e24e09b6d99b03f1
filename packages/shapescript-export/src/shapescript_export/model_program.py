"""A trained model to a ``.pt2`` program: ``shapescript export FILE --fn F --weights CKPT``.

For a function that takes the model first (``fn predict(m: Spotter, img: Images u8)``),
the model's fields become the exported program's parameters, under their own names, and
its inputs are the data alone:

    ep = shapescript.export("train.ss", "guess", "guess.pt2", weights="spotter.safetensors")
    ep.module()(img)                      # no weights to pass
    dict(ep.named_parameters())           # {"w_e": …, "tw1": …, …}

The function is checked as an exported function is, except that the model may be passed
around and its fields read; the weights are a checkpoint's first model of the function's
type, or new ones from ``seed`` as ``M.init(seed=…)`` makes them. The module is traced
in this Python.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from shapescript_export.model_export import load_model_source, make_weights

__all__ = ["export_model", "takes_model"]


def takes_model(path: str, fn: str | None) -> bool:
    """Whether ``fn`` of ``path`` takes a model first (False when the file doesn't check
    or has no such function: the ordinary export reports that)."""
    from shapescript import api

    if fn is None:
        return False
    try:
        program = api.check_file(path)
    except OSError:
        return False
    if not program.ok or program.main is None:
        return False
    sig = program.main.env.fns.get(fn)
    if sig is None or sig.is_extern or not sig.params:
        return False
    return type(sig.params[0].type).__name__ == "ModelType"


def export_model(path: str, fn: str | None, output: str | None = None, *, weights: Any = None,
                 seed: int = 0, aoti: bool = False, checks: str = "always",
                 value_checks: str = "debug", devices: str | None = None) -> Any:
    """Exports ``fn`` of ``path``, which takes the model first, with the model's fields as
    the program's parameters; the ``ExportedProgram``, also written to ``output`` (an
    AOTInductor package with ``aoti``) when given."""
    from shapescript import api

    from shapescript_export.api import Prepared, load_module, save_program
    from shapescript_export.program import export_module_source

    source = load_model_source(path, fn)
    model = make_weights(source, weights=weights, seed=seed)
    program, sig = source.program, source.sig
    env = program.main.env
    traced = api.generate_traced(program, source.fn, checks=checks, value_checks=value_checks,
                                 devices=devices, path=path)
    # The program's inputs are the parameters after the model.
    data = dataclasses.replace(sig, params=sig.params[1:],
                               decl=dataclasses.replace(sig.decl, params=sig.decl.params[1:]))
    text = export_module_source(traced, data, env.path)
    names = [api.python_name(p.name) for p in data.params if type(p.type).__name__ == "TensorType"]
    body = api.python_name(source.fn)
    text += _program_class(f"_unchecked_{body}", names, source.fields, _value_checks(data))
    decl = sig.decl
    prep = Prepared(path, source.fn, text, decl.span.line, decl.span.col, program.sources)
    with load_module(prep) as ns:
        fields = {name: p.detach() for name, p in model._ss_fields()}
        module = ns["_SSModelProgram"](fields)
        device = ns["_SS_DEVICE"] if devices is None else api.device_name(devices)
        import torch

        module = module.to(torch.device(device))
        ep = ns["_ss_ex_export"](module, ns["_ss_examples"](torch.device(device)),
                                 ns["_ss_dynamic_shapes"]())
        if output is not None:
            save_program(ns, ep, output, aoti)
    return ep


def _value_checks(data: Any) -> list[str]:
    """The domain checks of the inputs whose bound is a number (``Index[C]``)."""
    from shapescript import api

    out = []
    for p in data.params:
        t = p.type
        if type(t).__name__ != "TensorType":
            continue
        dom = api.domain_of(t)
        if dom is None:
            continue
        kind, over, bound, text = dom
        if bound is not None and not bound.is_const:
            continue
        b = None if bound is None else bound.const_value
        name = api.python_name(p.name)
        out.append(f"            _ss_ex_assert_domain({name}, {kind!r}, {over!r}, {b!r}, "
                   f"{(name + ': expected ' + text)!r})")
    return out


def _program_class(body: str, names: list[str], fields: dict[str, Any],
                   checks: list[str]) -> str:
    """The module torch.export traces: the fields as parameters, the data as inputs."""
    import torch

    clash = [f for f in fields if hasattr(torch.nn.Module, f) or f.startswith("_")]
    if clash:
        from shapescript_export.model_export import ModelExportError

        raise ModelExportError(f"the field {clash[0]} can't be a parameter of an exported "
                               "program (it is a name torch.nn.Module uses)")
    args = "".join(", " + n for n in names)
    lines = [
        "",
        "",
        "class _SSModelProgram(_ss_torch.nn.Module):",
        "    'The function, its model\\'s fields as parameters: the module torch.export traces.'",
        "",
        "    def __init__(self, fields):",
        "        super().__init__()",
        "        for name, value in fields.items():",
        "            self.register_parameter(name, _ss_torch.nn.Parameter(value, requires_grad=False))",
        "",
        f"    def forward(self{args}):",
    ]
    if checks:
        lines.append("        if _SS_VALUES:")
        lines += checks
    lines.append(f"        return {body}(self{args})")
    return "\n".join(lines) + "\n"

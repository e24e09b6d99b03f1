"""A transformers causal LM ported: analysed (``lm_plan``), written (``lm_emit``), its
weights gathered by key, its graph traced for the coverage report, and the check that
runs once the program is compiled (``verify``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from shapescript_port.coverage import Coverage, lm_coverage, summarise
from shapescript_port.lm_emit import write_lm
from shapescript_port.lm_plan import analyse
from shapescript_port.source import Source
from shapescript_port.trace import export_lm
from shapescript_port.verify import verify_lm
from shapescript_port.weights import gather


def _described(src: Source, spec: str) -> str:
    if src.options:
        opts = ", ".join(f"{k}={v!r}" for k, v in sorted(src.options.items()))
        return f"`{spec}` with {opts}"
    return f"`{spec}`"


def port_lm(src: Source, spec: str) -> tuple[str, str, dict[str, Any], Coverage,
                                            Callable[[Any, Any], float]]:
    """The program's text, its model's name, its weights, the coverage report and the
    verification to run on the compiled program."""
    plan = analyse(src.model, src.config, src.label)
    program = export_lm(src.model, plan.dim("V"))
    text = write_lm(plan, _described(src, spec))
    tensors = gather(src.model.state_dict(), plan.fields, plan.dim("L"))
    coverage = summarise(lm_coverage(program), (), text, src.modeling_file)
    return text, plan.model_name, tensors, coverage, lambda prog, m: verify_lm(prog, plan, m, src.model)

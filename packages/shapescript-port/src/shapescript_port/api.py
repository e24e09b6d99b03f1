"""``shapescript.port(...)``: load the source, trace it, write the program, check it,
verify it against the source, and only then write the ``.ss`` file (and the weights)."""

from __future__ import annotations

import os
import sys
import tempfile
import time
from dataclasses import dataclass
from typing import Any

from shapescript_port.coverage import Coverage
from shapescript_port.errors import BAD_SOURCE, PortError


@dataclass(frozen=True)
class PortReport:
    """What a port wrote and how it went: the program's path, the weights' (None when
    not asked for), the model's name in the program, the relative error against the
    source on fresh inputs, the coverage report, and the seconds it took."""

    output: str
    weights: str | None
    model: str
    error: float
    coverage: Coverage
    seconds: float
    text: str

    def summary(self) -> str:
        """The lines the command prints."""
        wrote = f"wrote {self.output}" + (f" and {self.weights}" if self.weights else "")
        return (f"{wrote}: model {self.model}, matches the source to {self.error:.1e} "
                f"(relative, float32) in {self.seconds:.1f} s\n{self.coverage.text()}")


def port(source: str, output: str, *, weights: str | None = None,
         config: dict[str, Any] | None = None, seed: int = 0) -> PortReport:
    """Ports ``source`` to the ``.ss`` file ``output`` (see docs/port.md).

    ``source``: a transformers config folder, a transformers model class name
    (``"LlamaForCausalLM"``, with ``config`` its configuration's options) or
    ``"module:factory"`` (a module path or a ``.py`` file, and a function returning an
    ``nn.Module`` and a tuple of example inputs). Without a checkpoint the weights are
    drawn from the configuration with ``torch.manual_seed(seed)``. ``weights``: where to
    write the program's weights (a checkpoint ``load`` reads).

    Raises ``PortError`` (its ``code`` and ``exit_code``) when the source can't be ported
    or the port doesn't match it; nothing is written then.
    """
    from shapescript import api as ss

    from shapescript_port.source import load_source

    start = time.perf_counter()
    if not output.endswith(".ss"):
        raise PortError(BAD_SOURCE, f"the output must be a .ss file, not {output}")
    stem = os.path.splitext(os.path.basename(output))[0]
    if not stem.isidentifier():
        raise PortError(BAD_SOURCE, f"{output}: the file's name must be a Python identifier "
                        "(Python imports the program by it)")
    src = load_source(source, config, seed=seed)
    if src.is_transformers:
        from shapescript_port.lm_port import port_lm

        text, model_name, tensors, coverage, check = port_lm(src, source)
    else:
        from shapescript_port.graph_port import port_graph

        text, model_name, tensors, coverage, check = port_graph(src)
    with tempfile.TemporaryDirectory(prefix="ssport") as tmp:
        path = os.path.join(tmp, f"{stem}.ss")
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        diagnostics = ss.check_source(text, path)
        if diagnostics:
            raise ss.shapescript_error(diagnostics, {path: text})
        name = f"_shapescript_port_{stem}"
        program = ss.import_file(path, name)
        try:
            m = getattr(program, model_name)(**tensors)
            error = check(program, m)
            if weights is not None:
                ss.save_checkpoint(weights, m)
        finally:
            sys.modules.pop(name, None)
    try:
        ss.atomic_write(output, text)
    except BaseException:
        if weights is not None and os.path.exists(weights):
            os.unlink(weights)
        raise
    return PortReport(output, weights, model_name, error, coverage,
                      time.perf_counter() - start, text)

"""The plugin objects: the ``--hf`` export target and the ``--vllm`` check profile.

``shapescript export FILE --hf DIR`` runs ``HfTarget.run``; exit codes: 0 written (the
folder on stdout; a note on stderr when an engine can't serve the model), 1 errors in the
program (its diagnostics; with ``--vllm`` the serving rules' errors) or a folder that
doesn't verify, 2 an error of the command (a missing ``--fn``, a ``--weights`` file that
is missing or holds no model of the function's type, a folder that can't be written).
A failed export leaves no folder.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from typing import Any

__all__ = ["HfTarget", "VllmProfile", "target", "vllm_profile"]


def _echo(text: str) -> None:
    print(text.rstrip("\n"), file=sys.stderr)


class HfTarget:
    """``--hf``: a Hugging Face folder that transformers loads and vLLM can serve
    (``shapescript.export_hf``)."""

    name = "hf"
    flag = "--hf"
    extra = "hf"
    summary = "a Hugging Face folder that transformers loads and vLLM serves"

    def options(self) -> Sequence[Any]:
        import click
        from shapescript_export.model_export import serving_options

        return [
            click.Option(["--hf", "hf"], metavar="DIR", type=click.Path(file_okay=False),
                         help="Write a Hugging Face folder (transformers, vLLM)."),
            click.Option(["--vllm"], is_flag=True, default=False,
                         help="With --hf: the serving rules (E3301–E3308) are errors, and "
                              "nothing is written when one is broken."),
            click.Option(["--layout"], type=click.Choice(["layered", "stacked"]),
                         default=None,
                         help="With --hf: layered (the default where the model's layers "
                              "are one loop over a block): each layer a module of "
                              "nn.Linears that engines shard and stage; stacked: the "
                              "fields as the source declares them."),
            *serving_options(),
            click.Option(["--no-verify", "no_verify"], is_flag=True, default=False,
                         help="With --hf: don't load the folder with transformers to compare "
                              "it with the source."),
        ]

    def run(self, file: str, fn: str | None, options: dict[str, Any]) -> int:
        from shapescript import api
        from shapescript_export.model_export import ModelExportError

        from shapescript_hf.api import HFExportError, export_hf

        output = options.get("hf")
        if not output:
            _echo("error: --hf needs the folder to write")
            return 2
        notes: list[str] = []
        verify = not options.get("no_verify")
        progress = api.Progress()         # the phase on a terminal, then what was written
        try:
            with progress.phase("exporting and verifying" if verify else "exporting"):
                export_hf(file, output, fn=fn or "forward", weights=options.get("weights"),
                          seed=options.get("seed") or 0,
                          dtype=options.get("dtype") or "float32",
                          tokenizer=options.get("tokenizer"), max_len=options.get("max_len"),
                          verify=verify, vllm=bool(options.get("vllm")), notes=notes,
                          layout=options.get("layout"),
                          allow_nonfinite=bool(options.get("allow_nonfinite")))
        except api.ShapeScriptError as err:
            _echo(api.render_diagnostics(err.diagnostics, err.sources,
                                         color=api.use_color(sys.stderr))
                  if err.diagnostics else str(err))
            return 1
        except ModelExportError as err:
            _echo(f"error: {err}")
            return 2
        except HFExportError as err:
            _echo(f"error: {err}")
            return 1
        except api.WriteError as err:     # the output: a full disk, a read-only folder …
            _echo(f"error: {err}")
            return 2
        except OSError as err:
            where = getattr(err, "filename", None) or output
            _echo(f"error: {where}: {err.strerror or err}")
            return 2
        for note in notes:
            _echo(f"note: {note}")
        progress.wrote(output)
        return 0

    @property
    def api(self) -> Callable[..., Any]:
        from shapescript_hf import export_hf

        return export_hf


class VllmProfile:
    """``shapescript check --vllm``: the serving rules (E3301–E3308), as errors; with
    ``--tp N``, whether tensor parallelism of degree N splits the model (E3309, E3310)."""

    name = "vllm"
    extra = "hf"
    summary = "the serving rules vLLM needs (E3301–E3310)"

    def __init__(self, tp: int | None = None) -> None:
        self.tp = tp

    def options(self) -> Sequence[Any]:
        import click

        return [click.Option(["--tp", "tp"], type=click.IntRange(min=1), default=None,
                             metavar="N",
                             help="With --vllm: whether tensor parallelism of degree N "
                                  "can split the model (E3309, E3310).")]

    def configured(self, values: dict[str, Any]) -> VllmProfile:
        """The profile with its options' values (``--tp``)."""
        return VllmProfile(values.get("tp"))

    def diagnostics(self, program: Any, fn: str | None) -> list[Any]:
        from shapescript import api

        name = fn or "forward"
        if name not in program.main.env.fns:
            raise ValueError(f"{program.main.env.path} has no function `{name}` (--fn)")
        out = api.serving_diagnostics(program, name, as_errors=True)
        if self.tp is not None and not out:
            from shapescript_hf.degrees import tp_diagnostics

            out = tp_diagnostics(program, name, self.tp)
        return out


target = HfTarget()
vllm_profile = VllmProfile()

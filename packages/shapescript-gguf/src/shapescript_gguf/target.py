"""The plugin objects: the ``--gguf`` export target and the ``--gguf`` check profile.

``shapescript export FILE --gguf OUT.gguf`` runs ``GgufTarget.run``; exit codes: 0 written
(the architecture's name and the file on stdout), 1 errors in the program (its
diagnostics, the serving rules' errors, or no architecture llama.cpp runs computes what
it computes: why, for each), 2 an error of the command (a missing ``--fn``, a file or
folder that can't be read, a bad checkpoint, an output that can't be written: a full
disk, a read-only folder), 3 an internal error. A failed export
leaves no file.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from typing import Any

from shapescript_gguf.errors import CommandError

__all__ = ["PROFILE", "TARGET", "GgufProfile", "GgufTarget"]


def _echo(text: str) -> None:
    print(text.rstrip("\n"), file=sys.stderr)


class GgufTarget:
    """``--gguf``: a GGUF file that llama.cpp runs (``shapescript.export_gguf``)."""

    name = "gguf"
    flag = "--gguf"
    extra = "gguf"
    summary = "a GGUF file that llama.cpp runs, as the architecture that computes the model"

    def options(self) -> Sequence[Any]:
        import click
        from shapescript_export.model_export import serving_options

        from shapescript_gguf.targets import NAMES

        return [
            click.Option(["--gguf", "gguf"], metavar="OUT.gguf", type=click.Path(dir_okay=False),
                         help="Write a GGUF file for llama.cpp."),
            click.Option(["--arch"], type=click.Choice(NAMES), default=None,
                         help="The architecture to write (default: the first that computes "
                              f"what the model computes, of {', '.join(NAMES)})."),
            *serving_options(),
        ]

    def run(self, file: str, fn: str | None, options: dict[str, Any]) -> int:
        from shapescript import api

        from shapescript_gguf.api import export_gguf

        output = options.get("gguf")
        if not output:
            _echo("error: --gguf needs the path of the file to write")
            return 2
        progress = api.Progress()         # the phase on a terminal, then what was written
        try:
            with progress.phase("exporting"):
                arch = export_gguf(
                    file, output, fn=fn or "forward", arch=options.get("arch"),
                    weights=options.get("weights"), seed=options.get("seed") or 0,
                    dtype=options.get("dtype") or "float32", tokenizer=options.get("tokenizer"),
                    max_len=options.get("max_len"),
                    allow_nonfinite=bool(options.get("allow_nonfinite")))
        except api.ShapeScriptError as err:
            _echo(str(err))
            return 1
        except CommandError as err:
            _echo(f"error: {err}")
            return 2
        except api.WriteError as err:     # the output: a full disk, a read-only folder …
            _echo(f"error: {err}")
            return 2
        except OSError as err:
            _echo(f"error: {getattr(err, 'filename', None) or file}: {err.strerror or err}")
            return 2
        except ValueError as err:
            _echo(f"error: {err}")
            return 1
        # A bug: one diagnostic (its traceback with SHAPESCRIPT_DEBUG=1), exit 3.
        except Exception as err:  # noqa: BLE001
            _echo(api.render_diagnostics([api.internal_error(file, err)], {}))
            return 3
        progress.wrote(output, arch)
        return 0

    @property
    def api(self) -> Callable[..., Any]:
        from shapescript_gguf.api import export_gguf

        return export_gguf


class GgufProfile:
    """``shapescript check --gguf``: the serving rules (E3301–E3308) a GGUF export needs,
    as errors. Whether llama.cpp's architectures compute the model is found only by
    exporting (it computes the model)."""

    name = "gguf"
    extra = "gguf"
    summary = "the serving rules a GGUF export needs (E3301–E3308), as errors"

    def diagnostics(self, program: Any, fn: str | None) -> list[Any]:
        from shapescript import api

        return list(api.serving_diagnostics(program, fn or "forward", as_errors=True))


TARGET = GgufTarget()
PROFILE = GgufProfile()

"""``shapescript port``: the command the CLI finds through the ``shapescript.commands``
entry point. Importing this module stays light (no torch, no transformers): the work is
in ``shapescript_port.api``, imported when the command runs."""

from __future__ import annotations

import sys

import click

from shapescript_port import port


@click.command("port", help="Port a PyTorch or transformers model to a checked .ss program. "
               "SOURCE is a transformers config folder, a transformers model class "
               "(LlamaForCausalLM, with -c options) or module:factory (a function returning "
               "an nn.Module and its example inputs). The program is verified against the "
               "source on fresh inputs before it is written; on a failure nothing is.")
@click.argument("source")
@click.option("-o", "--output", required=True, metavar="OUT.ss", help="The program to write.")
@click.option("--weights", default=None, metavar="OUT.safetensors",
              help="Also write the program's weights (a checkpoint `load` reads).")
@click.option("-c", "--config", "config", multiple=True, metavar="KEY=VALUE",
              help="A configuration option of a transformers class (repeatable; the value "
                   "is read as JSON where it is JSON).")
@click.option("--seed", default=0, show_default=True, type=int,
              help="The seed of the random weights drawn from the configuration.")
def command(source: str, output: str, weights: str | None, config: tuple[str, ...], seed: int) -> None:
    from shapescript import api

    from shapescript_port.errors import PortError
    from shapescript_port.source import parse_options

    try:
        report = port(source, output, weights=weights, config=parse_options(config), seed=seed)
    except PortError as err:
        click.echo(str(err), err=True)
        sys.exit(err.exit_code)
    except api.ShapeScriptError as err:
        click.echo(str(err), err=True)
        sys.exit(1)
    click.echo(report.summary())


# ``shapescript.port``: the core finds the Python function on the command, through the
# entry point (the package's ``port`` imports nothing heavy until it runs).
command.api = port

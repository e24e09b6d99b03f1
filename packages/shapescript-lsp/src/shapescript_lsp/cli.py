"""``shapescript lsp``: the command the CLI finds through the ``shapescript.commands``
entry point."""

from __future__ import annotations

import click


@click.command("lsp", help="Run the language server over stdin/stdout (for editors).")
@click.option("--stdio", is_flag=True, help="Talk over stdin/stdout (the default; "
              "accepted because editors pass it).")
def command(stdio: bool) -> None:
    from shapescript_lsp.server import main

    main()

"""``shapescript lsp``: the command the CLI finds through the ``shapescript.commands``
entry point."""

from __future__ import annotations

import click

from shapescript_lsp.settings import CHECK_ON_SAVE_ABOVE


@click.command("lsp", help="Run the language server over stdin/stdout (for editors).")
@click.option("--stdio", is_flag=True, help="Talk over stdin/stdout (the default; "
              "accepted because editors pass it).")
@click.option("--check-on-save-above", type=click.IntRange(min=0), default=None,
              metavar="CHARS",
              help=f"Check files larger than this only when opened or saved (default: "
                   f"{CHECK_ON_SAVE_ABOVE}; the editor's initializationOptions.checkOnSaveAbove "
                   f"wins).")
def command(stdio: bool, check_on_save_above: int | None) -> None:
    from shapescript_lsp.server import main
    from shapescript_lsp.settings import Settings

    main(Settings() if check_on_save_above is None else Settings(check_on_save_above))

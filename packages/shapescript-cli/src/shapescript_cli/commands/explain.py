"""``shapescript explain CODE`` and ``shapescript explain --list``.

The page is printed as it is stored: Markdown in the form of every page (the code, what it
means, a program that triggers it, the fix). An unknown code is an error of the
command: exit code 2.
"""

from __future__ import annotations

import click

from shapescript_cli.output import fail


@click.command("explain")
@click.argument("code", required=False)
@click.option("--list", "list_codes", is_flag=True, help="List every code with its title.")
def command(code: str | None, list_codes: bool) -> None:
    """Explain an error code (E0413, e0413 or 0413), or list them all."""
    from shapescript.api import CODES, explain, normalize_code

    if list_codes:
        if code is not None:
            raise click.UsageError("give a CODE or --list, not both")
        for c in CODES.values():
            marker = " (warning)" if c.severity == "warning" else ""
            click.echo(f"{c.code}  {c.title}{marker}")
        return
    if code is None:
        raise click.UsageError("missing CODE (or --list for every code)")
    try:
        normal = normalize_code(code)
    except ValueError as exc:
        fail(str(exc))
    if normal not in CODES:
        fail(f"no such error code: {normal} (`shapescript explain --list` lists them all)")
    text = explain(normal)
    click.echo(text if text.endswith("\n") else text + "\n", nl=False)

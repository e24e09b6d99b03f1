"""``python -m shapescript_cli``: the ``shapescript`` command."""

from shapescript_cli.main import main

main(prog_name="shapescript")

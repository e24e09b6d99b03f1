"""The CLI's commands, one module each, each exposing a ``click.Command`` as ``command``.

``shapescript_cli.main`` imports a module only when its command runs (or its help is
shown), so a command may import what it needs at the top of its module, but should keep
heavy imports (torch, exporters) inside the function body where it can. ``build`` and
``run`` are registered in ``main.LAZY_COMMANDS`` and appear once their modules exist.
"""

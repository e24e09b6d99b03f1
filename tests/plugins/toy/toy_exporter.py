"""A throwaway export target, as a third party would write one: it stands on
``shapescript.api`` alone, contributes ``--toy OUT`` and ``--shout``, and writes the
checked function's parameter names to OUT."""

from __future__ import annotations

from typing import Any


class ToyTarget:
    name = "toy"
    flag = "--toy"
    extra = "toy"
    summary = "the parameter names of a function, in a text file"

    def options(self) -> list[Any]:
        import click

        return [click.Option(["--toy"], metavar="OUT", default=None,
                             help="Write the function's parameter names to OUT."),
                click.Option(["--shout"], is_flag=True, help="In capitals.")]

    @property
    def api(self):
        return self.export

    def export(self, path: str, output: str, *, fn: str | None = None,
               shout: bool = False) -> list[str]:
        from shapescript import api

        program = api.check_file(path)
        if not program.ok:
            raise api.shapescript_error(program.diagnostics, program.sources)
        name = api.choose_function(program.main.env, path, fn, "--fn")
        names = [p.name for p in program.main.env.fns[name].params]
        text = "\n".join(n.upper() if shout else n for n in names) + "\n"
        api.atomic_write(output, text)
        return names

    def run(self, file: str, fn: str | None, options: dict[str, Any]) -> int:
        self.export(file, options["toy"], fn=fn, shout=options.get("shout", False))
        return 0


TARGET = ToyTarget()

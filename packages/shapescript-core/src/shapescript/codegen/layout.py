"""Laying out generated Python so that each statement sits on its ``.ss`` line.

Code generation emits lines tagged with the ``.ss`` line they come from. The layout
pads with blank lines so each lands on that line; a simple statement whose line is
already taken joins the previous simple line with ``;``. Compiled under the ``.ss``
file's name, the module's tracebacks then show the ``.ss`` source.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(slots=True)
class Line:
    ss_line: int | None  # None: anywhere (after what came before)
    indent: int
    text: str
    simple: bool = True  # not a compound statement header


@dataclass
class Emitter:
    """Collects tagged lines, then lays them out."""

    lines: list[Line] = field(default_factory=list)
    # After ``layout``: the ``.ss`` line of each output line (its first statement's), or
    # None, so that a traceback's line can be mapped back where lines had to move.
    line_map: list[int | None] = field(default_factory=list)

    def emit(self, ss_line: int | None, indent: int, text: str, simple: bool = True) -> None:
        self.lines.append(Line(ss_line, indent, text, simple))

    def layout(self) -> str:
        out: list[str] = []
        kinds: list[tuple[int, bool]] = []  # (indent, simple) of each output line
        self.line_map = []
        for ln in self.lines:
            pad = "    " * ln.indent
            target = ln.ss_line
            if target is not None and len(out) + 1 < target:
                while len(out) + 1 < target:
                    out.append("")
                    kinds.append((-1, False))
                    self.line_map.append(None)
            if (target is not None and len(out) >= target and ln.simple and kinds
                    and kinds[-1] == (ln.indent, True) and out[-1].strip()):
                out[-1] += "; " + ln.text
                continue
            out.append(pad + ln.text)
            kinds.append((ln.indent, ln.simple))
            self.line_map.append(ln.ss_line)
        return "\n".join(out) + "\n"

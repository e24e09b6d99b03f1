"""ShapeScript in Jupyter: ``%load_ext shapescript``, then ``%%shapescript`` cells.

A ``%%shapescript`` cell is checked and compiled like a ``.ss`` file; when it checks,
its declarations become notebook names: a model is a class, a ``fn`` a checked Python
function (it checks its arguments' shapes when called), a ``dim`` an int, a ``const`` its
value. A bad cell shows its diagnostics in the same layout as ``shapescript check`` (HTML
in Jupyter, text in a terminal) and defines nothing.

Inside a cell:

* the declarations of earlier ``%%shapescript`` cells are in scope, with their types
  (a later cell's declaration of the same name replaces an earlier one);
* any other notebook variable the cell names is a Python value, exactly as a name from
  ``import python``: untyped until ``as`` gives it a type, and an error (E1701) in an
  ``export fn``. Its value is read when the cell runs (run the cell again to see a new
  value).

The cell is compiled as a file named ``cellN.ss`` in the notebook's folder, N being the
number Jupyter shows beside it (``In [N]``): its diagnostics point at ``cellN.ss:LINE``
and a ShapeError from one of its functions names the same cell and line, and ``import
layers`` finds ``layers.ss`` next to the notebook.
"""

from __future__ import annotations

import html
import re
import sys
import types
from dataclasses import dataclass, field
from typing import Any
from shapescript.api import error_codes as ec

__all__ = ["load_ipython_extension", "unload_ipython_extension", "CellMagic", "Diagnostics"]



class Diagnostics:
    """A bad cell's diagnostics, shown in the notebook: ``text/html`` in Jupyter (the
    same layout, coloured), ``text/plain`` elsewhere."""

    def __init__(self, text: str, count: int) -> None:
        self.text = text
        self.count = count

    def __repr__(self) -> str:
        return self.text

    def _repr_html_(self) -> str:
        body = html.escape(self.text)
        body = re.sub(r"^(error)(\[E\d{4}\])", r'<b style="color:#c0392b">\1\2</b>', body,
                      flags=re.M)
        body = re.sub(r"^(warning)(\[E\d{4}\])", r'<b style="color:#b9770e">\1\2</b>', body,
                      flags=re.M)
        return (f'<pre class="shapescript-diagnostics" style="white-space:pre">{body}</pre>')


@dataclass
class _Decl:
    key: str  # the name it declares, or the text of an import
    text: str  # its source lines (with its doc comment)


@dataclass
class CellMagic:
    """The state of ``%%shapescript`` in one kernel: the declarations so far."""

    shell: Any
    decls: dict[str, _Decl] = field(default_factory=dict)
    cells: int = 0

    def __call__(self, line: str, cell: str) -> Any:
        from shapescript import api

        count = _execution_count(self.shell) or (self.cells + 1)
        self.cells += 1
        # Relative, as the diagnostics show it; imports resolve from the notebook's folder.
        path = f"cell{count}.ss"
        own = _declared_names(cell)
        src = cell if cell.endswith("\n") else cell + "\n"
        carried = [d.text for k, d in self.decls.items() if k not in own]
        base = src + "".join(t if t.endswith("\n") else t + "\n" for t in carried)
        # Notebook variables: each name the checker doesn't know (E0201) that the
        # notebook defines becomes a Python value, as from `import python`.
        names: list[str] = []
        ns = self.shell.user_ns
        for _ in range(16):
            full = base + "".join(f"import python shapescript_notebook as {n}\n" for n in names)
            out = api.compile_source(full, path)
            new = [n for n in self._unknown(out.diagnostics, path) if n in ns and n not in names
                   and not n.startswith("_")]
            if not new:
                break
            names += new
        if out.python is None:
            shown = [d for d in out.diagnostics if d.file == path and d.line <= src.count("\n")]
            others = [d for d in out.diagnostics if d not in shown]
            sources = dict(out.sources)
            sources[path] = src
            text = api.render_diagnostics(shown + others, sources, fmt="full")
            self._display(Diagnostics(text.rstrip("\n"), len(out.diagnostics)))
            return None
        module = types.ModuleType(f"_shapescript_cell{count}")
        module.__file__ = path
        sys.modules[module.__name__] = module
        code = compile(out.python, path, "exec", dont_inherit=True)
        exec(code, module.__dict__)
        ns = self.shell.user_ns
        for n in names:
            module.__dict__[n] = ns[n]
        for n in own:
            if n in module.__dict__:
                ns[n] = module.__dict__[n]
        for d in _split_decls(src):
            self.decls[d.key] = d
        warnings = [d for d in out.diagnostics if not d.is_error]
        if warnings:
            self._display(Diagnostics(api.render_diagnostics(
                warnings, {**out.sources, path: src}, fmt="full").rstrip("\n"), len(warnings)))
        return None

    @staticmethod
    def _unknown(diagnostics: list[Any], path: str) -> list[str]:
        """The names an E0201 ("unknown name `x`") says the cell uses."""
        out = []
        for d in diagnostics:
            if d.code == ec.E0201 and d.file == path:
                m = re.search(r"`([^\W\d]\w*)`", d.message)
                if m and m.group(1) not in out:
                    out.append(m.group(1))
        return out

    def _display(self, obj: Any) -> None:
        try:
            from IPython.display import display

            display(obj)
        except ImportError:  # pragma: no cover - IPython is what runs a magic
            print(obj.text)


def _execution_count(shell: Any) -> int | None:
    """The number of the cell that runs, the N of its ``In [N]``.

    IPython adds one to ``shell.execution_count`` before it runs a cell's code, so while
    the cell runs that counter names the next one. The running cell's own number is that
    of the result IPython is filling in, which its display hook holds meanwhile; a shell
    without one (a stand-in) gives its counter.
    """
    result = getattr(getattr(shell, "displayhook", None), "exec_result", None)
    count = getattr(result, "execution_count", None)
    if isinstance(count, int):
        return count
    count = getattr(shell, "execution_count", None)
    return count if isinstance(count, int) else None


def _declared_names(src: str) -> set[str]:
    """The names a cell's top-level declarations (and imports) bind."""
    names: set[str] = set()
    for line in src.split("\n"):
        m = re.match(r"(?:export\s+|extern\s+)?(?:fn|dim|const|model)\s+([^\W\d]\w*)", line)
        if m:
            names.add(m.group(1))
            continue
        m = re.match(r"import\s+(?:python\s+)?([\w.]+)(?:\s+as\s+(\w+))?", line)
        if m:
            names.add(m.group(2) or m.group(1).split(".")[0])
            continue
        m = re.match(r"from\s+[\w.]+\s+import\s+(.+)", line)
        if m:
            for part in m.group(1).split(","):
                bits = part.split()
                if bits:
                    names.add(bits[-1])
    return names


def _split_decls(src: str) -> list[_Decl]:
    """A checked cell's top-level declarations, each with its text, to carry into later
    cells. ``devices`` lines are carried too, under one key."""
    from shapescript.api import split_chunks

    lines = src.split("\n")
    keep = [ln + "\n" for ln in lines]
    out = []
    for a, b in split_chunks(keep):
        text = "".join(keep[a:b])
        code = "\n".join(ln for ln in text.split("\n") if ln and not ln.startswith("#"))
        if not code.strip():
            continue
        names = _declared_names(code)
        if code.startswith("devices"):
            key = "devices"
        elif len(names) == 1:
            key = next(iter(names))
        else:
            key = code.strip()
        out.append(_Decl(key, text))
    return out


_MAGICS: dict[int, CellMagic] = {}


def load_ipython_extension(ipython: Any) -> None:
    """Registers the ``%%shapescript`` cell magic (``%load_ext shapescript``)."""
    magic = CellMagic(ipython)
    _MAGICS[id(ipython)] = magic
    ipython.register_magic_function(magic, magic_kind="cell", magic_name="shapescript")


def unload_ipython_extension(ipython: Any) -> None:
    """Forgets the cells' declarations (``%unload_ext shapescript``); the names they
    defined stay in the notebook."""
    _MAGICS.pop(id(ipython), None)

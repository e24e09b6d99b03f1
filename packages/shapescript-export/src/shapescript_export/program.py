"""The export module: the traced functions (from the core's ``generate_traced``) and
the export step this package adds after them.

The step is an ``nn.Module`` whose ``forward`` takes the tensor parameters by name and
calls ``_ss_entry``; the ``dynamic_shapes`` and example inputs built from the
signature's types (``shapes.py``); ``export_program()``, ``save()``, and a ``__main__``
that runs ``-o OUT [--aoti]``. The helpers it calls (``program_rt.py``) are inlined, so
the module needs only torch and einops.
"""

from __future__ import annotations

import ast
import inspect
import os
from pathlib import Path

from shapescript import api
from shapescript.api import FnSig, TracedModule, atomic_write_with, vocab

from shapescript_export.shapes import signature_shapes

__all__ = ["export_module_source", "step_helpers_source"]

_RT_MARKER = "# ---- inlined below ----\n"


class _Rename(ast.NodeTransformer):
    def __init__(self, mapping: dict[str, str]) -> None:
        self.mapping = mapping

    def visit_Name(self, node: ast.Name) -> ast.Name:
        return ast.copy_location(ast.Name(self.mapping.get(node.id, node.id), node.ctx), node)

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.FunctionDef:
        self.generic_visit(node)
        node.name = self.mapping.get(node.name, node.name)
        node.returns = None  # the annotations name types the module doesn't import
        for a in node.args.posonlyargs + node.args.args + node.args.kwonlyargs:
            a.annotation = None
        return node

    def visit_ClassDef(self, node: ast.ClassDef) -> ast.ClassDef:
        self.generic_visit(node)
        node.name = self.mapping.get(node.name, node.name)
        return node


# What the atomic writer of ``shapescript.files`` uses, copied with it: its temporary
# names, the sweep of stale ones, the output's mode and the one mapping of write errors.
# Its hold on stop signals is its own: the command's handler defers to the hold of
# ``shapescript.files``, so in the copy only the signal mask holds them back.
_WRITER_NAMES = ("_MARK", "WriteError", "write_error", "_unknown_errno", "_about_output",
                 "_errno_in", "_disk_full", "_umask", "_held", "_holding", "_HOLD", "_LATER",
                 "_unlink_quietly", "_new_file", "_temp_prefix",
                 "_temp_owner", "_alive", "sweep_stale", "atomic_write_with")
_WRITER_MODULES = ("os", "tempfile", "shutil", "errno", "signal")


def _atomic_writer_source() -> str:
    """``shapescript.files.atomic_write_with`` and what it uses, as the module's own
    ``_ss_ex_atomic_write_with`` (``WriteError`` as ``_ss_ex_WriteError`` …): one atomic
    writer, copied rather than imported."""
    home = inspect.getmodule(atomic_write_with)
    assert home is not None
    tree = ast.parse(inspect.getsource(home))
    kept = []
    for node in tree.body:
        names = ([node.name] if isinstance(node, (ast.FunctionDef, ast.ClassDef)) else
                 [t.id for t in node.targets if isinstance(t, ast.Name)]
                 if isinstance(node, ast.Assign) else
                 [node.target.id] if isinstance(node, ast.AnnAssign)
                 and isinstance(node.target, ast.Name) else [])
        if any(n in _WRITER_NAMES for n in names):
            _drop_docstrings(node)
            if isinstance(node, ast.AnnAssign) and node.value is not None:
                # A module-level annotation is evaluated: its names aren't imported here.
                node = ast.Assign(targets=[node.target], value=node.value)
            kept.append(node)
    mapping = {n: "_ss_ex_" + n.lstrip("_") for n in _WRITER_NAMES}
    mapping.update({m: f"_ss_{m}" for m in _WRITER_MODULES})
    module = _Rename(mapping).visit(ast.Module(body=kept, type_ignores=[]))
    imports = "".join(f"import {m} as _ss_{m}\n" for m in _WRITER_MODULES)
    return imports + "\n\n" + ast.unparse(ast.fix_missing_locations(module))


def _drop_docstrings(node: ast.AST) -> None:
    for inner in ast.walk(node):
        if not isinstance(inner, (ast.FunctionDef, ast.ClassDef)):
            continue
        body = inner.body
        if (len(body) > 1
                and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)
                and isinstance(body[0].value.value, str)):
            inner.body = body[1:]


def step_helpers_source() -> str:
    """The export step's helpers as inlined: the vocabulary tables, the atomic writer,
    then ``program_rt.py`` below its marker."""
    text = (Path(__file__).parent / "program_rt.py").read_text(encoding="utf-8")
    return (f"_SS_EX_TORCH_NAMES = {vocab.TORCH_DTYPE_NAMES!r}\n"
            f"_SS_EX_CLASSES = {vocab.DTYPE_CLASSES!r}\n\n\n"
            + _atomic_writer_source() + "\n\n\n" + text.split(_RT_MARKER, 1)[1])


def _step(traced: TracedModule, sig: FnSig, env_path: str) -> list[str]:
    shapes = signature_shapes(sig, env_path, traced.max_sizes, traced.fixed_sizes)
    fn = traced.fn
    base = os.path.basename(traced.path)
    lines = [
        api.py_comment(f"The export step: `python THIS_FILE -o {os.path.splitext(base)[0]}.pt2 "
                       "[--aoti]` exports"),
        api.py_comment(f"`{fn}` of {base} with torch.export (generated by shapescript export)."),
        f"_SS_FILE = {traced.path!r}",
        f"_SS_FN = {fn!r}",
        f"_SS_LINES = {traced.line_table!r}",
        "",
        "",
        "class _SSProgram(_ss_torch.nn.Module):",
        f"    {f'`{fn}` of {base}, as the module torch.export traces.'!r}",
        "",
    ]
    names = [p.name for p in shapes.params]
    lines.append(f"    def forward(_ss_self{''.join(', ' + n for n in names)}):")
    lines.append(f"        return _ss_entry({', '.join(traced.params)})")
    mins = {shapes.names[v]: m for v, m in shapes.mins.items()}
    maxes = {shapes.names[v]: m for v, m in shapes.maxes.items()}
    lines += ["", "", "def _ss_dynamic_shapes():",
              f"    _d = _ss_ex_dims({mins!r}, {maxes!r})", "    return {"]
    for p in shapes.params:
        entries = []
        for k, ax in enumerate(p.axes):
            if ax[0] == "dim":
                entries.append(f"{k}: _d[{shapes.names[ax[1]]!r}]")
            elif ax[0] == "derived":
                _, v, a, c = ax
                v = shapes.names[v]
                expr = (f"{a} * _d[{v!r}]" if a != 1 else f"_d[{v!r}]") + (
                    f" + {c}" if c > 0 else f" - {-c}" if c < 0 else "")
                entries.append(f"{k}: {expr}")
            elif ax[0] == "auto":
                entries.append(f"{k}: _ss_torch.export.Dim.AUTO")
        spec = "{" + ", ".join(entries) + "}" if entries else "None"
        lines.append(f"        {p.name!r}: {spec},")
    lines += ["    }", "", "", "def _ss_examples(device):",
              "    _g = _ss_torch.Generator().manual_seed(0)", "    return ("]
    for p in shapes.params:
        dom = "None"
        if p.domain is not None:
            kind, over, bound, _ = p.domain
            b = None if bound is None else bound.evaluate(shapes.examples)
            dom = repr((kind, over, b))
        lines.append(f"        _ss_ex_example({p.example!r}, {p.dtype!r}, {dom}, device, _g),")
    lines += [
        "    )",
        "",
        "",
        "def export_program(devices=None):",
        f"    {f'The torch.export.ExportedProgram of `{fn}` ({base}).'!r}",
        "    device = _SS_DEVICE if devices is None else devices.replace('[', ':').rstrip(']')",
        "    return _ss_ex_export(_SSProgram(), _ss_examples(_ss_torch.device(device)),",
        "                         _ss_dynamic_shapes())",
        "",
        "",
        "def save(ep, path, aoti=False):",
        "    'Writes the program to `path` (an AOTInductor package with `aoti`), atomically.'",
        "    return _ss_ex_save(ep, path, aoti)",
        "",
        "",
        "def _ss_locate(err):",
        "    'The .ss location of the innermost frame of `err` in these functions.'",
        "    code = _SSProgram.forward.__code__.co_filename",
        "    return _ss_ex_location(err, {code}, _SS_LINES, _SS_FILE)",
        "",
        "",
        "if __name__ == '__main__':",
        f"    _ss_ex_main(export_program, save, _SS_FILE, _SS_FN, "
        f"{os.path.splitext(traced.path)[0] + '.pt2'!r}, _ss_locate)",
    ]
    return lines


def export_module_source(traced: TracedModule, sig: FnSig, env_path: str) -> str:
    """The whole export module: ``traced``'s source, the step's helpers, the step."""
    return (traced.source + "\n# The export step's helpers (shapescript_export), inlined.\n"
            + step_helpers_source() + "\n\n" + "\n".join(_step(traced, sig, env_path)) + "\n")

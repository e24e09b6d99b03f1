"""Copies runtime helpers into generated modules that need only torch and einops.

``shapescript build --standalone``, the modules written for export and Hugging Face's
``modeling_shapescript.py`` inline the helpers they use::

    helper_source(["check_args", "softmax"])          # plain names
    helper_source(["check_args", "softmax"], prefix="_ss_", namespace="_ss_rt")

Every top-level definition of the runtime modules below (function, class, constant) is a
helper; ``helper_source`` returns the requested ones plus everything they name, found by
reading their code, in the modules' order, after the imports they use. The error classes
are defined this way: subclasses of ShapeScript's when it is importable, so
``except shapescript.ShapeError`` still catches them; training mode is ShapeScript's own
context variable when importable, so ``shapescript.train()`` reaches inlined ``dropout``.

With ``prefix``, every inlined name (and imported module) gets it, so none can clash with
the generated module's names, except the three error classes, which keep theirs; with
``namespace``, a ``types.SimpleNamespace`` of that name gathers the requested helpers
under their plain names, so generated code calls ``_ss_rt.softmax(...)`` either way.
"""

from __future__ import annotations

import ast
import functools
import importlib
import inspect
from typing import TYPE_CHECKING

from shapescript.unannotated import unannotated

if TYPE_CHECKING:
    from collections.abc import Collection, Iterable
    from collections.abc import Set as AbstractSet
    from typing import TypeAlias, TypeVar

    _Names: TypeAlias = "Iterable[str]"  # helpers' names
    _Named = TypeVar("_Named", ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)

# In dependency order; ``model`` and the training built-ins' modules (written separately)
# when present. ``training`` itself only gathers the names of the six before it.
_HELPER_MODULES = ("vocab", "files", "errors", "specs", "device", "domains", "checkgen", "checks", "ops",
                   "config", "model", "ranks", "sharding", "grads", "schedules", "optimizers",
                   "datasets", "report", "checkpoint")
_ERROR_CLASSES = ("ShapeError", "DeviceError", "DomainError")
# Helper modules that live beside the runtime rather than in it: torch-free, so the
# compiler uses them too. Their names are inlined like the runtime's own.
_OUTSIDE_RT = ("vocab", "files", "errors")


class _Def:
    __slots__ = ("name", "module", "order", "node", "source", "uses")

    def __init__(self, name: str, module: str, order: int, node: ast.stmt, source: str, uses: AbstractSet[str]) -> None:
        self.name, self.module, self.order = name, module, order
        self.node, self.source, self.uses = node, source, uses


def _names_used(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def _defined_names(node: ast.stmt) -> list[str]:
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return [node.name]
    if isinstance(node, ast.Assign):
        return [n.id for t in node.targets for n in ast.walk(t) if isinstance(n, ast.Name)]
    if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
        return [node.target.id]
    return []


@functools.cache
def _catalogue() -> tuple[dict[str, _Def], dict[str, ast.Import | ast.ImportFrom]]:
    """``({name: _Def}, {imported name: import statement node})`` over the modules."""
    defs: dict[str, _Def] = {}
    imports: dict[str, ast.Import | ast.ImportFrom] = {}
    order = 0
    for mod_name in _HELPER_MODULES:
        try:
            # The errors live outside the runtime package, so the compiler can raise
            # them without importing torch.
            module = importlib.import_module(
                f"shapescript.{mod_name}" if mod_name in _OUTSIDE_RT
                else f"{__package__}.{mod_name}")
        except ModuleNotFoundError as err:
            if err.name != f"{__package__}.{mod_name}":
                raise
            continue
        text = inspect.getsource(module)
        lines = text.splitlines()
        for node in ast.parse(text).body:
            if isinstance(node, ast.Import):
                for alias in node.names:
                    imports[alias.asname or alias.name.split(".")[0]] = (
                        ast.Import(names=[alias]))
                continue
            if isinstance(node, ast.ImportFrom) and node.module in _inlined_modules():
                # `from shapescript.vocab import X as Y`: Y is a helper of its own,
                # `Y = X`, so standalone code gets the table, not the import.
                for alias in node.names:
                    if alias.asname and alias.asname != alias.name:
                        src = f"{alias.asname} = {alias.name}"
                        defs[alias.asname] = _Def(alias.asname, mod_name, order,
                                                  ast.parse(src).body[0], src, {alias.name})
                        order += 1
                continue
            if isinstance(node, ast.ImportFrom):
                if node.level == 0 and node.module != "__future__":
                    for alias in node.names:
                        imports[alias.asname or alias.name] = ast.ImportFrom(
                            module=node.module, names=[alias], level=0)
                continue
            names = _defined_names(node)
            if not names or names == ["__all__"]:
                continue
            first = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
            source = "\n".join(lines[first - 1:node.end_lineno])
            if source != (bare := unannotated(source)):
                source, node = bare, ast.parse(bare).body[0]
            uses = _names_used(node)
            for name in names:
                if name in defs:
                    raise RuntimeError(f"helper {name} is defined twice in shapescript.rt")
                defs[name] = _Def(name, mod_name, order, node, source, uses)
            order += 1
    for d in defs.values():
        d.uses = frozenset(n for n in d.uses if n != d.name and (n in defs or n in imports))
    return defs, imports


def _inlined_modules() -> set[str]:
    return {f"shapescript.{m}" for m in _OUTSIDE_RT}


def helper_names() -> list[str]:
    """Every name ``helper_source`` can inline."""
    return sorted(_catalogue()[0])


def _closure(names: Iterable[str]) -> set[str]:
    defs, _ = _catalogue()
    seen, todo = set(), list(names)
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        if name not in defs:
            raise KeyError(f"not a runtime helper: {name!r}")
        seen.add(name)
        todo.extend(n for n in defs[name].uses if n in defs)
    if "_TRAINING" in seen:
        seen.add("contextvars")          # the override below names it
    return seen


_TRAINING_SOURCE = '''\
try:
    from shapescript.rt import ops as _ss_ops_module
    _TRAINING = _ss_ops_module._TRAINING
except (ImportError, AttributeError):
    _TRAINING = contextvars.ContextVar("shapescript_training", default=False)'''


def _errors_source(names: Collection[str], import_errors: bool = True) -> str:
    doc = {"ShapeError": "A tensor's rank, sizes or dtype don't fit its type.",
           "DeviceError": "A tensor is on another device than the program's.",
           "DomainError": "A tensor's values are outside its domain."}
    mine = [n for n in _ERROR_CLASSES if n in names]
    if not mine:
        return ""
    if not import_errors:
        return "\n\n\n".join(f"class {n}(ValueError):\n    \"\"\"{doc[n]}\"\"\"" for n in mine)
    out = ["try:", "    from shapescript.rt import errors as _ss_errors_module"]
    out += [f"    class {n}(_ss_errors_module.{n}):\n        \"\"\"{doc[n]}\"\"\"" for n in mine]
    out += ["except (ImportError, AttributeError):"]
    out += [f"    class {n}(ValueError):\n        \"\"\"{doc[n]}\"\"\"" for n in mine]
    return "\n".join(out)


class _Renamer(ast.NodeTransformer):
    def __init__(self, mapping: dict[str, str]) -> None:
        self.mapping = mapping

    def visit_Name(self, node: ast.Name) -> ast.Name:
        if node.id in self.mapping:
            return ast.copy_location(ast.Name(self.mapping[node.id], node.ctx), node)
        return node

    def _visit_def(self, node: _Named) -> _Named:
        self.generic_visit(node)
        if node.name in self.mapping:
            node.name = self.mapping[node.name]
        return node

    visit_FunctionDef = visit_AsyncFunctionDef = visit_ClassDef = _visit_def

    def visit_arg(self, node: ast.arg) -> ast.arg:
        if node.arg in self.mapping:
            raise RuntimeError(f"a parameter named {node.arg} shadows a runtime helper")
        self.generic_visit(node)  # its annotation names helpers too
        return node


def _renamed(source: str, mapping: dict[str, str]) -> str:
    if not mapping:
        return source
    tree = _Renamer(mapping).visit(ast.parse(source))
    return ast.unparse(ast.fix_missing_locations(tree))


def _import_source(node: ast.Import | ast.ImportFrom, mapping: dict[str, str]) -> str:
    alias = node.names[0]
    bound = alias.asname or (alias.name if isinstance(node, ast.ImportFrom)
                             else alias.name.split(".")[0])
    new = mapping.get(bound)
    if isinstance(node, ast.Import):
        if new is None:
            return f"import {alias.name}" + (f" as {alias.asname}" if alias.asname else "")
        return f"import {alias.name} as {new}"
    return (f"from {node.module} import {alias.name}"
            + (f" as {new or alias.asname}" if (new or alias.asname) else ""))


def helper_source(names: _Names, *, prefix: str = "", namespace: str | None = None, import_errors: bool = True) -> str:
    """The Python source defining the helpers ``names`` and what they depend on.

    It needs only torch, einops and the standard library. ``prefix`` renames every
    inlined name but the error classes; ``namespace`` adds a ``SimpleNamespace`` of the
    requested helpers under their plain names. ``import_errors=False`` makes the error
    classes plain ``ValueError`` subclasses, for a file that must not import ShapeScript
    even where it is installed (a Hugging Face modeling file).

    >>> src = helper_source(["softmax"])
    >>> ns = {}
    >>> exec(src, ns)
    >>> ns["softmax"](torch.zeros(2), 0)                         # doctest: +SKIP
    tensor([0.5000, 0.5000])
    """
    names = list(dict.fromkeys(names))
    defs, imports = _catalogue()
    needed = _closure(names)
    used_imports = {n for d in needed if d in defs for n in defs[d].uses if n in imports}
    if "_TRAINING" in needed:
        used_imports.add("contextvars")
    mapping = {}
    if prefix:
        mapping = {n: prefix + n for n in needed if n in defs and n not in _ERROR_CLASSES}
        mapping.update({n: prefix + n for n in used_imports})
    chunks = ["# ShapeScript runtime helpers (shapescript.rt), inlined."]
    chunks.append("\n".join(_import_source(imports[n], mapping)
                            for n in sorted(used_imports, key=_import_key)))
    errors = _errors_source(needed, import_errors)
    if errors:
        chunks.append(errors)
    for d in sorted((defs[n] for n in needed if n in defs and n not in _ERROR_CLASSES),
                    key=lambda d: (d.order, d.name)):
        if d.name == "_TRAINING":
            chunks.append(_renamed(_TRAINING_SOURCE, mapping))
        else:
            chunks.append(_renamed(d.source, mapping))
    if namespace:
        if prefix:
            chunks.append(f"import types as {prefix}types")
            types_name = f"{prefix}types"
        else:
            chunks.append("import types as _ss_types_module")
            types_name = "_ss_types_module"
        fields = ", ".join(f"{n}={mapping.get(n, n)}" for n in names)
        chunks.append(f"{namespace} = {types_name}.SimpleNamespace({fields})")
    return "\n\n\n".join(c for c in chunks if c) + "\n"


def _import_key(name: str) -> tuple[bool, str, str]:
    _, imports = _catalogue()
    node = imports[name]
    module: str = node.names[0].name if isinstance(node, ast.Import) else node.module  # type: ignore[assignment]
    third_party = module.split(".")[0] in ("torch", "einops")
    return (third_party, module, name)

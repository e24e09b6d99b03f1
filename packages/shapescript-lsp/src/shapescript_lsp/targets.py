"""What a name at a position means: a ``Target`` (a function, dim, const, shape alias,
model, field, local, axis or Python module) with where it is declared, found from the checked
file's syntax tree and the names the checker resolved."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from lsprotocol import types as lsp

from shapescript import api
from shapescript.api import syntax as S
from shapescript_lsp.documents import Document


@dataclass
class Target:
    """What a name at a position means."""

    kind: str  # fn, dim, const, alias, model, field, local, axis, pymod, builtin
    name: str
    decl_span: Any = None  # where it is declared (its name), when known
    owner: Any = None  # the enclosing fn declaration (locals, axes)
    info: Any = None  # FnSig, ModelInfo, FieldInfo, a dim's or const's value, a BuiltinDoc …
    node: Any = None  # the node at the position
    env: Any = None  # the module environment that declares it
    # A const's identity whichever checker read its file (each open file checks the
    # modules it imports itself): the declaring file's path and the name there.
    key: tuple[str, str] | None = None


def at(doc: Document, pos: lsp.Position) -> list[Any]:
    """The nodes that contain ``pos``, outermost first."""
    cm = doc.module
    if cm is None:
        return []
    return api.nodes_at(cm.env.module, *doc.point(pos))


def enclosing_fn(path: list[Any]) -> Any:
    """The function declaration among ``path``'s nodes, if any."""
    for n in path:
        if isinstance(n, (S.FnDecl, S.ExternDecl)):
            return n
    return None


def param_name_span(p: Any) -> Any:
    """The span of a parameter's name (its node spans ``name: type``)."""
    sp = p.span
    return type(sp)(sp.file, sp.line, sp.col, sp.line, sp.col + len(p.name), sp.start,
                    sp.start + len(p.name))


def body_of(fn: Any) -> tuple[Any, ...]:
    """A function's statements (or its ``= expr``), as a tuple; none for an extern."""
    body = getattr(fn, "body", None)
    if body is None:
        return ()
    return body if isinstance(body, tuple) else (body,)


def local_decl(fn: Any, name: str) -> Any:
    """Where a local of ``fn`` is first bound: a parameter, an assignment, a loop."""
    if fn is None:
        return None
    for p in fn.params:
        if p.name == name:
            return param_name_span(p)
    body = body_of(fn)
    for n in api.walk(body):
        if isinstance(n, S.Assign):
            for t in n.targets:
                if isinstance(t, S.Name) and t.id == name:
                    return t.span
        elif isinstance(n, S.For):
            for tname, sp in zip(n.targets, n.target_spans):
                if tname == name:
                    return sp
        elif isinstance(n, S.Lambda) and name in n.params:
            sp = n.span
            return type(sp)(sp.file, sp.line, sp.col, sp.line, sp.col + len(name))
    return None


def const_origin(env: Any, name: str, module: str | None = None) -> tuple[Any, str] | None:
    """The module that declares the const this file calls ``name`` (``module.name``
    when ``module`` is set; a ``from … import`` name too), and its name there; None when
    ``name`` names no const (a const whose value failed is still one)."""
    if module is not None:
        sub = env.ssmods.get(module)
        return (sub, name) if sub is not None and name in sub.const_decls else None
    if name in env.const_decls:
        return env, name
    if name in env.imported:
        sub, orig = env.imported[name]
        return const_origin(sub, orig)
    return None


def const_target(env: Any, name: str, node: Any, module: str | None = None) -> Target | None:
    """The const ``name`` (``module.name``) as this file names it, or None."""
    origin = const_origin(env, name, module)
    if origin is None:
        return None
    cenv, cname = origin
    decl = cenv.const_decls[cname]
    written = name if module is None else f"{module}.{name}"
    return Target("const", written, decl.name_span, info=cenv.consts.get(cname), node=node,
                  env=cenv, key=(os.path.abspath(cenv.path), cname))


def _dim_target(env: Any, name: str, node: Any, fn: Any) -> Target | None:
    origin = env.dim_origin(name)
    if origin is not None:
        denv, dname = origin
        decl = denv.dim_decls.get(dname)
        return Target("dim", name, decl.name_span if decl else None, info=denv.dims.get(dname),
                      node=node, env=denv)
    found = env.alias(name)
    if found is not None:
        aenv, decl = found
        return Target("alias", name, decl.name_span, info=decl, node=node, env=aenv)
    if fn is not None:
        return Target("axis", name, _axis_decl(fn, name), owner=fn, node=node)
    return Target("axis", name, None, node=node)


def _axis_decl(fn: Any, name: str) -> Any:
    """The first place a fn's signature names the axis ``name``."""
    for n in api.walk(tuple(fn.params) + ((fn.ret,) if fn.ret is not None else ())):
        if isinstance(n, S.SizeName) and n.name == name and n.module is None:
            return n.span
        if isinstance(n, S.SpecialTypeExpr) and n.name == name:
            return n.span
    for n in api.walk(body_of(fn)):
        if isinstance(n, (S.SizeName, S.PatName)) and n.name == name:
            return n.span
    return None


def target_at(doc: Document, pos: lsp.Position) -> Target | None:
    """What the name at ``pos`` refers to, or None (not on a name)."""
    cm = doc.module
    if cm is None:
        return None
    path = at(doc, pos)
    if not path:
        return None
    env = cm.env
    node = path[-1]
    fn = enclosing_fn(path)
    line, col = doc.point(pos)
    if isinstance(node, (S.FnDecl, S.ExternDecl, S.DimDecl, S.ConstDecl, S.ModelDecl)) and \
            api.span_contains(node.name_span, line, col):
        return _decl_target(env, node)
    if isinstance(node, S.ImportName):
        return _import_target(env, path, node)
    if isinstance(node, S.Param):
        if api.span_contains(param_name_span(node), line, col):
            return Target("local", node.name, param_name_span(node), owner=fn, node=node)
        return None
    if isinstance(node, S.ParamField):
        model = next((n for n in path if isinstance(n, S.ModelDecl)), None)
        info = env.model(model.name) if model else None
        finfo = info.fields.get(node.name) if info else None
        return Target("field", node.name, node.span, info=finfo, node=node, env=env)
    if isinstance(node, S.Name):
        # A parameter's default is read where the function is declared: the function's
        # own names are not in scope there (`eps: float = eps` is the const).
        in_default = any(isinstance(n, S.Param) for n in path)
        return _name_target(cm, node, None if in_default else fn)
    if isinstance(node, (S.SizeName, S.PatName)):
        module = getattr(node, "module", None)
        name = node.name if not module else f"{module}.{node.name}"
        return _dim_target(env, name, node, fn)
    if isinstance(node, S.SpecialTypeExpr):
        return Target("axis", node.name, node.span, owner=fn, node=node)
    if isinstance(node, (S.NamedTypeExpr, S.TensorTypeExpr)):
        return _type_target(env, node)
    if isinstance(node, S.Attr):
        return _attr_target(cm, node)
    return None


def _name_target(cm: Any, node: Any, fn: Any) -> Target | None:
    """What a name in an expression refers to, by the checker's resolution (a name
    the checker didn't reach: by what is declared)."""
    env = cm.env
    res = cm.res.get(node)
    kind = getattr(res, "kind", None)
    name = node.id
    if kind == "fn" or (kind is None and env.fn(name) is not None
                        and local_decl(fn, name) is None):
        sig = env.fn(name)
        if sig is not None:
            return Target("fn", name, sig.decl.name_span, info=sig, node=node, env=sig.module)
    if kind == "dim" or (kind is None and env.dim_origin(name) is not None):
        return _dim_target(env, name, node, fn)
    # A const whose value failed (E0307) is "poisoned" where it is used: still the const.
    if kind == "const" or (kind in (None, "poisoned") and local_decl(fn, name) is None
                           and const_origin(env, name) is not None):
        found = const_target(env, name, node)
        if found is not None:
            return found
    if kind == "model" or (kind is None and env.model(name) is not None):
        info = env.model(name)
        if info is not None:
            return Target("model", name, info.decl.name_span, info=info, node=node)
    if kind == "pymod":
        return Target("pymod", name, None, info=getattr(res, "value", None), node=node)
    if kind == "generic":
        return Target("axis", name, _axis_decl(fn, name) if fn else None, owner=fn, node=node)
    decl = local_decl(fn, name)
    if decl is not None:
        return Target("local", name, decl, owner=fn, node=node)
    if kind is None and api.builtin_doc(name) is not None:
        return Target("builtin", name, None, info=api.builtin_doc(name), node=node)
    return None


def _type_target(env: Any, node: Any) -> Target | None:
    """A model or shape alias named as a type."""
    name = node.name if isinstance(node, S.NamedTypeExpr) else node.alias
    if not name:
        return None
    info = env.model(name)
    if info is not None:
        return Target("model", name, info.decl.name_span, info=info, node=node)
    found = env.alias(name)
    if found is not None:
        return Target("alias", name, found[1].name_span, info=found[1], node=node, env=found[0])
    return None


def _import_target(env: Any, path: list[Any], node: Any) -> Target | None:
    """A name in ``from layers import eps [as e]``: what it imports."""
    imp = next((n for n in reversed(path) if isinstance(n, S.FromImport)), None)
    if imp is None:
        return None
    local = node.alias or node.name
    found = const_target(env, local, node)
    if found is not None:
        return found
    sig = env.fn(local)
    if sig is not None:
        return Target("fn", local, sig.decl.name_span, info=sig, node=node, env=sig.module)
    if env.dim_origin(local) is not None or env.alias(local) is not None:
        return _dim_target(env, local, node, None)
    info = env.model(local)
    if info is not None:
        return Target("model", local, info.decl.name_span, info=info, node=node)
    return None


def _module_member(cm: Any, node: Any) -> Target | None:
    """``layers.eps`` or ``layers.D`` in an expression: a module's const or dim."""
    base = node.value
    if not isinstance(base, S.Name) or base.id not in cm.env.ssmods:
        return None
    if getattr(cm.res.get(base), "kind", None) not in (None, "ssmod"):
        return None  # a local that shadows the module
    found = const_target(cm.env, node.attr, node, module=base.id)
    if found is not None:
        return found
    if cm.env.dim_origin(f"{base.id}.{node.attr}") is not None:
        return _dim_target(cm.env, f"{base.id}.{node.attr}", node, None)
    return None


def _attr_target(cm: Any, node: Any) -> Target | None:
    """A model's field read as ``m.field``; a module's const or dim, ``layers.eps``."""
    member = _module_member(cm, node)
    if member is not None:
        return member
    vt = cm.types.get(node.value)
    model = getattr(vt, "name", None) if type(vt).__name__ == "ModelType" else None
    if model is None:
        return None
    info = cm.env.model(model)
    finfo = info.fields.get(node.attr) if info else None
    if finfo is None:
        return None
    return Target("field", node.attr, finfo.decl.span, info=finfo, node=node)


def _decl_target(env: Any, node: Any) -> Target:
    if isinstance(node, (S.FnDecl, S.ExternDecl)):
        sig = env.fns.get(node.name)
        return Target("fn", node.name, node.name_span, info=sig, node=node, env=env)
    if isinstance(node, S.DimDecl):
        if node.shape is not None:
            return Target("alias", node.name, node.name_span, info=node, node=node, env=env)
        return Target("dim", node.name, node.name_span, info=env.dims.get(node.name),
                      node=node, env=env)
    if isinstance(node, S.ConstDecl):
        return Target("const", node.name, node.name_span, info=env.consts.get(node.name),
                      node=node, env=env, key=(os.path.abspath(env.path), node.name))
    info = env.models.get(node.name)
    return Target("model", node.name, node.name_span, info=info, node=node, env=env)


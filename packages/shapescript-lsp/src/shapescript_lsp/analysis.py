"""The editor's questions, answered from a checked file.

Everything here is a plain function of a ``Document`` (a file's text, its checker and its
last ``Program``) and a position, returning ``lsprotocol`` values; the server only wires
them to requests. It stands on ``shapescript.api`` alone.

Positions: the editor counts lines and characters from 0, ShapeScript from 1; this file
converts at the edges (characters are code points: ShapeScript source outside comments
and strings is ASCII, where code points and UTF-16 units agree).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

from lsprotocol import types as lsp

from shapescript import api
from shapescript.api import syntax as S

# -- documents ---------------------------------------------------------------------------


def uri_to_path(uri: str) -> str:
    """A ``file:`` URI's path (other schemes: the URI itself, as a name)."""
    parsed = urlparse(uri)
    if parsed.scheme != "file":
        return uri
    return unquote(parsed.path)


def path_to_uri(path: str) -> str:
    """The URI of a file ShapeScript names (prelude names become their files)."""
    real = api.prelude_file(path) or path
    if real.startswith("<") or "://" in real:
        return real
    return Path(os.path.abspath(real)).as_uri()


@dataclass
class Document:
    """One open file: its text, its incremental checker and its last check."""

    uri: str
    text: str = ""
    version: int | None = None
    checker: Any = None
    program: Any = None
    # The last check whose main module exists (kept while the text doesn't parse at
    # all, so completion still knows the file's names).
    good: Any = None
    line_starts: list[int] = field(default_factory=list)

    @property
    def path(self) -> str:
        return uri_to_path(self.uri)

    def update(self, text: str) -> Any:
        """Checks ``text``, reusing what the last version's check can."""
        if self.checker is None:
            self.checker = api.IncrementalChecker(self.path)
        self.text = text
        starts = [0]
        for m in re.finditer("\n", text):
            starts.append(m.end())
        self.line_starts = starts
        self.program = self.checker.update(text)
        if self.program.main is not None:
            self.good = self.program
        return self.program

    @property
    def module(self) -> Any:
        """The checked main module of the current text (None when nothing parsed)."""
        p = self.program
        return None if p is None or p.main is None else p.main

    @property
    def known(self) -> Any:
        """The current checked module, else the last one there was (for completion
        while the file doesn't parse at all)."""
        if self.module is not None:
            return self.module
        p = self.good
        return None if p is None or p.main is None else p.main

    def slice(self, span: Any) -> str:
        """The text of ``span`` in this file, by its lines and columns."""
        return _slice(self.text, self.line_starts, span)


def _slice(text: str, starts: list[int], span: Any) -> str:
    if span.line - 1 >= len(starts) or span.end_line - 1 >= len(starts):
        return ""
    a = starts[span.line - 1] + span.col - 1
    b = starts[span.end_line - 1] + span.end_col - 1
    return text[a:b]


@lru_cache(maxsize=8)
def _file_text(path: str) -> tuple[str, list[int]]:
    real = api.prelude_file(path) or path
    try:
        text = Path(real).read_text(encoding="utf-8")
    except OSError:
        text = ""
    starts = [0] + [m.end() for m in re.finditer("\n", text)]
    return text, starts


def source_of(doc: Document, path: str, span: Any) -> str:
    """The text of ``span`` in the file ``path`` (this document, or a file on disk)."""
    if os.path.abspath(path) == os.path.abspath(doc.path) and not path.startswith("<"):
        return doc.slice(span)
    text, starts = _file_text(path)
    return _slice(text, starts, span)


def lsp_range(line: int, col: int, end_line: int, end_col: int) -> lsp.Range:
    return lsp.Range(lsp.Position(max(line - 1, 0), max(col - 1, 0)),
                     lsp.Position(max(end_line - 1, 0), max(end_col - 1, 0)))


def span_range(span: Any) -> lsp.Range:
    return lsp_range(span.line, span.col, span.end_line, span.end_col)


def span_location(span: Any) -> lsp.Location:
    return lsp.Location(path_to_uri(span.file), span_range(span))


# -- diagnostics ---------------------------------------------------------------------------


def explain_uri(code: str) -> str | None:
    """The ``file:`` URI of a code's explain page (what ``shapescript explain`` prints)."""
    import shapescript

    page = Path(shapescript.__file__).parent / "explanations" / f"{code}.md"
    return page.as_uri() if page.is_file() else None


def diagnostics(doc: Document) -> list[lsp.Diagnostic]:
    """The file's diagnostics, in the editor's terms: the primary label's message joins
    the message, secondary labels are related locations, help and notes follow."""
    program = doc.program
    if program is None:
        return []
    here = os.path.abspath(doc.path)
    out = []
    for d in program.diagnostics:
        if d.file != doc.path and os.path.abspath(d.file) != here:
            continue
        message = d.message
        primary = d.labels[0].message if d.labels else ""
        if primary:
            message += f"\n{primary}"
        if d.help:
            message += f"\nhelp: {d.help}"
        for note in d.notes:
            message += f"\nnote: {note}"
        related = [
            lsp.DiagnosticRelatedInformation(
                lsp.Location(path_to_uri(lb.file),
                             lsp_range(lb.line, lb.column, lb.end_line, lb.end_column)),
                lb.message or "related")
            for lb in d.labels[1:]]
        href = explain_uri(d.code)
        out.append(lsp.Diagnostic(
            range=lsp_range(d.line, d.column, d.end_line, max(d.end_column, d.column + 1)
                            if d.end_line == d.line else d.end_column),
            message=message,
            severity=lsp.DiagnosticSeverity.Error if d.is_error else lsp.DiagnosticSeverity.Warning,
            code=d.code,
            code_description=lsp.CodeDescription(href) if href else None,
            source="shapescript",
            related_information=related or None,
            data={"help": d.help} if d.help else None,
        ))
    return out


_AS_HELP = re.compile(r"assert (?:its|the) \w+ with `as ([^`]+)`")
_WRITE_HELP = re.compile(r"^write `([^`…]+)`$")
_ADD_HELP = re.compile(r"^add `([^`]+)` before")


def quick_fixes(doc: Document, params: lsp.CodeActionParams) -> list[lsp.CodeAction]:
    """A quick fix for each diagnostic in range whose help names an edit: ``as T`` to
    assert a type, ``write X`` to replace the marked text, ``add X before`` to insert."""
    actions = []
    for diag in params.context.diagnostics:
        help_text = (diag.data or {}).get("help") if isinstance(diag.data, dict) else None
        if not help_text:
            continue
        edit: lsp.TextEdit | None = None
        title = ""
        r = diag.range
        if m := _AS_HELP.search(help_text):
            text = f" as {m.group(1)}"
            edit = lsp.TextEdit(lsp.Range(r.end, r.end), text)
            title = f"Assert with `as {m.group(1)}`"
        elif m := _WRITE_HELP.match(help_text):
            edit = lsp.TextEdit(r, m.group(1))
            title = f"Write `{m.group(1)}`"
        elif m := _ADD_HELP.match(help_text):
            edit = lsp.TextEdit(lsp.Range(r.start, r.start), m.group(1))
            title = f"Add `{m.group(1)}`"
        if edit is None:
            continue
        actions.append(lsp.CodeAction(
            title=title, kind=lsp.CodeActionKind.QuickFix, diagnostics=[diag],
            is_preferred=True,
            edit=lsp.WorkspaceEdit(changes={doc.uri: [edit]})))
    return actions


# -- what is at a position ----------------------------------------------------------------


@dataclass
class Target:
    """What a name at a position means."""

    kind: str  # fn, dim, alias, model, field, local, axis, pymod
    name: str
    decl_span: Any = None  # where it is declared (its name), when known
    owner: Any = None  # the enclosing fn declaration (locals, axes)
    info: Any = None  # FnSig, ModelInfo, FieldInfo, the dim's value …
    node: Any = None  # the node at the position
    env: Any = None  # the module environment that declares it


def at(doc: Document, pos: lsp.Position) -> list[Any]:
    cm = doc.module
    if cm is None:
        return []
    return api.nodes_at(cm.env.module, pos.line + 1, pos.character + 1)


def _enclosing_fn(path: list[Any]) -> Any:
    for n in path:
        if isinstance(n, (S.FnDecl, S.ExternDecl)):
            return n
    return None


def _name_span_of_param(p: Any) -> Any:
    sp = p.span
    return type(sp)(sp.file, sp.line, sp.col, sp.line, sp.col + len(p.name), sp.start,
                    sp.start + len(p.name))


def _body(fn: Any) -> tuple[Any, ...]:
    """A function's statements (or its ``= expr``), as a tuple; none for an extern."""
    body = getattr(fn, "body", None)
    if body is None:
        return ()
    return body if isinstance(body, tuple) else (body,)


def _local_decl(fn: Any, name: str) -> Any:
    """Where a local of ``fn`` is first bound: a parameter, an assignment, a loop."""
    if fn is None:
        return None
    for p in fn.params:
        if p.name == name:
            return _name_span_of_param(p)
    body = _body(fn)
    for n in api.walk(body):
        if isinstance(n, S.Assign):
            for t in n.targets:
                if isinstance(t, S.Name) and t.id == name:
                    return t.span
        elif isinstance(n, S.For):
            for t, sp in zip(n.targets, n.target_spans):
                if t == name:
                    return sp
        elif isinstance(n, S.Lambda) and name in n.params:
            sp = n.span
            return type(sp)(sp.file, sp.line, sp.col, sp.line, sp.col + len(name))
    return None


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
    for n in api.walk(_body(fn)):
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
    fn = _enclosing_fn(path)
    line, col = pos.line + 1, pos.character + 1
    if isinstance(node, (S.FnDecl, S.ExternDecl, S.DimDecl, S.ModelDecl)) and \
            api.span_contains(node.name_span, line, col):
        return _decl_target(env, node)
    if isinstance(node, S.Param):
        if api.span_contains(_name_span_of_param(node), line, col):
            return Target("local", node.name, _name_span_of_param(node), owner=fn, node=node)
        return None
    if isinstance(node, S.ParamField):
        model = next((n for n in path if isinstance(n, S.ModelDecl)), None)
        info = env.model(model.name) if model else None
        finfo = info.fields.get(node.name) if info else None
        return Target("field", node.name, node.span, info=finfo, node=node, env=env)
    if isinstance(node, S.Name):
        res = cm.res.get(id(node))
        kind = getattr(res, "kind", None)
        name = node.id
        if kind == "fn" or (kind is None and env.fn(name) is not None
                            and _local_decl(fn, name) is None):
            sig = env.fn(name)
            if sig is not None:
                return Target("fn", name, sig.decl.name_span, info=sig, node=node,
                              env=sig.module)
        if kind == "dim" or (kind is None and env.dim_origin(name) is not None):
            return _dim_target(env, name, node, fn)
        if kind == "model" or (kind is None and env.model(name) is not None):
            info = env.model(name)
            if info is not None:
                return Target("model", name, info.decl.name_span, info=info, node=node)
        if kind == "pymod":
            return Target("pymod", name, None, info=getattr(res, "value", None), node=node)
        if kind == "generic":
            return Target("axis", name, _axis_decl(fn, name) if fn else None, owner=fn,
                          node=node)
        decl = _local_decl(fn, name)
        if decl is not None:
            return Target("local", name, decl, owner=fn, node=node)
        return None
    if isinstance(node, (S.SizeName, S.PatName)):
        name = node.name if not getattr(node, "module", None) else f"{node.module}.{node.name}"
        return _dim_target(env, name, node, fn)
    if isinstance(node, S.SpecialTypeExpr):
        return Target("axis", node.name, node.span, owner=fn, node=node)
    if isinstance(node, (S.NamedTypeExpr, S.TensorTypeExpr)):
        name = node.name if isinstance(node, S.NamedTypeExpr) else node.alias
        if name:
            info = env.model(name)
            if info is not None:
                return Target("model", name, info.decl.name_span, info=info, node=node)
            found = env.alias(name)
            if found is not None:
                return Target("alias", name, found[1].name_span, info=found[1], node=node,
                              env=found[0])
        return None
    if isinstance(node, S.Attr):
        vt = cm.types.get(id(node.value))
        model = getattr(vt, "name", None) if type(vt).__name__ == "ModelType" else None
        if model is not None:
            info = env.model(model)
            finfo = info.fields.get(node.attr) if info else None
            if finfo is not None:
                return Target("field", node.attr, finfo.decl.span, info=finfo, node=node)
    return None


def _decl_target(env: Any, node: Any) -> Target:
    if isinstance(node, (S.FnDecl, S.ExternDecl)):
        sig = env.fns.get(node.name)
        return Target("fn", node.name, node.name_span, info=sig, node=node, env=env)
    if isinstance(node, S.DimDecl):
        if node.shape is not None:
            return Target("alias", node.name, node.name_span, info=node, node=node, env=env)
        return Target("dim", node.name, node.name_span, info=env.dims.get(node.name),
                      node=node, env=env)
    info = env.models.get(node.name)
    return Target("model", node.name, node.name_span, info=info, node=node, env=env)


# -- hover -----------------------------------------------------------------------------------


def signature_text(doc: Document, sig: Any) -> str:
    """``fn name(params) -> T`` as declared, on one line."""
    decl = sig.decl
    end = decl.ret.span if decl.ret is not None else (
        decl.params[-1].span if decl.params else decl.name_span)
    span = type(decl.span)(decl.span.file, decl.span.line, decl.span.col, end.end_line,
                           end.end_col)
    text = source_of(doc, sig.file, span)
    if not text:
        params = ", ".join(f"{p.name}: {p.written}" if p.written else p.name for p in sig.params)
        text = f"fn {sig.name}({params})" + (f" -> {sig.ret}" if sig.ret is not None else "")
    else:
        if decl.ret is None and decl.params:
            text += ")"
    text = re.sub(r"\s*\n\s*", " ", text)
    if sig.is_extern and f'"{sig.extern}"' not in text:
        text += f' = "{sig.extern}"'
    return text


def _md(code: str, doc_text: str | None = None, where: str | None = None) -> str:
    out = f"```shapescript\n{code}\n```"
    if doc_text:
        out += f"\n\n{doc_text}"
    if where:
        out += f"\n\n*{where}*"
    return out


def _where(path: str) -> str | None:
    if path.startswith("<"):
        return f"from the prelude ({path[1:-1]})"
    return None


def hover(doc: Document, pos: lsp.Position) -> lsp.Hover | None:
    cm = doc.module
    if cm is None:
        return None
    path = at(doc, pos)
    if not path:
        return None
    target = target_at(doc, pos)
    node = path[-1]
    text = None
    if target is not None:
        text = _hover_target(doc, target, cm)
    if text is None:
        for n in reversed(path):
            t = cm.types.get(id(n))
            if t is not None and str(t) != "<error>":
                text = _md(str(t))
                node = n
                break
    if text is None:
        return None
    return lsp.Hover(lsp.MarkupContent(lsp.MarkupKind.Markdown, text), span_range(node.span))


def _type_of_local(cm: Any, target: Target) -> Any:
    node = target.node
    t = cm.types.get(id(node)) if node is not None else None
    if t is not None:
        return t
    fn = target.owner
    if fn is not None:
        sig = cm.env.fns.get(fn.name)
        if sig is not None:
            for ps in sig.params:
                if ps.name == target.name and ps.type is not None:
                    return ps.type
    return None


def _hover_target(doc: Document, target: Target, cm: Any) -> str | None:
    k = target.kind
    if k == "fn" and target.info is not None:
        sig = target.info
        return _md(signature_text(doc, sig), getattr(sig.decl, "doc", None), _where(sig.file))
    if k == "dim":
        decl = target.env.dim_decls.get(target.name.split(".")[-1]) if target.env else None
        value = target.info
        return _md(f"dim {target.name} = {value}", decl.doc if decl else None,
                   _where(target.env.path) if target.env else None)
    if k == "alias":
        decl = target.info
        shape = source_of(doc, decl.span.file, decl.shape.span) if decl.shape else ""
        return _md(f"dim {target.name} = {shape}", decl.doc)
    if k == "model" and target.info is not None:
        info = target.info
        fields = "\n".join(f"    param {f.name}: {f.type}" for f in info.fields.values())
        return _md(f"model {info.name}:\n{fields}" if fields else f"model {info.name}",
                   info.decl.doc)
    if k == "field" and target.info is not None:
        f = target.info
        return _md(f"param {f.name}: {f.type}", f.decl.doc)
    if k == "local":
        t = _type_of_local(cm, target)
        return _md(f"{target.name}: {t}" if t is not None else target.name)
    if k == "axis":
        return _md(f"axis {target.name}",
                   "A generic axis: its size is whatever the arguments bring, the same "
                   "wherever it appears in the signature.")
    if k == "pymod":
        return _md(f"import python {target.info or target.name}",
                   "A Python module: its values are untyped until `as` gives them a type.")
    return None


# -- definition and references ------------------------------------------------------------


def definition(doc: Document, pos: lsp.Position) -> list[lsp.Location]:
    target = target_at(doc, pos)
    if target is None or target.decl_span is None:
        return []
    return [span_location(target.decl_span)]


def references(doc: Document, pos: lsp.Position, include_declaration: bool) -> list[lsp.Location]:
    """Every use in this file of the name at ``pos`` (and its declaration, if asked)."""
    cm = doc.module
    target = target_at(doc, pos)
    if cm is None or target is None:
        return []
    out: list[Any] = []
    decl = target.decl_span
    same_file = decl is not None and (decl.file == doc.path)
    if include_declaration and decl is not None:
        out.append(decl)
    scope: Any = cm.env.module.decls
    if target.kind in ("local", "axis") and target.owner is not None:
        scope = (target.owner,)
    for n in api.walk(tuple(scope)):
        sp = None
        if isinstance(n, S.Name) and n.id == target.name:
            if target.kind in ("fn", "dim", "model", "local", "pymod", "axis", "alias"):
                res = cm.res.get(id(n))
                kind = getattr(res, "kind", None)
                if target.kind == "local" and kind not in (None, "local"):
                    continue
                if target.kind == "fn" and kind not in (None, "fn"):
                    continue
                sp = n.span
        elif isinstance(n, (S.SizeName, S.PatName)) and target.kind in ("dim", "axis", "alias"):
            full = n.name if not getattr(n, "module", None) else f"{n.module}.{n.name}"
            if full == target.name:
                sp = n.span
        elif isinstance(n, S.SpecialTypeExpr) and target.kind == "axis" and n.name == target.name:
            sp = n.span
        elif isinstance(n, (S.NamedTypeExpr,)) and n.name == target.name:
            sp = n.span
        elif isinstance(n, S.TensorTypeExpr) and n.alias == target.name:
            sp = type(n.span)(n.span.file, n.span.line, n.span.col, n.span.line,
                              n.span.col + len(target.name))
        elif isinstance(n, S.Attr) and target.kind == "field" and n.attr == target.name:
            sp = type(n.span)(n.span.file, n.span.end_line, n.span.end_col - len(n.attr),
                              n.span.end_line, n.span.end_col)
        elif isinstance(n, S.Param) and target.kind == "local" and n.name == target.name:
            continue  # the declaration itself
        if sp is not None and not (same_file and decl is not None and
                                   (sp.line, sp.col) == (decl.line, decl.col)):
            out.append(sp)
    return [span_location(sp) for sp in out]


# -- completion ----------------------------------------------------------------------------

KEYWORDS = ("fn", "export", "extern", "dim", "model", "param", "import", "python", "from",
            "as", "to", "return", "if", "elif", "else", "for", "in", "with", "and", "or",
            "not", "over", "True", "False", "None", "devices")
BUILTINS = ("add", "sub", "mul", "div", "maximum", "minimum", "where", "matmul", "sum",
            "mean", "max", "min", "prod", "var", "std", "logsumexp", "argmax", "argmin",
            "cross_entropy", "topk", "rearrange", "reduce", "repeat", "einsum", "stack",
            "concat", "split", "map", "print", "zeros", "ones", "eye", "arange", "causal",
            "randn", "rand", "full")
PATTERN_CALLS = ("rearrange", "reduce", "repeat", "einsum")


def _line_prefix(doc: Document, pos: lsp.Position) -> str:
    if pos.line >= len(doc.line_starts):
        return ""
    start = doc.line_starts[pos.line]
    return doc.text[start:start + pos.character]


def _fn_at_line(cm: Any, line: int) -> Any:
    for d in cm.env.module.decls:
        if isinstance(d, (S.FnDecl, S.ExternDecl)) and d.span.line <= line <= d.span.end_line:
            return d
    return None


def _axes_in(cm: Any, fn: Any) -> list[str]:
    """The axis labels a function's types mention (its signature and its body)."""
    names: list[str] = []
    if fn is None:
        return names
    for n in api.walk((fn,)):
        if isinstance(n, (S.SizeName, S.PatName)) and n.name not in names:
            names.append(n.name)
        t = cm.types.get(id(n))
        for ax in getattr(t, "axes", ()) or ():
            if not getattr(ax, "variadic", False):
                label = str(ax.label)
                if re.fullmatch(r"[A-Za-z_][\w.]*", label) and label not in names:
                    names.append(label)
    return names


def _axes_in_text(before: str) -> list[str]:
    """The axis names in the brackets of the last signature above the cursor (for a
    function that doesn't parse yet)."""
    k = max(before.rfind("\nfn "), before.rfind("\nexport fn "), before.rfind("\nextern fn "))
    text = before[k + 1:] if k >= 0 else before
    names: list[str] = []
    for group in re.findall(r"\[([^\]]*)\]", text):
        for name in re.findall(r"[A-Za-z_]\w*", group):
            if name not in names:
                names.append(name)
    return names


def _unclosed(prefix: str) -> tuple[str | None, int, str]:
    """The innermost bracket still open in ``prefix``: its kind, its position, and the
    name right before it."""
    depth = 0
    for i in range(len(prefix) - 1, -1, -1):
        c = prefix[i]
        if c in ")]":
            depth += 1
        elif c in "([":
            if depth == 0:
                m = re.search(r"([A-Za-z_][\w.]*)\s*$", prefix[:i])
                return c, i, m.group(1) if m else ""
            depth -= 1
    return None, -1, ""


def _text_before(doc: Document, pos: lsp.Position, lines: int = 12) -> str:
    """The text from a few lines above the cursor up to it (calls span lines)."""
    first = max(0, pos.line - lines)
    a = doc.line_starts[first] if first < len(doc.line_starts) else 0
    b = (doc.line_starts[pos.line] + pos.character) if pos.line < len(doc.line_starts) else len(doc.text)
    return doc.text[a:b]


def completion(doc: Document, pos: lsp.Position) -> lsp.CompletionList:
    cm = doc.known
    items: list[lsp.CompletionItem] = []
    seen: set[str] = set()

    def add(label: str, kind: lsp.CompletionItemKind, detail: str | None = None,
            documentation: str | None = None) -> None:
        if label in seen:
            return
        seen.add(label)
        items.append(lsp.CompletionItem(
            label=label, kind=kind, detail=detail,
            documentation=lsp.MarkupContent(lsp.MarkupKind.Markdown, documentation)
            if documentation else None))

    if cm is None:
        for k in KEYWORDS:
            add(k, lsp.CompletionItemKind.Keyword)
        return lsp.CompletionList(is_incomplete=False, items=items)
    env = cm.env
    prefix = _line_prefix(doc, pos)
    before = _text_before(doc, pos)
    fn = _fn_at_line(cm, pos.line + 1)

    def add_dims() -> None:
        for name, value in env.all_dims().items():
            decl = env.dim_decls.get(name)
            add(name, lsp.CompletionItemKind.Constant, f"dim {name} = {value}",
                decl.doc if decl else None)

    def add_axes() -> None:
        names = _axes_in(cm, fn) if fn is not None else _axes_in_text(before)
        for name in names:
            if env.dim_origin(name) is None:
                add(name, lsp.CompletionItemKind.TypeParameter, "axis")

    # `model_value.` → the model's fields; `module.` → its public names.
    m = re.search(r"([A-Za-z_]\w*)\.(\w*)$", prefix)
    if m:
        base = m.group(1)
        info = None
        if fn is not None:
            for n in api.walk((fn,)):
                if isinstance(n, S.Name) and n.id == base:
                    t = cm.types.get(id(n))
                    if type(t).__name__ == "ModelType":
                        info = env.model(t.name)
                        break
            if info is None:
                sig = env.fns.get(fn.name)
                for ps in (sig.params if sig else []):
                    if ps.name == base and type(ps.type).__name__ == "ModelType":
                        info = env.model(ps.type.name)
        if info is not None:
            for f in info.fields.values():
                add(f.name, lsp.CompletionItemKind.Field, str(f.type), f.decl.doc)
            return lsp.CompletionList(is_incomplete=False, items=items)
        sub = env.ssmods.get(base)
        if sub is not None:
            for name in list(sub.fns) + list(sub.dims) + list(sub.models) + list(sub.aliases):
                if sub.public(name):
                    add(name, lsp.CompletionItemKind.Function if name in sub.fns
                        else lsp.CompletionItemKind.Constant)
            return lsp.CompletionList(is_incomplete=False, items=items)
        if base in env.pymods:
            return lsp.CompletionList(is_incomplete=True, items=[])

    # `over=` → the axes in scope, dims first.
    if re.search(r"\bover\s*=\s*\(?[\w\s]*$", prefix):
        add_axes()
        add_dims()
        return lsp.CompletionList(is_incomplete=False, items=items)
    kind, _, callee = _unclosed(before)
    # Inside a pattern: `rearrange(x, b (h w) -> …`, `einsum(a, b: …`.
    if kind == "(" and callee in PATTERN_CALLS:
        tail = before[before.rfind("(") + 1:] if "(" in before else before
        if "->" in tail or (callee == "einsum" and ":" in tail) or \
                re.search(r",\s*[\w\s()]*$", tail):
            add_axes()
            add_dims()
            if items:
                return lsp.CompletionList(is_incomplete=False, items=items)
    # Inside a type's brackets: dims, aliases and the function's axes.
    if kind == "[" and (re.search(r"(:|->)\s*[\w\s.*+/()-]*\[[^\]]*$", before)
                        or re.search(r"\b(dim\s+\w+\s*=\s*|zeros|ones|eye|causal|randn|rand|full|arange)\s*\[[^\]]*$", before)):
        add_dims()
        add_axes()
        for name in env.aliases:
            add(name, lsp.CompletionItemKind.Interface, "shape")
        return lsp.CompletionList(is_incomplete=False, items=items)

    # Everything else: names in scope.
    if fn is not None:
        for p in fn.params:
            sig = env.fns.get(fn.name)
            ps = next((q for q in (sig.params if sig else []) if q.name == p.name), None)
            add(p.name, lsp.CompletionItemKind.Variable, ps.written if ps else None)
        body = _body(fn)
        for n in api.walk(body):
            if isinstance(n, S.Assign) and n.span.line <= pos.line + 1:
                for t in n.targets:
                    if isinstance(t, S.Name):
                        tt = cm.types.get(id(t))
                        add(t.id, lsp.CompletionItemKind.Variable, str(tt) if tt else None)
            elif isinstance(n, S.For):
                for t in n.targets:
                    add(t, lsp.CompletionItemKind.Variable)
    for name, sig in env.fns.items():
        add(name, lsp.CompletionItemKind.Function, signature_text(doc, sig), sig.decl.doc)
    for local, (sub, orig) in env.imported.items():
        if orig in sub.fns:
            add(local, lsp.CompletionItemKind.Function, None, sub.fns[orig].decl.doc)
    for name, info in env.models.items():
        add(name, lsp.CompletionItemKind.Class, "model", info.decl.doc)
    add_dims()
    for name in env.aliases:
        add(name, lsp.CompletionItemKind.Interface, "shape")
    for name in list(env.ssmods) + list(env.pymods):
        add(name, lsp.CompletionItemKind.Module)
    prelude = env.prelude
    while prelude is not None:
        for name, sig in prelude.fns.items():
            add(name, lsp.CompletionItemKind.Function, signature_text(doc, sig), sig.decl.doc)
        prelude = prelude.prelude
    for name in BUILTINS:
        add(name, lsp.CompletionItemKind.Function, "built-in")
    for k in KEYWORDS:
        add(k, lsp.CompletionItemKind.Keyword)
    return lsp.CompletionList(is_incomplete=False, items=items)


# -- signature help -----------------------------------------------------------------------


def signature_help(doc: Document, pos: lsp.Position) -> lsp.SignatureHelp | None:
    """The signature of the call the cursor is in, by the text before the cursor (so it
    works while the call is half typed), with the argument under the cursor active."""
    cm = doc.module
    if cm is None:
        return None
    before = _text_before(doc, pos)
    # Skip calls closed before the cursor, and bracket groups inside the call.
    depth = 0
    commas = 0
    callee = None
    for i in range(len(before) - 1, -1, -1):
        c = before[i]
        if c in ")]":
            depth += 1
        elif c == "[":
            depth = max(depth - 1, 0) if depth else depth
        elif c == "(":
            if depth == 0:
                m = re.search(r"([A-Za-z_]\w*)\s*$", before[:i])
                if m is None:
                    commas = 0
                    continue
                callee = m.group(1)
                piped = bool(re.search(r"\|>\s*$", before[:m.start()]))
                args_text = before[i + 1:]
                break
            depth -= 1
        elif c == "," and depth == 0:
            commas += 1
    if callee is None:
        return None
    sig = cm.env.fn(callee)
    if sig is None:
        return None
    params = [lsp.ParameterInformation(label=f"{p.name}: {p.written}" if p.written else p.name)
              for p in sig.params]
    active = commas + (1 if piped else 0)
    m = re.search(r"(?:^|,)\s*([A-Za-z_]\w*)\s*=[^=]*$", args_text)
    if m is not None:
        for k, p in enumerate(sig.params):
            if p.name == m.group(1):
                active = k
    info = lsp.SignatureInformation(
        label=signature_text(doc, sig),
        documentation=lsp.MarkupContent(lsp.MarkupKind.Markdown, sig.decl.doc)
        if sig.decl.doc else None,
        parameters=params)
    # Parameter labels as offsets into the signature's label, so editors underline them.
    label = info.label
    offsets = []
    search_from = label.find("(") + 1
    for p in sig.params:
        k = label.find(p.name, search_from)
        if k < 0:
            offsets = []
            break
        end = label.find(",", k)
        close = _param_end(label, k)
        offsets.append((k, close))
        search_from = close
    if offsets:
        info.parameters = [lsp.ParameterInformation(label=o) for o in offsets]
    return lsp.SignatureHelp(signatures=[info], active_signature=0,
                             active_parameter=min(active, max(len(sig.params) - 1, 0)))


def _param_end(label: str, k: int) -> int:
    depth = 0
    for i in range(k, len(label)):
        c = label[i]
        if c in "([":
            depth += 1
        elif c in ")]":
            if depth == 0:
                return i
            depth -= 1
        elif c == "," and depth == 0:
            return i
    return len(label)


# -- inlay hints, symbols, semantic tokens ------------------------------------------------


def inlay_hints(doc: Document, rng: lsp.Range) -> list[lsp.InlayHint]:
    """The inferred type after each assigned name (unless the assignment writes one)."""
    cm = doc.module
    if cm is None:
        return []
    lo, hi = rng.start.line + 1, rng.end.line + 1
    out = []
    for d in cm.env.module.decls:
        if not isinstance(d, S.FnDecl) or d.span.end_line < lo or d.span.line > hi:
            continue
        body = d.body if isinstance(d.body, tuple) else ()
        for n in api.walk(body):
            if not isinstance(n, S.Assign) or n.annotation is not None:
                continue
            if not lo <= n.span.line <= hi:
                continue
            for t in n.targets:
                if not isinstance(t, S.Name):
                    continue
                tt = cm.types.get(id(t))
                if tt is None and len(n.targets) == 1:
                    tt = cm.types.get(id(n.value))
                if tt is None or str(tt) in ("?", ""):
                    continue
                out.append(lsp.InlayHint(
                    position=lsp.Position(t.span.end_line - 1, t.span.end_col - 1),
                    label=f": {tt}", kind=lsp.InlayHintKind.Type, padding_left=False))
    return out


def document_symbols(doc: Document) -> list[lsp.DocumentSymbol]:
    cm = doc.module
    if cm is None:
        return []
    out = []
    env = cm.env
    K = lsp.SymbolKind
    for d in env.module.decls:
        if isinstance(d, (S.FnDecl, S.ExternDecl)):
            sig = env.fns.get(d.name)
            children = [lsp.DocumentSymbol(name=p.name, kind=K.Variable, range=span_range(p.span),
                                           selection_range=span_range(_name_span_of_param(p)),
                                           detail=ps.written if ps else None)
                        for p, ps in zip(d.params, sig.params if sig else [None] * len(d.params))]
            detail = signature_text(doc, sig) if sig else None
            out.append(lsp.DocumentSymbol(name=d.name, kind=K.Function, range=span_range(d.span),
                                          selection_range=span_range(d.name_span), detail=detail,
                                          children=children))
        elif isinstance(d, S.DimDecl):
            detail = (f"= {env.dims[d.name]}" if d.name in env.dims else
                      f"= {doc.slice(d.shape.span)}" if d.shape is not None else None)
            out.append(lsp.DocumentSymbol(name=d.name, kind=K.Constant if d.shape is None
                                          else K.Interface, range=span_range(d.span),
                                          selection_range=span_range(d.name_span), detail=detail))
        elif isinstance(d, S.ModelDecl):
            info = env.models.get(d.name)
            children = []
            for f in d.fields:
                fi = info.fields.get(f.name) if info else None
                children.append(lsp.DocumentSymbol(
                    name=f.name, kind=K.Field, range=span_range(f.span),
                    selection_range=span_range(f.span), detail=str(fi.type) if fi else None))
            out.append(lsp.DocumentSymbol(name=d.name, kind=K.Class, range=span_range(d.span),
                                          selection_range=span_range(d.name_span),
                                          children=children))
    return out


TOKEN_TYPES = ["function", "parameter", "variable", "type", "typeParameter", "class",
               "property", "namespace"]
TOKEN_MODIFIERS = ["declaration", "readonly", "defaultLibrary"]
LEGEND = lsp.SemanticTokensLegend(token_types=TOKEN_TYPES, token_modifiers=TOKEN_MODIFIERS)


def semantic_tokens(doc: Document) -> lsp.SemanticTokens:
    """Names coloured by what they are: dims (``type``, read-only) apart from generic
    axes (``typeParameter``) apart from values (``variable``/``parameter``), functions,
    models and fields."""
    cm = doc.module
    if cm is None:
        return lsp.SemanticTokens(data=[])
    env = cm.env
    toks: list[tuple[int, int, int, int, int]] = []
    DECL, RO, LIB = 1, 2, 4

    def put(line: int, col: int, length: int, ttype: str, mods: int = 0) -> None:
        if length > 0:
            toks.append((line - 1, col - 1, length, TOKEN_TYPES.index(ttype), mods))

    def size_kind(name: str) -> tuple[str, int]:
        if env.dim_origin(name) is not None:
            return "type", RO
        if env.alias(name) is not None:
            return "type", 0
        return "typeParameter", 0

    for d in env.module.decls:
        params: set[str] = set()
        if isinstance(d, (S.FnDecl, S.ExternDecl)):
            put(d.name_span.line, d.name_span.col, len(d.name), "function", DECL)
            for p in d.params:
                params.add(p.name)
                put(p.span.line, p.span.col, len(p.name), "parameter", DECL)
        elif isinstance(d, S.DimDecl):
            put(d.name_span.line, d.name_span.col, len(d.name), "type",
                DECL | (RO if d.shape is None else 0))
        elif isinstance(d, S.ModelDecl):
            put(d.name_span.line, d.name_span.col, len(d.name), "class", DECL)
            for f in d.fields:
                put(f.span.line, f.span.col + len("param "), len(f.name), "property", DECL)
        for n in api.walk((d,)):
            if isinstance(n, S.Name):
                res = cm.res.get(id(n))
                kind = getattr(res, "kind", None)
                if kind == "fn":
                    sig = getattr(res, "sig", None) or env.fn(n.id)
                    lib = LIB if sig is not None and str(sig.file).startswith("<") else 0
                    put(n.span.line, n.span.col, len(n.id), "function", lib)
                elif kind == "dim":
                    put(n.span.line, n.span.col, len(n.id), "type", RO)
                elif kind == "generic":
                    put(n.span.line, n.span.col, len(n.id), "typeParameter")
                elif kind == "model":
                    put(n.span.line, n.span.col, len(n.id), "class")
                elif kind in ("pymod", "ssmod"):
                    put(n.span.line, n.span.col, len(n.id), "namespace")
                elif kind == "local" or kind is None and n.span.end_line == n.span.line:
                    put(n.span.line, n.span.col, len(n.id),
                        "parameter" if n.id in params else "variable")
            elif isinstance(n, (S.SizeName, S.PatName)):
                name = n.name if not getattr(n, "module", None) else f"{n.module}.{n.name}"
                ttype, mods = size_kind(name)
                put(n.span.line, n.span.col, n.span.end_col - n.span.col
                    if n.span.end_line == n.span.line else len(name), ttype, mods)
            elif isinstance(n, S.Attr) and n.span.end_line == n.span.line:
                put(n.span.line, n.span.end_col - len(n.attr), len(n.attr), "property")
    toks.sort()
    data: list[int] = []
    last_line = last_col = 0
    prev_end = (-1, -1)
    for line, col, length, ttype, mods in toks:
        if (line, col) < prev_end:
            continue  # overlapping (a desugared pipe's shared node): keep the first
        dl = line - last_line
        dc = col - last_col if dl == 0 else col
        data += [dl, dc, length, ttype, mods]
        last_line, last_col = line, col
        prev_end = (line, col + length)
    return lsp.SemanticTokens(data=data)

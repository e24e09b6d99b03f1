"""Re-checking a file as it is edited, for editors: ``IncrementalChecker``.

An editor sends the whole text after every keystroke; checking a 1,000-line file from
scratch takes longer than a keystroke should. So this keeps, between two versions of
one file:

* the parse of each top-level *chunk* (a declaration with the comment lines right above
  it: a line that starts in column 1 outside any bracket starts one, as the parser
  splits a file). A chunk whose text is unchanged keeps its nodes; one below the edit
  keeps them too, its spans moved down or up by the lines the edit added or removed;
  only the edited chunks are parsed again;
* the module's environment (dims, models, signatures), while every declaration other
  than a ``fn``'s body is unchanged;
* each function body's check (types, resolutions, diagnostics), while the body's nodes
  are the ones it was checked with.

So an edit inside one function's body parses and checks that function only. An edit to
a dim, a signature, a model, an import (anything the other bodies depend on), or one
that leaves a declaration unparsable, checks the file afresh, from the chunks.

The result is the same ``Program`` that ``check_program`` gives for the text, and the
same diagnostics, sorted the same way. Modules the file imports are checked when the
file is checked afresh, and kept while their texts don't change: an editor passes
``overlay``, the texts of the files it has open with unsaved edits, and a module's
text is its overlay, else its file on disk. Moving spans is the one place
where the syntax tree is changed after parsing: only nodes this checker parsed itself,
and only their positions.
"""

from __future__ import annotations

import gc
import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from shapescript.check.body import BodyChecker, check_model_inits, dedupe
from shapescript.check.declare import declare
from shapescript.check.env import ModuleEnv
from shapescript.check.exports import check_exports
from shapescript.check.query import walk
from shapescript.check.result import CheckedModule, ExportSites, FnResult
from shapescript.diagnostics import Diagnostic, Label
from shapescript.source import Span
from shapescript.syntax import ast
from shapescript.syntax.parser import parse_file

__all__ = ["IncrementalChecker", "Overlay", "split_chunks"]

# An editor's unsaved texts: a file's absolute path → its text, or None to read it from disk.
Overlay = Callable[[str], "str | None"]

# Brackets, skipping strings and comments, to tell a continuation line from a new chunk.
_TOKENS = re.compile(r'"(?:[^"\\\n]|\\.)*"?|#[^\n]*|[()\[\]{}]')


def split_chunks(lines: list[str]) -> list[tuple[int, int]]:
    """The top-level chunks of a file given as its lines (with their line ends): each
    ``(first, end)``, 0-based and end-exclusive. A chunk starts at a line that begins in
    column 1, outside brackets, with code; the comment lines right above it belong to
    it, blank lines to the chunk before. Lines before the first chunk join it."""
    return _split(lines, 0, len(lines))[0]


def _first_code(lines: list[str], lo: int, hi: int) -> int:
    """The first line in ``lines[lo:hi]`` that starts in column 1 with code."""
    for i in range(lo, hi):
        c = lines[i][:1]
        if c and c not in " \t\r\n\f\v#":
            return i
    return hi


def _split(lines: list[str], lo: int, hi: int) -> tuple[list[tuple[int, int]], int]:
    """``split_chunks`` of ``lines[lo:hi]`` (positions in ``lines``), and the bracket
    depth after the last line."""
    starts: list[int] = []
    depth = 0
    for i in range(lo, hi):
        line = lines[i]
        c = line[:1]
        if depth == 0 and c and c not in " \t\r\n\f\v#":
            k = i
            while k > lo and lines[k - 1][:1] == "#" and (not starts or k - 1 > starts[-1]):
                k -= 1
            starts.append(k)
        if '"' not in line:
            code = line.partition("#")[0]
            opened = code.count("(") + code.count("[") + code.count("{")
            closed = code.count(")") + code.count("]") + code.count("}")
            if opened or closed:
                depth = max(0, depth + opened - closed)
        else:
            for m in _TOKENS.finditer(line):
                t = m.group()
                if t in "([{":
                    depth += 1
                elif t in ")]}":
                    depth = max(0, depth - 1)
    if not starts:
        return ([(lo, hi)] if hi > lo else []), depth
    starts[0] = lo
    return [(a, starts[j + 1] if j + 1 < len(starts) else hi)
            for j, a in enumerate(starts)], depth


@dataclass
class _Chunk:
    first: int  # 0-based line
    end: int
    text: str
    offset: int  # character offset of its first line
    decls: tuple[Any, ...]
    diagnostics: list[Diagnostic]
    doc: str | None
    doc_spans: tuple[Span, ...]
    nodes: list[Any] = field(default_factory=list)  # every node, each once
    skeleton: tuple[Any, ...] = ()  # ``_skeleton`` of its declarations
    # Characters the chunk's nodes are behind its place (an edit above it changed a
    # line's length but not the line count): moved only when something needs offsets.
    pending: int = 0
    dropped: tuple[Any, ...] = ()  # the declarations the parser dropped (``Module.dropped``)


@dataclass
class _FnCache:
    decl: Any
    types: dict[int, Any]
    res: dict[int, Any]
    diagnostics: list[Diagnostic]
    result: FnResult


@dataclass
class _State:
    env: ModuleEnv
    skeleton: tuple[Any, ...]
    comp: Any  # the compiler's loader, holding the imported modules
    load_diagnostics: list[Diagnostic]
    fns: dict[str, _FnCache] = field(default_factory=dict)
    # The declarations the skeleton was made from, kept alive so that no new node can
    # take one's ``id`` and pass for it.
    decls: tuple[Any, ...] = ()
    # Every body's types and resolutions, merged (kept up to date function by function).
    types: dict[int, Any] = field(default_factory=dict)
    res: dict[int, Any] = field(default_factory=dict)
    # The imported modules' texts as checked: absolute path → ``_stamp``.
    deps: dict[str, Any] = field(default_factory=dict)


class IncrementalChecker:
    """Checks successive versions of one file, reusing what an edit didn't touch.

    >>> ic = IncrementalChecker("model.ss")
    >>> program = ic.update("fn f(x: [n]) -> [n] = x\\n\\nfn g(x: [n]) -> [n] = x\\n")
    >>> ic.last                            # checked afresh
    'full'
    >>> program = ic.update("fn f(x: [n]) -> [n] = -x\\n\\nfn g(x: [n]) -> [n] = x\\n")
    >>> ic.last                            # only the edited function
    'incremental'

    ``overlay``, when given, is asked for the text of each module the file imports (by
    absolute path) before its file is read: an editor answers with the buffer of a file
    open with unsaved edits. A module whose text changed (on disk or in the overlay)
    makes the next ``update`` check the file afresh, even with the same text.
    """

    def __init__(self, path: str, search: list[str] | None = None,
                 overlay: Overlay | None = None) -> None:
        self.path = path
        self.search = search
        self.overlay = overlay
        self.last = "none"
        self.program: Any = None
        self._text: str | None = None
        self._lines: list[str] = []
        self._chunks: dict[tuple[int, int], _Chunk] = {}
        self._state: _State | None = None

    # -- the one entry point -------------------------------------------------------
    def update(self, text: str) -> Any:
        """The ``Program`` of ``text`` (this file's new contents). Never raises for the
        file: a checker bug is an E0000 diagnostic, as with ``check_program``."""
        if text == self._text and self.program is not None and self._deps_fresh():
            self.last = "unchanged"
            return self.program
        gc_was_on = gc.isenabled()
        gc.disable()
        try:
            program = self._update(text)
        except Exception:  # a bug here must not cost the user a checked file
            self._state = None
            self._chunks = {}
            from shapescript.compiler import check_program

            program = check_program(text, self.path, self.search)
            self.last = "full"
        finally:
            if gc_was_on:
                gc.enable()
        self._text = text
        self.program = program
        return program

    def _deps_fresh(self) -> bool:
        """Whether the imported modules' texts are still those the last check read."""
        st = self._state
        if st is None:
            return self.program is None or not self.program.dependencies
        return all(_stamp(p, self.overlay) == stamp for p, stamp in st.deps.items())

    # -- parsing, by chunks ----------------------------------------------------------
    def _update(self, text: str) -> Any:
        parts = text.split("\n")  # the parser counts lines by "\n" only
        lines = [x + "\n" for x in parts[:-1]] + [parts[-1]]
        old = self._lines
        p = 0
        n = min(len(old), len(lines))
        while p < n and old[p] == lines[p]:
            p += 1
        s = 0
        while s < n - p and old[-1 - s] == lines[-1 - s]:
            s += 1
        dl = len(lines) - len(old)
        dc = len(text) - len(self._text or "")
        old_suffix_line = len(old) - s + 1  # 1-based first line of the unchanged tail

        chunks: dict[tuple[int, int], _Chunk] = {}
        shifted: list[_Chunk] = []
        window = self._window(lines, p, s, dl)
        if window is None:  # no earlier version to reuse: every chunk is new
            lo, hi, bounds = 0, len(lines), split_chunks(lines)
        else:
            lo, hi, bounds = window
        # Chunks outside the window: their lines are unchanged, so are their texts.
        for (a, b), ch in self._chunks.items():
            if window is None:
                break
            if b <= lo:
                chunks[(a, b)] = ch
            elif a >= hi - dl:
                chunks[(a + dl, b + dl)] = ch
                if dl:
                    shifted.append(ch)
                elif dc:
                    ch.pending += dc
                    ch.offset += dc
        offset = sum(len(ln) for ln in lines[:lo]) if bounds else 0
        pos = lo
        for a, b in bounds:
            offset += sum(len(ln) for ln in lines[pos:a])
            pos = a
            ctext = "".join(lines[a:b])
            ch = self._chunks.get((a, b)) if b <= p else None
            if ch is None or ch.text != ctext:
                ch = self._parse_chunk(ctext, a, b, offset)
            chunks[(a, b)] = ch
        if shifted:
            self._shift(shifted, dl, dc, old_suffix_line)
        for ch in shifted:
            ch.first += dl
            ch.end += dl
            ch.offset += dc
        self._chunks = chunks
        self._lines = lines

        ordered = sorted(chunks.values(), key=lambda c: c.first)
        decls = tuple(d for c in ordered for d in c.decls)
        parse_diags = [d for c in ordered for d in c.diagnostics]
        doc = ordered[0].doc if ordered else None
        doc_spans = tuple(sp for c in ordered for sp in c.doc_spans)
        dropped = tuple(d for c in ordered for d in c.dropped)
        module = ast.Module(decls, self.path, doc, doc_spans, dropped)
        skeleton = tuple(k for c in ordered for k in c.skeleton)
        if not decls and any(d.is_error for d in parse_diags):
            from shapescript.compiler import Program

            self._state = None
            self.last = "full"
            return Program(None, {}, _sorted(parse_diags, self.path), {self.path: text})
        return self._check(module, skeleton, text, parse_diags)

    def _window(self, lines: list[str], p: int, s: int,
                dl: int) -> tuple[int, int, list[tuple[int, int]]] | None:
        """The lines whose chunks must be found again after an edit that kept the first
        ``p`` and last ``s`` lines: from the start of the chunk before the edit to the end
        of the chunk after it, with their chunks. None: split the whole file (no earlier
        version, or the edit leaves a bracket open, which can join chunks below)."""
        if not self._chunks:
            return None
        old_n = len(self._lines)
        first_changed = max(p - 1, 0)
        last_kept = min(old_n - s, old_n - 1)  # the first line of the unchanged tail
        lo, hi_old = None, None
        for a, b in self._chunks:
            if a <= first_changed < b:
                lo = a
            if a <= last_kept < b:
                hi_old = b
        if lo is None or hi_old is None or hi_old + dl < lo:
            return None
        hi = hi_old + dl
        bounds, depth = _split(lines, lo, hi)
        if depth or not bounds:
            return None
        # Code before the window's first declaration (the edit removed a declaration's
        # first line) belongs to the chunk above: split the whole file instead.
        for i in range(lo, _first_code(lines, lo, hi)):
            text = lines[i].strip()
            if text and not text.startswith("#"):
                return None
        return lo, hi, bounds

    def _parse_chunk(self, ctext: str, a: int, b: int, offset: int) -> _Chunk:
        parsed = parse_file(ctext, self.path)
        module, diags, dropped = parsed.module, parsed.diagnostics, parsed.dropped
        if module is None:
            decls: tuple[Any, ...] = ()
            doc, doc_spans = None, ()
        else:
            decls, doc, doc_spans = module.decls, module.doc, module.doc_spans
        nodes = list(walk(decls))
        if a or offset:
            for node in nodes:
                _move_node(node, a, offset)
            doc_spans = tuple(_move_span(sp, a, offset) for sp in doc_spans)
            dropped = tuple(replace(d, span=_move_span(d.span, a, offset)) for d in dropped)
            diags = [_move_diag(d, lambda ln: ln + a) for d in diags]
        return _Chunk(a, b, ctext, offset, decls, list(diags), doc if a == 0 else None,
                      doc_spans, nodes, _skeleton(decls), dropped=dropped)

    def _move_chunk(self, ch: _Chunk, dl: int, dc: int) -> None:
        dc += ch.pending
        ch.pending = 0
        for node in ch.nodes:
            _move_node(node, dl, dc)
        ch.doc_spans = tuple(_move_span(sp, dl, dc) for sp in ch.doc_spans)
        ch.dropped = tuple(replace(d, span=_move_span(d.span, dl, dc)) for d in ch.dropped)
        if dl:
            ch.diagnostics = [_move_diag(d, lambda ln: ln + dl) for d in ch.diagnostics]

    def _settle(self) -> None:
        """Brings every chunk's character offsets up to date (before a fresh check,
        which reads declarations' text through their offsets)."""
        for ch in self._chunks.values():
            if ch.pending:
                self._move_chunk(ch, 0, 0)

    def _shift(self, chunks: list[_Chunk], dl: int, dc: int, old_suffix_line: int) -> None:
        """Moves the chunks below an edit, and every record the last check kept that
        points at them, by ``dl`` lines and ``dc`` characters."""
        st = self._state

        def line_map(ln: int) -> int:
            return ln + dl if ln >= old_suffix_line else ln

        moved: set[int] = set()
        for ch in chunks:
            self._move_chunk(ch, dl, dc)
            for d in ch.decls:
                moved.add(id(d))
        if st is None:
            return
        for sig in st.env.fns.values():
            if id(sig.decl) in moved:
                for ps in sig.params:
                    ps.span = _move_span(ps.span, dl, dc)
        st.env.diagnostics = [_move_diag(d, line_map) for d in st.env.diagnostics]
        st.load_diagnostics = [_move_diag(d, line_map) for d in st.load_diagnostics]
        for fc in st.fns.values():
            fc.diagnostics = [_move_diag(d, line_map) for d in fc.diagnostics]
            ex = fc.result.exports
            fc.result.exports = ExportSites(
                tuple(_move_event(e, line_map, dl, dc) for e in ex.events), ex.callees)

    # -- checking ----------------------------------------------------------------------
    def _check(self, module: ast.Module, skeleton: tuple[Any, ...], text: str,
               parse_diags: list[Diagnostic]) -> Any:
        from shapescript.compiler import Program

        st = self._state
        if st is not None and st.skeleton == skeleton and self._deps_fresh():
            env = st.env
            env.module = module
            for d in module.decls:
                if isinstance(d, ast.FnDecl):
                    sig = env.fns.get(d.name)
                    if sig is not None and sig.decl is not d:
                        sig.decl = d
                        for ps, prm in zip(sig.params, d.params):
                            ps.span = prm.span
                            ps.default = prm.default
            self.last = "incremental"
        else:
            from shapescript.compiler import prelude_env

            self._settle()
            comp = _caching_compilation(self.search, self.overlay)
            comp.program.sources[self.path] = text
            key = os.path.abspath(self.path)
            comp.loading.add(key)
            try:
                env = declare(module, text, prelude_env(), comp.load)
            finally:
                comp.loading.discard(key)
            st = _State(env, skeleton, comp, list(comp.program.diagnostics),
                        decls=module.decls)
            here = os.path.abspath(self.path)
            st.deps = {k: _stamp(k, self.overlay) for k in
                       {os.path.abspath(p) for p in comp.program.modules} - {here}}
            self._state = st
            self.last = "full"

        # The merged records are shared with the programs this checker returned before:
        # only the latest program's are current.
        cm = CheckedModule(env, text, list(env.diagnostics), types=st.types, res=st.res,
                           models=env.models)
        fresh: dict[str, _FnCache] = {}
        for name, sig in env.fns.items():
            if sig.is_extern:
                continue
            fc = st.fns.get(name)
            if fc is None or fc.decl is not sig.decl:
                if fc is not None:
                    for k in fc.types:
                        st.types.pop(k, None)
                    for k in fc.res:
                        st.res.pop(k, None)
                sub = CheckedModule(env, text, [], models=env.models)
                result = BodyChecker(env, sig, sub).run()
                fc = _FnCache(sig.decl, sub.types, sub.res, sub.diagnostics, result)
                st.types.update(fc.types)
                st.res.update(fc.res)
            fresh[name] = fc
            cm.diagnostics.extend(fc.diagnostics)
            cm.fns[name] = fc.result
        st.fns = fresh
        check_model_inits(cm, env)
        check_exports(cm, env)
        cm.diagnostics = dedupe(cm.diagnostics)

        comp = st.comp
        modules = {p: m for p, m in comp.program.modules.items() if p != self.path}
        modules[self.path] = cm
        sources = dict(comp.program.sources)
        sources[self.path] = text
        diags = parse_diags + st.load_diagnostics + cm.diagnostics
        return Program(cm, modules, _sorted(diags, self.path), sources)


# -- imported modules, checked once while their files don't change ----------------------


def _stamp(path: str, overlay: Overlay | None) -> Any:
    """What tells one text of the file ``path`` from another: its overlay text, else
    its file's modification time and size (None: it can't be read)."""
    text = overlay(path) if overlay is not None else None
    if text is not None:
        return ("text", text)
    try:
        st = os.stat(path)
    except OSError:
        return None
    return ("disk", st.st_mtime_ns, st.st_size)


@dataclass
class _Imported:
    env: ModuleEnv
    files: dict[str, Any]  # absolute path → ``_stamp`` when it was checked
    modules: dict[str, CheckedModule]
    sources: dict[str, str]
    diagnostics: list[Diagnostic]

    def fresh(self, overlay: Overlay | None) -> bool:
        return all(_stamp(p, overlay) == stamp for p, stamp in self.files.items())


# By absolute path: every IncrementalChecker of the process shares them (an editor with
# several files open that import one module checks it once).
_IMPORTED: dict[str, _Imported] = {}


def _caching_compilation(search: list[str] | None, overlay: Overlay | None = None) -> Any:
    """The compiler's loader, reading a module's text from ``overlay`` first, and
    keeping each imported module's check (with the modules it imports) until one of
    their texts changes."""
    from shapescript.compiler import _Compilation

    class _Caching(_Compilation):
        def read(self, path: str) -> str:
            text = overlay(os.path.abspath(path)) if overlay is not None else None
            return super().read(path) if text is None else text

        def load(self, name: str, importer: str, span: Span) -> ModuleEnv | None:
            path = self.find(name, importer)
            key = os.path.abspath(path) if path is not None else None
            entry = _IMPORTED.get(key) if key is not None else None
            if entry is not None and entry.fresh(overlay) and key not in self.loading:
                for p, cm in entry.modules.items():
                    self.program.modules.setdefault(p, cm)
                self.program.sources.update(entry.sources)
                self.program.diagnostics.extend(entry.diagnostics)
                return entry.env
            before = set(self.program.modules)
            n_diags = len(self.program.diagnostics)
            env = super().load(name, importer, span)
            if env is not None and key is not None:
                modules = {p: cm for p, cm in self.program.modules.items() if p not in before}
                files = {}
                for p in modules:
                    stamp = _stamp(os.path.abspath(p), overlay)
                    if stamp is None:
                        return env
                    files[os.path.abspath(p)] = stamp
                if modules:
                    # The module's own diagnostics (and its imports'), not the importer's.
                    diags = [d for d in self.program.diagnostics[n_diags:] if d.file in modules]
                    _IMPORTED[key] = _Imported(env, files, modules,
                                               {p: self.program.sources[p] for p in modules
                                                if p in self.program.sources}, diags)
            return env

    return _Caching(search)


# -- moving spans --------------------------------------------------------------------


def _move_span(sp: Span, dl: int, dc: int) -> Span:
    return Span(sp.file, sp.line + dl, sp.col, sp.end_line + dl, sp.end_col, sp.start + dc,
                sp.end + dc)


_SPAN_FIELDS: dict[type, tuple[str, ...]] = {}
_set = object.__setattr__


def _move_node(node: Any, dl: int, dc: int) -> None:
    # The nodes are frozen so that no phase changes them by mistake; positions are moved
    # here, in place, so that the records keyed by ``id(node)`` stay valid.
    names = _SPAN_FIELDS.get(type(node))
    if names is None:
        names = tuple(f for f in node.__dataclass_fields__
                      if f in ("span", "name_span", "target_spans"))
        _SPAN_FIELDS[type(node)] = names
    for name in names:
        v = getattr(node, name)
        if type(v) is Span:
            _set(node, name, Span(v.file, v.line + dl, v.col, v.end_line + dl, v.end_col,
                                  v.start + dc, v.end + dc))
        elif v:
            _set(node, name, tuple(_move_span(s, dl, dc) for s in v))


def _move_diag(d: Diagnostic, line_map) -> Diagnostic:
    labels = tuple(replace(lb, line=line_map(lb.line), end_line=line_map(lb.end_line))
                   if isinstance(lb, Label) else lb for lb in d.labels)
    return replace(d, line=line_map(d.line), end_line=line_map(d.end_line), labels=labels)


def _move_event(ev: tuple, line_map, dl: int, dc: int) -> tuple:
    sp = ev[1]
    if type(sp) is Span and line_map(sp.line) != sp.line:
        return (ev[0], _move_span(sp, dl, dc)) + tuple(ev[2:])
    return ev


def _skeleton(decls: tuple[Any, ...]) -> tuple[Any, ...]:
    """What the other bodies see of some declarations: all but a ``fn``'s body, with
    positions left out (identity for the declarations kept from the last parse)."""
    out: list[Any] = []
    for d in decls:
        if isinstance(d, ast.FnDecl):
            out.append(("fn", d.name, d.export, _shape(d.params), _shape(d.ret),
                        isinstance(d.body, tuple)))
        else:
            out.append(("decl", id(d)))
    return tuple(out)


def _shape(node: Any) -> Any:
    """A node's structure without positions, to compare signatures."""
    if isinstance(node, tuple):
        return tuple(_shape(x) for x in node)
    if hasattr(node, "__dataclass_fields__"):
        return (type(node).__name__,) + tuple(
            _shape(getattr(node, f)) for f in node.__dataclass_fields__
            if f not in ("span", "name_span", "target_spans"))
    return node


def _sorted(diags: list[Diagnostic], main: str) -> list[Diagnostic]:
    seen: set[tuple] = set()
    out = []
    for d in sorted(diags, key=lambda d: (d.file != main, d.file, d.line, d.column, d.code)):
        key = (d.code, d.file, d.line, d.column, d.end_line, d.end_column, d.message)
        if key not in seen:
            seen.add(key)
            out.append(d)
    return out

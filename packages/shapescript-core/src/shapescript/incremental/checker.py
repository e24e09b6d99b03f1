"""``IncrementalChecker``: re-checks one file as it is edited, parsing only the edited
chunks and checking only the bodies whose nodes changed (the package's docstring says
what it keeps and when it checks afresh)."""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from typing import Any, Callable

from shapescript.gc_pause import paused_gc
from shapescript.check.body import check_body, check_model_inits, dedupe
from shapescript.check.declare import declare
from shapescript.check.env import ModuleEnv
from shapescript.check.exports import check_exports
from shapescript.check.query import walk
from shapescript.check.result import CheckedModule, ExportSites, FnResult, Program
from shapescript.diagnostics import Diagnostic
from shapescript.source import Span
from shapescript.incremental.chunks import Chunk, first_code, split_chunks, split_range
from shapescript.incremental.imported import Overlay, caching_compilation, text_stamp
from shapescript.incremental.skeleton import skeleton_of
from shapescript.incremental.spans import move_diag, move_event, move_node, move_span
from shapescript.syntax import ast
from shapescript.syntax.parser import parse_file


@dataclass
class _FnCache:
    decl: Any
    types: dict[ast.Node, Any]
    res: dict[ast.Node, Any]
    diagnostics: list[Diagnostic]
    result: FnResult


@dataclass
class _State:
    env: ModuleEnv
    skeleton: tuple[Any, ...] | None  # None: a one-off check's, which no check reuses
    comp: Any  # the compiler's loader, holding the imported modules
    load_diagnostics: list[Diagnostic]
    fns: dict[str, _FnCache] = field(default_factory=dict)
    # The declarations the skeleton was made from, kept alive so that no new node can
    # take one's ``id`` and pass for it.
    decls: tuple[Any, ...] = ()
    # Every body's types and resolutions, merged (kept up to date function by function).
    types: dict[ast.Node, Any] = field(default_factory=dict)
    res: dict[ast.Node, Any] = field(default_factory=dict)
    # The imported modules' texts as checked: absolute path → ``text_stamp``; None
    # where a module was looked for and not found.
    deps: dict[str, Any] = field(default_factory=dict)


class CheckCancelled(Exception):
    """A check stopped because its ``cancelled`` callback said so (a newer text of the
    file is waiting): the checker starts afresh at its next ``update``."""


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
    open with unsaved edits. A module is found where the overlay has a text even when no
    file is there (a buffer never saved), in the same search order as files on disk. A
    module whose text changed (on disk or in the overlay), or one that appeared or went
    away where the check looked for it, makes the next ``update`` check the file afresh,
    even with the same text.

    ``cancelled``, when set, is asked between declarations (parsing) and function bodies
    (checking): when it answers True, ``update`` raises ``CheckCancelled``. An editor
    stops the check of a text a newer one has replaced.

    ``keep=False`` makes a one-off checker: an ``update`` keeps nothing for the next one
    (no chunks, no per-body records, no lines), so a large file's check takes little
    more memory than its result; the next ``update`` checks afresh.
    """

    def __init__(self, path: str, search: list[str] | None = None,
                 overlay: Overlay | None = None,
                 cancelled: Callable[[], bool] | None = None, keep: bool = True) -> None:
        self.path = path
        self.keep = keep
        self.search = search
        self.overlay = overlay
        self.cancelled = cancelled
        self.last = "none"
        self.program: Program | None = None
        self._text: str | None = None
        self._lines: list[str] = []
        self._chunks: dict[tuple[int, int], Chunk] = {}
        self._state: _State | None = None

    # -- the one entry point -------------------------------------------------------
    def update(self, text: str) -> Program:
        """The ``Program`` of ``text`` (this file's new contents). Never raises for the
        file: a checker bug is an E0000 diagnostic, as with ``check_program``."""
        if text == self._text and self.program is not None and self._deps_fresh():
            self.last = "unchanged"
            return self.program
        with paused_gc():
            try:
                program = self._update(text)
            except CheckCancelled:
                # Half-updated records are of no use: the next update checks afresh.
                self._state = None
                self._chunks = {}
                self._lines = []
                self._text = None
                self.program = None
                raise
            except Exception:  # a bug here must not cost the user a checked file
                self._state = None
                self._chunks = {}
                from shapescript.compiler import check_program

                program = check_program(text, self.path, self.search)
                self.last = "full"
        self._text = text
        self.program = program
        if not self.keep and self._state is not None:
            # Only what ``depends_on`` reads stays: a skeleton of None matches no text's,
            # so the next update checks afresh.
            st = self._state
            st.skeleton, st.fns, st.decls, st.types, st.res = None, {}, (), {}, {}
        return program

    def _poll(self) -> None:
        if self.cancelled is not None and self.cancelled():
            raise CheckCancelled(self.path)

    def depends_on(self, path: str) -> bool:
        """Whether the last check depends on the file at ``path``: it read an imported
        module there, or looked for one there and found none. An editor re-checks the
        open files that depend on a buffer it opens, edits or closes."""
        key = os.path.abspath(path)
        if self._state is not None:
            return key in self._state.deps
        deps = self.program.dependencies if self.program is not None else ()
        return any(os.path.abspath(p) == key for p in deps)

    def dependencies(self) -> frozenset[str]:
        """The absolute paths ``depends_on`` answers True for."""
        if self._state is not None:
            return frozenset(self._state.deps)
        deps = self.program.dependencies if self.program is not None else ()
        return frozenset(os.path.abspath(p) for p in deps)

    def _deps_fresh(self) -> bool:
        """Whether the imported modules' texts are still those the last check read."""
        st = self._state
        if st is None:
            return self.program is None or not self.program.dependencies
        return all(text_stamp(p, self.overlay) == stamp for p, stamp in st.deps.items())

    # -- parsing, by chunks ----------------------------------------------------------
    def _update(self, text: str) -> Program:
        parts = text.split("\n")  # the parser counts lines by "\n" only
        lines = [x + "\n" for x in parts[:-1]] + [parts[-1]]
        del parts
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
        del old  # the last version's lines: not kept alive through this check

        chunks: dict[tuple[int, int], Chunk] = {}
        shifted: list[Chunk] = []
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
            self._poll()
            offset += sum(len(ln) for ln in lines[pos:a])
            pos = a
            ctext = "".join(lines[a:b])
            kept = self._chunks.get((a, b)) if b <= p else None
            if kept is None or kept.text != ctext:
                kept = self._parse_chunk(ctext, a, b, offset)
            chunks[(a, b)] = kept
        if shifted:
            self._shift(shifted, dl, dc, old_suffix_line)
        for ch in shifted:
            ch.first += dl
            ch.end += dl
            ch.offset += dc
        if self.keep:
            self._chunks = chunks
            self._lines = lines

        ordered = sorted(chunks.values(), key=lambda c: c.first)
        del lines, chunks  # a one-off check needs them no longer
        decls = tuple(d for c in ordered for d in c.decls)
        parse_diags = [d for c in ordered for d in c.diagnostics]
        doc = ordered[0].doc if ordered else None
        doc_spans = tuple(sp for c in ordered for sp in c.doc_spans)
        dropped = tuple(d for c in ordered for d in c.dropped)
        module = ast.Module(decls, self.path, doc, doc_spans, dropped)
        skeleton = tuple(k for c in ordered for k in c.skeleton)
        if not decls and any(d.is_error for d in parse_diags):
            self._state = None
            self.last = "full"
            return Program(None, {}, sorted_diagnostics(parse_diags, self.path), {self.path: text})
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
        bounds, depth = split_range(lines, lo, hi)
        if depth or not bounds:
            return None
        # Code before the window's first declaration (the edit removed a declaration's
        # first line) belongs to the chunk above: split the whole file instead.
        for i in range(lo, first_code(lines, lo, hi)):
            text = lines[i].strip()
            if text and not text.startswith("#"):
                return None
        return lo, hi, bounds

    def _parse_chunk(self, ctext: str, a: int, b: int, offset: int) -> Chunk:
        parsed = parse_file(ctext, self.path)
        module, diags, dropped = parsed.module, parsed.diagnostics, parsed.dropped
        doc_spans: tuple[Span, ...]
        if module is None:
            decls: tuple[Any, ...] = ()
            doc, doc_spans = None, ()
        else:
            decls, doc, doc_spans = module.decls, module.doc, module.doc_spans
        nodes = list(walk(decls))
        if a or offset:
            for node in nodes:
                move_node(node, a, offset)
            doc_spans = tuple(move_span(sp, a, offset) for sp in doc_spans)
            dropped = tuple(replace(d, span=move_span(d.span, a, offset)) for d in dropped)
            diags = tuple(move_diag(d, lambda ln: ln + a) for d in diags)
        skeleton = skeleton_of(decls) if self.keep else ()
        if not self.keep:  # never moved again, nor compared with a next version's
            nodes, ctext = [], ""
        return Chunk(a, b, ctext, offset, decls, list(diags), doc if a == 0 else None,
                      doc_spans, nodes, skeleton, dropped=dropped)

    def _move_chunk(self, ch: Chunk, dl: int, dc: int) -> None:
        dc += ch.pending
        ch.pending = 0
        for node in ch.nodes:
            move_node(node, dl, dc)
        ch.doc_spans = tuple(move_span(sp, dl, dc) for sp in ch.doc_spans)
        ch.dropped = tuple(replace(d, span=move_span(d.span, dl, dc)) for d in ch.dropped)
        if dl:
            ch.diagnostics = [move_diag(d, lambda ln: ln + dl) for d in ch.diagnostics]

    def _settle(self) -> None:
        """Brings every chunk's character offsets up to date (before a fresh check,
        which reads declarations' text through their offsets)."""
        for ch in self._chunks.values():
            if ch.pending:
                self._move_chunk(ch, 0, 0)

    def _shift(self, chunks: list[Chunk], dl: int, dc: int, old_suffix_line: int) -> None:
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
                    ps.span = move_span(ps.span, dl, dc)
        st.env.diagnostics = [move_diag(d, line_map) for d in st.env.diagnostics]
        st.load_diagnostics = [move_diag(d, line_map) for d in st.load_diagnostics]
        for fc in st.fns.values():
            fc.diagnostics = [move_diag(d, line_map) for d in fc.diagnostics]
            ex = fc.result.exports
            fc.result.exports = ExportSites(
                tuple(move_event(e, line_map, dl, dc) for e in ex.events), ex.callees)

    # -- checking ----------------------------------------------------------------------
    def _check(self, module: ast.Module, skeleton: tuple[Any, ...], text: str,
               parse_diags: list[Diagnostic]) -> Program:
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
            comp = caching_compilation(self.search, self.overlay)
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
            st.deps = {k: text_stamp(k, self.overlay) for k in
                       {os.path.abspath(p) for p in comp.program.modules} - {here}}
            for k in comp.missing:  # looked for there, not found: a module may appear
                if k != here:
                    st.deps.setdefault(k, None)
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
                self._poll()
                if fc is not None:
                    for k in fc.types:
                        st.types.pop(k, None)
                    for k in fc.res:
                        st.res.pop(k, None)
                fc = self._check_body(st, env, sig, text, cm.canon)
            fresh[name] = fc
            cm.diagnostics.extend(fc.diagnostics)
            cm.fns[name] = fc.result
        st.fns = fresh
        check_model_inits(cm, env)
        check_exports(cm, env)
        cm.diagnostics = dedupe(cm.diagnostics)
        cm.canon = {}

        comp = st.comp
        modules = {p: m for p, m in comp.program.modules.items() if p != self.path}
        modules[self.path] = cm
        sources = dict(comp.program.sources)
        sources[self.path] = text
        diags = parse_diags + st.load_diagnostics + cm.diagnostics
        return Program(cm, modules, sorted_diagnostics(diags, self.path), sources)

    def _check_body(self, st: _State, env: ModuleEnv, sig: Any, text: str,
                    canon: dict[Any, Any]) -> _FnCache:
        """One body's check, its records merged into ``st``'s; ``canon``: the update's
        shared types (``types.canonical``)."""
        if not self.keep:  # no body is checked again: its records need no dicts of their own
            sub = CheckedModule(env, text, [], st.types, st.res, models=env.models,
                                canon=canon)
            result = check_body(env, sig, sub)
            return _FnCache(sig.decl, {}, {}, sub.diagnostics, result)
        sub = CheckedModule(env, text, [], models=env.models, canon=canon)
        result = check_body(env, sig, sub)
        st.types.update(sub.types)
        st.res.update(sub.res)
        return _FnCache(sig.decl, sub.types, sub.res, sub.diagnostics, result)


def sorted_diagnostics(diags: list[Diagnostic], main: str) -> list[Diagnostic]:
    seen: set[tuple] = set()
    out = []
    for d in sorted(diags, key=lambda d: (d.file != main, d.file, d.line, d.column, d.code)):
        key = (d.code, d.file, d.line, d.column, d.end_line, d.end_column, d.message)
        if key not in seen:
            seen.add(key)
            out.append(d)
    return out

"""Statements to Python, each emitted on its ``.ss`` line."""

from __future__ import annotations

from shapescript.check.known import live_statement
from shapescript.check.result import CheckedModule
from shapescript.check.types import ModelType, TensorType
from shapescript.codegen.context import CodegenContext
from shapescript.codegen.exprs import ExprGen, pyname
from shapescript.codegen.layout import Emitter
from shapescript.syntax import ast


class StmtGen(ExprGen):
    def __init__(self, cm: CheckedModule, ctx: CodegenContext, em: Emitter) -> None:
        super().__init__(cm, ctx)
        self.em = em

    def block(self, stmts: tuple[ast.Stmt, ...], indent: int) -> None:
        if not stmts:
            self.em.emit(None, indent, "pass")
        for s in stmts:
            getattr(self, "s_" + type(s).__name__)(s, indent)

    def s_Assign(self, s: ast.Assign, ind: int) -> None:
        value = self.expr(s.value)
        if len(s.targets) == 1 and isinstance(s.targets[0], ast.Attr):
            t = s.targets[0]
            obj = self.expr(t.value)
            mt = self.cm.types.get(t.value)
            if isinstance(mt, ModelType):
                self.em.emit(s.span.line, ind, f"_ss_rt.set_field({obj}, {t.attr!r}, {value})")
                return
            self.em.emit(s.span.line, ind, f"{obj}.{t.attr} = {value}")
            return
        targets = ", ".join(pyname(t.id) for t in s.targets if isinstance(t, ast.Name))
        self.em.emit(s.span.line, ind, f"{targets} = {value}")

    def s_ExprStmt(self, s: ast.ExprStmt, ind: int) -> None:
        self.em.emit(s.span.line, ind, self.expr(s.expr))

    def s_Return(self, s: ast.Return, ind: int) -> None:
        if s.value is None:
            self.em.emit(s.span.line, ind, "return")
        else:
            self.em.emit(s.span.line, ind, "return " + self.expr(s.value))

    def cond(self, c: ast.Expr) -> str:
        code = self.expr(c)
        t = self.cm.types.get(c)
        if isinstance(t, TensorType):
            return f"bool({code})"
        return code

    def s_If(self, s: ast.If, ind: int) -> None:
        live = live_statement(self.cm.res, s)
        if not isinstance(live, ast.If):
            # A const ruled the other branches out: only what runs is written.
            self.block(live, ind) if live else self.em.emit(s.span.line, ind, "pass")
            return
        s = live
        for k, br in enumerate(s.branches):
            kw = "if" if k == 0 else "elif"
            self.em.emit(br.span.line, ind, f"{kw} {self.cond(br.cond)}:", simple=False)
            self.block(br.body, ind + 1)
        if s.orelse is not None:
            first = s.orelse[0].span.line if s.orelse else None
            self.em.emit(first - 1 if first else None, ind, "else:", simple=False)
            self.block(s.orelse, ind + 1)

    def s_For(self, s: ast.For, ind: int) -> None:
        targets = ", ".join(pyname(t) for t in s.targets)
        it = s.iter
        if isinstance(it, ast.Range):
            head = f"for {targets} in range({self.index_value(it.lo)}, {self.index_value(it.hi)}):"
        else:
            head = f"for {targets} in {self.expr(it)}:"
        self.em.emit(s.span.line, ind, head, simple=False)
        self.block(s.body, ind + 1)

    def s_With(self, s: ast.With, ind: int) -> None:
        self.em.emit(s.span.line, ind, "with _ss_rt.train():", simple=False)
        self.block(s.body, ind + 1)

"""Dims written as numbers, for the generators that emit another file's functions into
one self-contained module: only the main file's dims are that module's constants."""

from __future__ import annotations

from typing import Protocol

from shapescript.check.resolutions import DimName
from shapescript.check.sizes import Size
from shapescript.codegen.context import CodegenContext
from shapescript.codegen.stmts import StmtGen
from shapescript.syntax import ast

__all__ = ["InlineDimsStmtGen"]


class InlineDimsContext(CodegenContext, Protocol):
    """The context of an ``InlineDimsStmtGen``: whether the function being written has
    its dims inlined."""

    inline_dims: bool


class InlineDimsStmtGen(StmtGen):
    """A statement generator whose context says, per function, whether the function's
    dims are inlined (``ctx.inline_dims``): then a size or a dim's name is its value."""

    ctx: InlineDimsContext

    def size(self, s: Size) -> str:
        if self.ctx.inline_dims:
            dims = self.cm.env.dims
            s = s.substitute({v: dims[v] for v in s.free_vars() if v in dims})
        return super().size(s)

    def g_Name(self, e: ast.Name) -> str:
        res = self.cm.res.get(e)
        if self.ctx.inline_dims and isinstance(res, DimName):
            return str(res.value)
        return super().g_Name(e)

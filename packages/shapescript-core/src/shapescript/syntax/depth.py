"""Nesting limits: how deep an expression, and how many blocks, one declaration may nest.

Every phase after the parser (the checker, the code generator, the renderer of types)
walks the tree recursively, and the Python it generates is read by Python's own parser,
which refuses more than 200 nested brackets and 100 levels of indentation, and more than
20 nested loops. A program nested beyond ``MAX_EXPR_DEPTH`` or ``MAX_BLOCKS`` is
therefore refused here, with E0107 at the node that goes too deep, and every later phase
can recurse without meeting Python's recursion limit. The limits are far beyond
hand-written code: a sum of more than ``MAX_EXPR_DEPTH`` terms, or more than
``MAX_BLOCKS`` nested ``if``/``for``/``with`` blocks.

Measuring is iterative (an explicit stack), and skipped for declarations whose tokens
alone show that they can't be that deep, which is nearly all of them.
"""

from __future__ import annotations

from dataclasses import fields, is_dataclass

from shapescript.diagnostics import Diagnostic
from shapescript.source import Span
from shapescript.syntax import ast
from shapescript import error_codes as ec

__all__ = ["MAX_BLOCKS", "MAX_EXPR_DEPTH", "may_be_too_deep", "nesting_error"]

# Each level of a ShapeScript expression becomes at most two levels of brackets in the
# generated Python (whose parser stops at 200), with room left for the code around it.
MAX_EXPR_DEPTH = 64
# Python compiles at most 20 nested loops and `with` blocks in one function; the
# generated code may add one of its own around a body.
MAX_BLOCKS = 16

# Nodes that don't count towards an expression's depth: declarations and statements
# (blocks are counted separately), and call arguments (a call and its argument are one
# level of brackets).
_STATEMENTS = (ast.FnDecl, ast.ModelDecl, ast.ExternDecl, ast.DimDecl, ast.Param,
               ast.ParamField, ast.Assign, ast.Return, ast.IfBranch, ast.ExprStmt,
               ast.Arg)
_BLOCKS = (ast.If, ast.For, ast.With)
_CHILDREN: dict[type, tuple[str, ...]] = {}
_BREAKS = frozenset({"NEWLINE", "INDENT", "DEDENT"})


def may_be_too_deep(tokens) -> bool:
    """Whether the declaration of ``tokens`` may break a limit.

    Every node of an expression has a token of its own on its logical line (an operator,
    a bracket, a name), but for a number-name (``16gh``: a product of two sizes) and an
    einops pattern (a pattern, its groups and their names), which count extra here; each
    block has an INDENT. So a declaration whose logical lines are all short enough, and
    whose blocks are few enough, needs no walk: nearly every declaration.
    """
    limit = MAX_EXPR_DEPTH - 4
    if len(tokens) <= limit:
        return False
    run = 0
    blocks = 0
    for t in tokens:
        ty = t.type
        if ty in _BREAKS:
            if ty == "INDENT":
                blocks += 1
                if blocks > MAX_BLOCKS:
                    return True
            elif ty == "DEDENT":
                blocks -= 1
            run = 0
        else:
            run += 3 if ty == "PATTERN" else 2 if ty == "NUMNAME" else 1
            if run > limit:
                return True
    return False


def _children(node) -> tuple[str, ...]:
    names = _CHILDREN.get(type(node))
    if names is None:
        names = tuple(f.name for f in fields(node) if f.name not in ("span", "target_spans"))
        _CHILDREN[type(node)] = names
    return names


def nesting_error(decl, path: str) -> Diagnostic | None:
    """E0107 at the first node of ``decl`` nested beyond a limit, or None."""
    stack = [(decl, 0, 0)]
    pop = stack.pop
    push = stack.append
    while stack:
        node, depth, blocks = pop()
        if isinstance(node, _BLOCKS):
            blocks += 1
            if blocks > MAX_BLOCKS:
                sp = node.span  # the keyword, not the whole block
                n = 2 if isinstance(node, ast.If) else 3 if isinstance(node, ast.For) else 4
                kw = Span(sp.file, sp.line, sp.col, sp.line, sp.col + n, sp.start, sp.start + n)
                return _error(kw, "blocks nested too deeply",
                              f"more than {MAX_BLOCKS} blocks inside each other",
                              "move the inner blocks into a function of their own")
        elif not isinstance(node, _STATEMENTS):
            depth += 1
            if depth > MAX_EXPR_DEPTH:
                return _error(node.span, "expression nested too deeply",
                              f"more than {MAX_EXPR_DEPTH} levels inside each other",
                              "name parts of the expression with `=`, or sum a long list of "
                              "terms in steps")
        for name in _children(node):
            value = getattr(node, name)
            if type(value) is tuple or type(value) is list:
                for item in value:
                    if type(item) is tuple:  # Pattern.inputs: a tuple of tuples
                        for sub in item:
                            if is_dataclass(sub):
                                push((sub, depth, blocks))
                    elif is_dataclass(item):
                        push((item, depth, blocks))
            elif is_dataclass(value) and not isinstance(value, Span):
                push((value, depth, blocks))
    return None


def _error(span: Span, message: str, label: str, help: str) -> Diagnostic:
    return Diagnostic.error(ec.E0107, message, span, label, help=help)

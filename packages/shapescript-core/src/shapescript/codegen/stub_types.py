"""A ShapeScript type as the annotation of a Python stub, in each style.

Two styles, one class each, with the same methods:

- ``PyreflyTypes``: Pyrefly's shape-aware tensors, ``Tensor[[_b, 16, 32]]``, with the
  declaration's generics as type-level integer variables (``_b = IntVar("_b")``, declared
  once at the top: the old spelling, which every Python version parses, where
  ``def f[b: IntVar]`` needs 3.12), dims as the numbers they are, and the signature's
  arithmetic (``Tensor[[_n + 1]]``). The variables start with ``_``: the module has no
  such attributes. A dim that a parameter's bare axis names (``img: [b 1 S S]``) is a
  variable bounded by its value there (``_S = IntVar("_S", bound=Literal[16])``), so that
  Pyrefly's message for a wrong size names the dim (``Int[28]`` is not assignable to the
  upper bound ``Literal[16]`` of ``_S``); results keep the number.
- ``JaxtypingTypes``: ``Float32[Tensor, "b n 32"]``, with the dtype of the signature.

A size a style can't say becomes the style's "any size" (``int``; ``_k`` in a jaxtyping
string) and a note that the declaration's docstring shows: Pyrefly infers a variable only
from a bare axis (``[b n]``) or a ``Size[K]`` argument, never from inside an expression
(``16gh``), and ``?k`` sizes are known only at run time.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from shapescript.check.env import AxisParam, SizeParam
from shapescript.check.sizes import Size
from shapescript.check.types import HostType, ModelType, TensorType, TupleType

STYLES = ("pyrefly", "jaxtyping")

# jaxtyping's class for each dtype (and for a signature's dtype classes).
JAXTYPING_DTYPES = {
    "bool": "Bool", "u8": "UInt8", "i8": "Int8", "i16": "Int16", "i32": "Int32",
    "i64": "Int64", "f16": "Float16", "bf16": "BFloat16", "f32": "Float32", "f64": "Float64",
    "Float": "Float", "Int": "Int",
}
HOST_TYPES = {"int": "int", "float": "float", "bool": "bool", "str": "str", "none": "None"}


@dataclass
class Scope:
    """The generics of one declaration, as its stub names them.

    ``names`` maps each generic to its identifier in the stub, ``bound`` holds those a
    caller's argument determines (so a checker can infer them), ``rest`` names the
    signature's ``...`` axes; ``unsaid`` collects, as written, the sizes the stub left
    open.
    """

    names: dict[str, str]
    bound: frozenset[str]
    rest: str | None = None
    # The dims a parameter's bare axis names, by their variable (Pyrefly style only).
    dims: dict[str, str] = field(default_factory=dict)
    unsaid: list[str] = field(default_factory=list)
    unknowns: bool = False

    def open_size(self, size: Size) -> bool:
        """Whether the stub must leave ``size`` open: a ``?k``, or a variable no argument
        determines."""
        free = size.free_vars()
        if any(v.startswith("?") for v in free):
            self.unknowns = True
            return True
        return not free <= self.bound

    def leave_open(self, size: Size) -> None:
        text = str(size)
        if not text.startswith("?") and text not in self.unsaid:
            self.unsaid.append(text)


class Imports:
    """The names a stub imports, each under the name the module's own declarations leave
    free (``Tensor`` unless the ``.ss`` file declares a ``Tensor`` itself)."""

    def __init__(self, taken: set[str]) -> None:
        self.taken = taken
        self.used: dict[tuple[str, str], str] = {}

    def ref(self, module: str, name: str) -> str:
        """The stub's name for ``module.name`` (``typing.Final``), imported once."""
        key = (module, name)
        if key not in self.used:
            local = name
            while local in self.taken:
                local = "_ss_" + local
            self.used[key] = local
        return self.used[key]

    def lines(self) -> list[str]:
        """The import lines, sorted (``import m`` first, then ``from m import a, b``): the
        same declarations give the same bytes."""
        plain: list[str] = []
        names: dict[str, list[str]] = {}
        for (module, name), local in sorted(self.used.items()):
            alias = f" as {local}" if local != name else ""
            if module == name:
                plain.append(f"import {module}{alias}")
            else:
                names.setdefault(module, []).append(name + alias)
        return sorted(plain) + [f"from {m} import {', '.join(ns)}" for m, ns in sorted(names.items())]


def _bare_generic(size: Size) -> str | None:
    name = size.var_name
    return name if name is not None and not name.startswith("?") else None


def bound_dims(types: Sequence[object], is_dim: Callable[[str], bool]) -> list[str]:
    """The dims these parameter types name as a bare axis (``S`` in ``[b 1 S S]``), in
    the order they first appear; ``is_dim`` tells a dim's name from a generic's."""
    out: list[str] = []
    for t in types:
        if isinstance(t, TensorType):
            for ax in t.axes:
                name = None if ax.variadic else ax.label.var_name
                if (name is not None and name not in out and ax.size.const_value is not None
                        and is_dim(name)):
                    out.append(name)
    return out


def bound_generics(types: Sequence[object], sizes: bool = True) -> list[str]:
    """The generics an argument of these parameter types determines for a checker, in
    the order they first appear: bare axes (``[b n]``) and, with ``sizes``, ``Size[K]``
    (jaxtyping binds names from arrays' axes only)."""
    out: list[str] = []
    for t in types:
        if isinstance(t, TensorType):
            names = [_bare_generic(ax.size) for ax in t.axes if not ax.variadic]
        elif isinstance(t, SizeParam) and sizes:
            names = [t.name]
        else:
            names = []
        out += [n for n in names if n is not None and n not in out]
    return out


class PyreflyTypes:
    """Types as Pyrefly's shape-aware stubs write them."""

    style = "pyrefly"
    binds_sizes = True  # `Int[K]` binds `K` from an int argument

    def __init__(self, imports: Imports) -> None:
        self.imports = imports

        self.vars: dict[str, str] = {}  # name → its declaration

    def tensor_class(self) -> str:
        return self.imports.ref("torch", "Tensor")

    def var(self, name: str) -> str:
        """The type variable of the generic ``name`` (one per name, for the whole stub)."""
        return self._declare("_" + name, "")

    def dim_var(self, name: str, value: int) -> str:
        """The type variable of the dim ``name`` where a parameter names it: bounded by
        its value, so a wrong size is reported against the dim's name."""
        return self._declare("_" + name, f", bound={self.imports.ref('typing', 'Literal')}[{value}]")

    def _declare(self, local: str, bound: str) -> str:
        intvar = self.imports.ref("shape_extensions", "IntVar")
        while True:
            decl = f"{local} = {intvar}({local!r}{bound})"
            if self.vars.setdefault(local, decl) == decl:
                return local
            local += "_"  # a variable of the same spelling, declared otherwise

    def rest(self, generics: frozenset[str]) -> str:
        """The type variable of a signature's ``...`` axes: a whole shape (in the
        generated code's namespace, so no generic's variable is named so)."""
        local = "_ss_rest"
        bound = self.imports.ref("shape_extensions", "IntTuple")
        self.vars[local] = (f'{local} = {self.imports.ref("typing", "TypeVar")}({local!r}, '
                            f'bound={bound})')
        return local

    def declarations(self) -> list[str]:
        return [self.vars[name] for name in sorted(self.vars)]

    def size(self, size: Size, scope: Scope) -> str:
        value = size.const_value
        if value is not None:
            return str(value)
        if scope.open_size(size):
            scope.leave_open(size)
            return "int"
        return size.to_python(lambda v: scope.names[v])

    def tensor(self, t: TensorType, scope: Scope, any_dtype: bool = False) -> str:
        axes = []
        for ax in t.axes:
            if ax.variadic:
                elements = self.imports.ref("shape_extensions", "Elements")
                axes.append(f"*{elements}[{scope.rest}]")
            elif ax.label.var_name in scope.dims:
                axes.append(scope.dims[ax.label.var_name])
            else:
                axes.append(self.size(ax.size, scope))
        return f"{self.tensor_class()}[[{', '.join(axes)}]]"

    def size_param(self, p: SizeParam, scope: Scope) -> str:
        return f"{self.imports.ref('shape_extensions', 'Int')}[{scope.names[p.name]}]"


class JaxtypingTypes:
    """Types as jaxtyping writes them: a dtype class over ``Tensor`` and a shape string."""

    style = "jaxtyping"
    binds_sizes = False

    def __init__(self, imports: Imports) -> None:
        self.imports = imports

    def var(self, name: str) -> str:
        return name  # the names live in the shape strings

    def rest(self, generics: frozenset[str]) -> str:
        local = "rest"
        while local in generics:
            local += "_"
        return local

    def declarations(self) -> list[str]:
        return []

    def size(self, size: Size, scope: Scope) -> str:
        value = size.const_value
        if value is not None:
            return str(value)
        if scope.open_size(size):
            scope.leave_open(size)
            name = (size.var_name or "").lstrip("?").split("#")[0]
            # `_name`: a size jaxtyping doesn't check (a `?k`, or one it can't compute).
            return "_" + name if name.isidentifier() else "_"
        # An expression of other axes, which jaxtyping evaluates: no spaces in one axis.
        return size.to_python(lambda v: scope.names[v]).replace(" ", "")

    def tensor(self, t: TensorType, scope: Scope, any_dtype: bool = False) -> str:
        cls = self.imports.ref("jaxtyping", "Shaped" if any_dtype else JAXTYPING_DTYPES[t.dtype])
        axes = [f"*{scope.rest}" if ax.variadic else self.size(ax.size, scope) for ax in t.axes]
        return f'{cls}[{self.imports.ref("torch", "Tensor")}, "{" ".join(axes)}"]'

    def size_param(self, p: SizeParam, scope: Scope) -> str:
        return "int"


Styler = PyreflyTypes | JaxtypingTypes


def styler(style: str, imports: Imports) -> Styler:
    """The annotation writer of ``style`` (one of ``STYLES``)."""
    if style == "pyrefly":
        return PyreflyTypes(imports)
    if style == "jaxtyping":
        return JaxtypingTypes(imports)
    raise ValueError(f"unknown stub style {style!r} (choose {' or '.join(STYLES)})")


def annotation(types: Styler, t: object, scope: Scope, model_ref) -> str:
    """The annotation of the checker type ``t`` (a parameter's or a result's);
    ``model_ref`` names a model class from its ``ModelType``."""
    if isinstance(t, TensorType):
        return types.tensor(t, scope)
    if isinstance(t, SizeParam):
        return types.size_param(t, scope)
    if isinstance(t, AxisParam):
        # An axis is passed as its position; several as a tuple of them.
        return "tuple[int, ...]" if t.many else "int"
    if isinstance(t, HostType):
        if t.name in HOST_TYPES:
            return HOST_TYPES[t.name]
    if isinstance(t, TupleType):
        return "tuple[" + ", ".join(annotation(types, x, scope, model_ref) for x in t.items) + "]"
    if isinstance(t, ModelType) and not t.grads:
        return model_ref(t)
    return types.imports.ref("typing", "Any")

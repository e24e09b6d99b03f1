"""The module environment: a file's declarations, resolved once before any body.

Top-level declarations may come in any order, so this pass collects every name
first (E0202 on duplicates), evaluates dims in dependency order (E0301 cycles,
E0302 negative), and builds the signatures of functions, externs and models. Bodies
are checked afterwards against this environment (``check.bodies``).
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from shapescript.builtin_registry import CONSTRUCTOR_NAMES, FUNCTION_NAMES
from shapescript.check.sizes import Size
from shapescript.check.types import ModelType, TensorType, Type
from shapescript.diagnostics import Diagnostic
from shapescript.source import Span
from shapescript.syntax import ast
from shapescript.vocab import DOMAINS, DTYPE_CLASSES, DTYPES

if TYPE_CHECKING:
    from shapescript.check.roles import Roles

# Names the checker builds in (the registry's): they can't be declared or shadowed (E0203).
BUILTIN_FUNCS = FUNCTION_NAMES
CONSTRUCTORS = CONSTRUCTOR_NAMES
RESERVED_TYPE_NAMES = frozenset({
    *DTYPES, *DTYPE_CLASSES, *DOMAINS,
    "int", "float", "str", "Size", "Axis", "Axes", "Train",
})
MODES = frozenset({"Train"})
# Prefixes of the names generated code defines beside the user's (the runtime `_ss_rt`,
# extern aliases `_ss_x_exp`, generic sizes `_ss_g_n`, each fn's body `_unchecked_f`):
# a user name with one of them could replace what the compiler wrote (E0203).
GENERATED_PREFIXES = ("_ss_", "_unchecked_")
# The file names the prelude's declarations carry.
PRELUDE_FILES = frozenset({"<prelude.ss>", "<nn.ss>"})


def is_generated_name(name: str) -> bool:
    """Whether ``name`` is in the namespace generated code keeps for itself.

    >>> is_generated_name("_ss_g_n"), is_generated_name("_unchecked_f"), is_generated_name("ss_x")
    (True, True, False)
    """
    return name.startswith(GENERATED_PREFIXES)


def reserved_name_error(name: str) -> tuple[str, str, str]:
    """The E0203 message, label and help for a name in the generated namespace."""
    prefix = next(p for p in GENERATED_PREFIXES if name.startswith(p))
    return (f"`{name}` is reserved: names starting with `{prefix}` belong to generated code",
            "a reserved name", f"rename it, e.g. `{name[len(prefix):] or 'x'}`")


@dataclass(frozen=True, slots=True)
class SizeParam:
    """``Size[K]``: a static whole number that becomes the size ``K``."""

    name: str

    def __str__(self) -> str:
        return f"Size[{self.name}]"


@dataclass(frozen=True, slots=True)
class AxisParam:
    """``Axis[n]`` / ``Axes[n]``: an axis label, passed as its position."""

    name: str
    many: bool = False

    def __str__(self) -> str:
        return f"{'Axes' if self.many else 'Axis'}[{self.name}]"


ParamType = Type | SizeParam | AxisParam


@dataclass(frozen=True, slots=True)
class Written:
    """A type as the source writes it, for messages in the program's own words: its
    text, each axis's text when the axes are written out (following a shape alias of the
    same file; None otherwise), and a tuple type's items. The checker records it, so code
    generation never reads the source again."""

    text: str = ""
    axes: tuple[str, ...] | None = None
    items: tuple["Written", ...] = ()


def written_type(te: ast.TypeExpr | None, env: "ModuleEnv", source: str) -> Written:
    """The ``Written`` of the type expression ``te`` of ``env``'s file (its ``source``)."""
    if te is None:
        return Written()

    def text(node: object) -> str:
        # Interned: a file writes its few types thousands of times.
        sp = node.span  # type: ignore[attr-defined]
        return sys.intern(source[sp.start:sp.end]) if sp.end > sp.start else ""

    if isinstance(te, ast.TupleTypeExpr):
        return Written(text(te), None, tuple(written_type(x, env, source) for x in te.items))
    shape = None
    if isinstance(te, ast.TensorTypeExpr):
        if te.shape is not None:
            shape = te.shape
        elif te.alias is not None and te.alias in env.aliases:
            decl = env.aliases[te.alias].shape
            shape = decl.shape if decl is not None else None
    elif isinstance(te, ast.NamedTypeExpr) and te.name in env.aliases:
        decl = env.aliases[te.name].shape
        shape = decl.shape if decl is not None else None
    axes = tuple(text(x) for x in shape) if shape is not None else None
    return Written(text(te), axes)


@dataclass(slots=True)
class ParamSig:
    name: str
    type: ParamType | None  # None: untyped, takes its default's type
    span: Span
    default: ast.Expr | None = None
    written: str = ""  # the type as written, for messages
    shape: Written = Written()  # the same, with each axis as written (run-time messages)


@dataclass(slots=True)
class FnSig:
    """A function's or extern's signature, in the declaring file's terms."""

    name: str
    file: str
    decl: ast.FnDecl | ast.ExternDecl
    params: list[ParamSig]
    ret: Type | None  # None: returns nothing
    generics: frozenset[str]
    extern: str | None = None
    export: bool = False
    module: "ModuleEnv | None" = None
    ret_written: Written = Written()  # the return type as written
    # `extern fn … with a or b`: optional parameters a call gives at least one of.
    one_of: tuple[str, ...] = ()

    @property
    def is_extern(self) -> bool:
        return self.extern is not None


@dataclass(slots=True)
class FieldInfo:
    name: str
    type: TensorType
    decl: ast.ParamField
    written: Written = Written()  # the field's type as written


@dataclass(slots=True)
class ModelInfo:
    name: str
    file: str
    decl: ast.ModelDecl
    fields: dict[str, FieldInfo] = field(default_factory=dict)
    env: "ModuleEnv | None" = field(default=None, repr=False, compare=False)
    # Fields whose type failed (reported): their uses are silent errors.
    failed: set[str] = field(default_factory=set)

    @property
    def type(self) -> ModelType:
        return ModelType(self.name, self.file)


@dataclass(slots=True)
class ModuleEnv:
    """Everything a file declares, by name."""

    path: str
    module: ast.Module
    dims: dict[str, int] = field(default_factory=dict)
    dim_decls: dict[str, ast.DimDecl] = field(default_factory=dict)
    aliases: dict[str, ast.DimDecl] = field(default_factory=dict)
    # ``const eps = 1e-6``: host values (int, float, bool, str) known before the program
    # runs; not sizes.
    consts: dict[str, int | float | bool | str] = field(default_factory=dict)
    const_decls: dict[str, ast.ConstDecl] = field(default_factory=dict)
    fns: dict[str, FnSig] = field(default_factory=dict)
    models: dict[str, ModelInfo] = field(default_factory=dict)
    pymods: dict[str, str] = field(default_factory=dict)  # local name → Python module
    ssmods: dict[str, "ModuleEnv"] = field(default_factory=dict)  # local name → module
    imported: dict[str, tuple["ModuleEnv", str]] = field(default_factory=dict)
    # Path of a module names were imported from → its dotted name in ``from m import x``
    # (generated code imports it once under an alias made from that name).
    from_modules: dict[str, str] = field(default_factory=dict)
    device: str | None = None
    prelude: "ModuleEnv | None" = None
    diagnostics: list[Diagnostic] = field(default_factory=list)
    # For the export rules: per function, its E17xx sites and callees (check.exports).
    fn_data: dict = field(default_factory=dict)
    # Names whose declaration or import already failed: uses are silent errors.
    poisoned: set = field(default_factory=set)
    # ``labels_from`` results, by ``id`` of the other module.
    label_maps: dict = field(default_factory=dict, repr=False)
    # The file's dims as roles (``check.roles.roles_of``), made on first use.
    roles: Roles | None = field(default=None, repr=False)
    _all_dims: dict | None = field(default=None, repr=False)

    def all_dims(self) -> dict[str, int]:
        """Every dim this file names without a dot (its own and the imported ones), by
        value; computed once, after the declarations (read-only)."""
        d = self._all_dims
        if d is None:
            d = dict(self.dims)
            for local, (sub, orig) in self.imported.items():
                if orig in sub.dims:
                    d[local] = sub.dims[orig]
            self._all_dims = d
        return d

    def dim_size(self, name: str) -> int | None:
        if name in self.dims:
            return self.dims[name]
        if name in self.imported:
            env, orig = self.imported[name]
            return env.dims.get(orig)
        return None

    def const_value(self, name: str, module: str | None = None) -> int | float | bool | str | None:
        """The value of the const this file calls ``name`` (``module.name`` when
        ``module`` is set; an imported name too), or None when it names no const."""
        if module is not None:
            sub = self.ssmods.get(module)
            return None if sub is None else sub.consts.get(name)
        if name in self.consts:
            return self.consts[name]
        if name in self.imported:
            env, orig = self.imported[name]
            return env.const_value(orig)
        return None

    def is_const(self, name: str, module: str | None = None) -> bool:
        """Whether ``name`` (or ``module.name``) is a const of this file or an import,
        evaluated or not (a const whose value failed is still not a size)."""
        if module is not None:
            sub = self.ssmods.get(module)
            return sub is not None and name in sub.const_decls
        if name in self.const_decls:
            return True
        if name in self.imported:
            env, orig = self.imported[name]
            return env.is_const(orig)
        return False

    def alias(self, name: str) -> tuple["ModuleEnv", ast.DimDecl] | None:
        if "." in name:
            mod, _, rest = name.partition(".")
            if mod in self.ssmods:
                return self.ssmods[mod].alias(rest)
            return None
        if name in self.aliases:
            return self, self.aliases[name]
        if name in self.imported:
            env, orig = self.imported[name]
            return env.alias(orig)
        return None

    def model(self, name: str) -> ModelInfo | None:
        if "." in name:
            mod, _, rest = name.partition(".")
            if mod in self.ssmods:
                return self.ssmods[mod].model(rest)
            return None
        if name in self.models:
            return self.models[name]
        if name in self.imported:
            env, orig = self.imported[name]
            return env.model(orig)
        return None

    def fn(self, name: str) -> FnSig | None:
        if name in self.fns:
            return self.fns[name]
        if name in self.imported:
            env, orig = self.imported[name]
            return env.fns.get(orig)
        if self.prelude is not None:
            return self.prelude.fn(name)
        return None

    def dim_origin(self, name: str) -> tuple["ModuleEnv", str] | None:
        """The module that declares the dim this file calls ``name`` (``D``,
        ``layers.D`` or an imported name), and the dim's name there."""
        if "." in name:
            mod, _, rest = name.partition(".")
            sub = self.ssmods.get(mod)
            return (sub, rest) if sub is not None and rest in sub.dims else None
        if name in self.dims:
            return self, name
        if name in self.imported:
            env, orig = self.imported[name]
            return env.dim_origin(orig)
        return None

    def dim_label(self, origin: "ModuleEnv", name: str) -> str:
        """How this file names (as an axis label) the dim ``name`` of ``origin``."""
        if origin is self:
            return name
        for local, (env, orig) in self.imported.items():
            found = env.dim_origin(orig)
            if found is not None and found[0] is origin and found[1] == name:
                return local
        for local, env in self.ssmods.items():
            if env is origin:
                return f"{local}.{name}"
        stem = os.path.splitext(os.path.basename(origin.path))[0]
        return f"{stem}.{name}"

    def labels_from(self, other: "ModuleEnv") -> dict[str, Size]:
        """Renames the dim labels of a type written in ``other`` into this file's
        labels (labels keep dims as symbols, and a dim of another module
        is ``layers.D`` here, or ``D`` after ``from layers import D``). Empty when no
        label changes. Cached per module."""
        if other is self:
            return {}
        cached = self.label_maps.get(id(other))
        if cached is not None:
            return cached[1]
        out: dict[str, Size] = {}
        names = set(other.dims) | set(other.imported)
        for name in names:
            found = other.dim_origin(name)
            if found is not None:
                mine = self.dim_label(*found)
                if mine != name:
                    out[name] = Size.var(mine)
        for mod, sub in other.ssmods.items():
            for name in sub.dims:
                mine = self.dim_label(sub, name)
                if mine != f"{mod}.{name}":
                    out[f"{mod}.{name}"] = Size.var(mine)
        self.label_maps[id(other)] = (other, out)  # keeps `other` alive with its id
        return out

    def public(self, name: str) -> bool:
        if name.startswith("_"):
            return False
        return (name in self.dims or name in self.aliases or name in self.fns
                or name in self.models or name in self.const_decls)


def dim_value(env: ModuleEnv, name: str, module: str | None = None) -> int | None:
    """The value of dim ``name`` (``module.name`` when ``module`` is set)."""
    if module is not None:
        sub = env.ssmods.get(module)
        return None if sub is None else sub.dims.get(name)
    return env.dim_size(name)


def size_const(v: int) -> Size:
    return Size.const(v)

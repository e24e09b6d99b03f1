"""What an expression or statement generator asks of the module it writes into.

``ExprGen`` and ``StmtGen`` turn one body into Python; everything that depends on the
module around it (the names imports got, the runtime's namespace, the device, the
checks mode, what a `fn` call or an `as` becomes) they ask of a context. Each code
generation mode is one context: ``ModuleGen`` (a checked module), ``TracedModuleGen``
(tracing for export) and ``FunctionsGen`` (the Hugging Face modeling file), all
reading the same typed resolutions (``check.resolutions``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, runtime_checkable

if TYPE_CHECKING:
    from shapescript.check.env import FnSig, ModelInfo
    from shapescript.check.payloads import Payload
    from shapescript.check.resolutions import ExternCall
    from shapescript.check.result import AssertRes
    from shapescript.check.types import ModelType
    from shapescript.codegen.exprs import ExprGen
    from shapescript.codegen.specs import SpecBuilder
    from shapescript.syntax import ast

__all__ = ["CodegenContext"]


@runtime_checkable
class CodegenContext(Protocol):
    """The module generator, as the body generators see it."""

    fn: FnSig | None  # the function whose body is being written
    specs: SpecBuilder  # run-time specs of types, and ``where`` (``file:line:col``)

    def need_generic(self, name: str) -> None:
        """The body reads the generic axis ``name``: bind it at the top."""

    def device_expr(self) -> str:
        """The Python expression of the device new tensors are made on."""

    def pymod(self, local: str, module: str) -> str:
        """A Python module the file imported as ``local``."""

    def ssmod(self, local: str) -> str:
        """A ShapeScript module the file imported as ``local``."""

    def einops(self) -> str:
        """The name einops is imported under."""

    def rt_helper(self, name: str) -> str:
        """A runtime helper (``shapescript.rt.name``) by the name it is reached by."""

    def fn_ref(self, sig: FnSig) -> str:
        """A function or extern used as a value."""

    def unchecked_ref(self, sig: FnSig) -> str:
        """The body of the function ``sig`` (called without its entry's checks)."""

    def extern_ref(self, sig: FnSig) -> str:
        """The Python function an extern names."""

    def dim_ref(self, name: str) -> str:
        """The Python name of the module's dim ``name``."""

    def field_ref(self, obj: str, name: str) -> str:
        """The Python of field ``name`` of the model ``obj`` (its code)."""

    def indexed_field_ref(self, obj: str, name: str, index: str) -> str | None:
        """The Python of ``obj.name[index]``, or None for the field's own indexed."""

    def model_ref(self, info: ModelInfo) -> str:
        """A model's class."""

    def model_ref_type(self, t: ModelType) -> str:
        """A model type's class."""

    def default_value(self, node: ast.Expr) -> str:
        """A parameter's default, evaluated in the callee's module."""

    def assert_check(self, code: str, e: ast.AssertType, res: AssertRes, g: ExprGen) -> str:
        """``code`` checked against the ``as`` ``e`` (or as it is, when not checked)."""

    def extern_result_check(self, code: str, e: ast.Call, res: ExternCall, g: ExprGen) -> str:
        """An extern call's result, checked against its declared type where needed."""

    def training_builtin(self, name: str, e: ast.Call, data: Payload, g: ExprGen) -> str:
        """A host-only training built-in's call."""

"""How ShapeScript names become Python names in generated code.

Generated helpers and temporaries start with ``_ss_`` (``_SS_`` for constants,
``_unchecked_`` for function bodies), which the checker keeps from users (E0203). A
user's name that is a Python keyword, or one of the Python built-ins generated code and
the runtime helpers it inlines call (``isinstance``, ``range``, ``len`` …), or the name
of an error class an inlined module defines, gets a trailing ``_``. The source keeps its
names: messages, checkpoints' keys and a model's fields (``m.next``) are as written.
"""

from __future__ import annotations

import keyword

from shapescript.vocab import TORCH_DTYPE_NAMES

__all__ = ["T", "dtype_expr", "generic_var", "pyname", "python_name"]

# The name generated modules import torch as.
T = "_ss_torch"


# The built-ins generated code calls, in the bodies, the checked entries and the runtime
# helpers a standalone module inlines (tests/codegen/test_hostile_sources.py keeps this
# the set they use), the error classes an inlined module defines under their names, and
# `__debug__`, which Python lets nothing bind.
GENERATED_BUILTINS = frozenset((
    "AttributeError", "BaseException", "Exception", "FileNotFoundError", "ImportError",
    "IndexError", "KeyError", "NameError", "NotImplementedError", "OSError",
    "ProcessLookupError", "RecursionError",
    "RuntimeError", "TypeError", "UnicodeDecodeError", "ValueError", "abs", "all", "any",
    "bool", "bytes", "callable", "classmethod", "compile", "dict", "divmod", "enumerate",
    "exec", "float", "format", "frozenset", "getattr", "hasattr", "hash", "id", "int",
    "isinstance", "issubclass", "iter", "len", "list", "max", "min", "next", "object",
    "open", "print", "property", "range", "repr", "reversed", "round", "set", "setattr",
    "slice", "sorted", "staticmethod", "str", "sum", "super", "tuple", "type", "zip",
    "ShapeError", "DeviceError", "DomainError", "__debug__",
))


def _python_word(stem: str) -> bool:
    return keyword.iskeyword(stem) or stem in GENERATED_BUILTINS


def pyname(name: str) -> str:
    """A user name as a Python identifier: a keyword or a built-in generated code calls
    gets a trailing ``_``, and so does one of them followed by underscores, so no two
    names meet (``class`` is ``class_``, ``class_`` is ``class__``).

    >>> pyname("lambda"), pyname("class_"), pyname("x_"), pyname("range")
    ('lambda_', 'class__', 'x_', 'range_')
    """
    return name + "_" if _python_word(name.rstrip("_")) else name


python_name = pyname


def dtype_expr(dt: str) -> str:
    """A dtype as generated code writes it (``f32`` → ``_ss_torch.float32``)."""
    return f"{T}.{TORCH_DTYPE_NAMES[dt]}"


def generic_var(name: str) -> str:
    """The local holding a generic axis's size (``n`` → ``_ss_g_n``)."""
    return "_ss_g_" + name

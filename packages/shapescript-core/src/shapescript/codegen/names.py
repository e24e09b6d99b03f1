"""How ShapeScript names become Python names in generated code.

Generated helpers and temporaries start with ``_ss_``; a user's name that is a Python
keyword gets a trailing ``_``.
"""

from __future__ import annotations

import keyword

from shapescript.vocab import TORCH_DTYPE_NAMES

__all__ = ["T", "dtype_expr", "generic_var", "pyname", "python_name"]

# The name generated modules import torch as.
T = "_ss_torch"


def _python_word(stem: str) -> bool:
    return keyword.iskeyword(stem) or stem in ("None", "True", "False")


def pyname(name: str) -> str:
    """A user name as a Python identifier: a keyword gets a trailing ``_``, and so does
    a keyword followed by underscores, so no two names meet (``class`` is ``class_``,
    ``class_`` is ``class__``).

    >>> pyname("lambda"), pyname("class_"), pyname("x_")
    ('lambda_', 'class__', 'x_')
    """
    return name + "_" if _python_word(name.rstrip("_")) else name


python_name = pyname


def dtype_expr(dt: str) -> str:
    """A dtype as generated code writes it (``f32`` → ``_ss_torch.float32``)."""
    return f"{T}.{TORCH_DTYPE_NAMES[dt]}"


def generic_var(name: str) -> str:
    """The local holding a generic axis's size (``n`` → ``_ss_g_n``)."""
    return "_ss_g_" + name

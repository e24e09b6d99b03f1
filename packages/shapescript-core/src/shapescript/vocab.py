"""ShapeScript's vocabulary: the dtypes, domains and devices, written once.

Syntax, checker, code generator and runtime all read these tables; nothing else in the
core spells a dtype or a domain bound. The module is plain data with no imports, so the
standalone runtime (``rt/standalone.py``) and the traced helpers inline a copy of what
they use, and a test pins the copies to this file.
"""

from __future__ import annotations

import re

# Element types, as the source writes them, in widening order within each kind.
DTYPES = ("bool", "u8", "i8", "i16", "i32", "i64", "f16", "bf16", "f32", "f64")
FLOAT_DTYPES = frozenset({"f16", "bf16", "f32", "f64"})
INT_DTYPES = frozenset({"u8", "i8", "i16", "i32", "i64"})
# Dtype classes a signature may write instead of one dtype, and what each defaults to.
DTYPE_CLASSES = {"Float": "f32", "Int": "i64"}
# A dtype's name in torch (``torch.<name>``) and in safetensors files.
TORCH_DTYPE_NAMES = {
    "bool": "bool", "u8": "uint8", "i8": "int8", "i16": "int16", "i32": "int32",
    "i64": "int64", "f16": "float16", "bf16": "bfloat16", "f32": "float32",
    "f64": "float64",
}
SAFETENSORS_DTYPES = {
    "bool": "BOOL", "u8": "U8", "i8": "I8", "i16": "I16", "i32": "I32", "i64": "I64",
    "f16": "F16", "bf16": "BF16", "f32": "F32", "f64": "F64",
}
# The dtype a host number becomes as a tensor.
HOST_DTYPE = {"int": "i64", "float": "f32", "bool": "bool"}
# The dtype a value of a domain has when nothing else says (Index is i64, Mask bool).
DOMAIN_DTYPE = {"Index": "i64", "Mask": "bool"}

# Value domains, ordered by "is also" (a Prob is also Unit, NonNeg and Real).
DOMAINS = ("Real", "NonNeg", "Pos", "Unit", "Signed", "Logit", "LogProb", "Prob",
           "Index", "Mask")
# Domains that name a class axis (``Prob over C``).
CLASS_DOMAINS = frozenset({"Logit", "LogProb", "Prob"})
# Domains with nothing to check at run time.
UNCHECKED_DOMAINS = frozenset({"Real", "Logit", "Mask", "Int"})
# Domains a run-time spec leaves out: nothing to check, and no class axis to name (a
# `Logit over C` has nothing to check either, but its spec names its class axis).
PLAIN_DOMAINS = UNCHECKED_DOMAINS - CLASS_DOMAINS
# kind -> (lowest allowed, highest allowed, low bound inclusive); Index's high bound is
# its ``Index[C]`` less one.
DOMAIN_BOUNDS = {
    "NonNeg": (0, None, True), "Pos": (0, None, False), "Unit": (0, 1, True),
    "Signed": (-1, 1, True), "Prob": (0, 1, True), "LogProb": (None, 0, True),
    "Index": (0, None, True),
}

# Devices: ``cpu``, ``cuda``, ``cuda[0]`` (``cuda:0`` accepted), ``mps``.
DEVICE_KINDS = ("cpu", "cuda", "mps", "meta", "xpu")
DEVICE_PATTERN = re.compile(r"^(cpu|cuda|mps|meta|xpu)(?:\[(\d+)\]|:(\d+))?$")


def device_parts(spec: str) -> tuple[str, int | None]:
    """A device as ``(kind, index or None)``; ValueError if it isn't one.

    >>> device_parts("cuda[1]"), device_parts("cpu")
    (('cuda', 1), ('cpu', None))
    """
    m = DEVICE_PATTERN.match(str(spec).strip())
    if m is None:
        raise ValueError(f"not a device: {spec!r} (expected cpu, cuda, cuda[N] or mps)")
    index = m.group(2) or m.group(3)
    return m.group(1), (int(index) if index is not None else None)


def device_name(spec: str) -> str:
    """A ShapeScript device (``cuda[0]``) as torch writes it (``cuda:0``).

    >>> device_name("cuda[0]")
    'cuda:0'
    """
    kind, index = device_parts(spec)
    return kind if index is None else f"{kind}:{index}"

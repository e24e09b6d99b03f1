"""The coverage report of a port: of the source graph's operations (those that compute:
shape bookkeeping such as dtype asserts is left out), the fraction that became the
language's named built-ins and operators, each counted under the name it became; the
``extern fn`` fallbacks; and the lines of the ``.ss`` against the source's modeling file."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

# Operations that compute nothing a program would write.
BOOKKEEPING = frozenset({
    "_assert_tensor_metadata", "_assert_scalar", "sym_size", "sym_numel", "sym_stride",
    "to", "_to_copy", "alias", "detach", "contiguous", "clone", "lift_fresh_copy",
    "dropout", "lt", "ge", "gt", "le", "eq", "ne", "sym_constrain_range_for_size",
    "_check_is_size", "scalar_tensor", "copy_", "copy", "type_as", "assert",
})
# Comparisons are bookkeeping above unless they build the causal mask (`_MASK`).
_MASK = frozenset({"le", "lt", "ge", "gt", "eq", "ne", "__and__", "bitwise_and", "__or__",
                   "cumsum", "diff", "index", "new_ones", "ones", "arange", "expand",
                   "unsqueeze", "slice", "sub", "add", "where", "full", "triu", "tril",
                   "logical_and", "logical_not", "bitwise_not", "view", "reshape",
                   "select", "_unsafe_view", "clamp", "mul", "any", "all", "new_zeros",
                   "zeros", "copy_"})

# An aten operator's name → what it became in the language (its built-in or operator).
ATEN: dict[str, str] = {
    "linear": "linear", "addmm": "linear", "mm": "matmul", "bmm": "matmul",
    "matmul": "matmul", "embedding": "embedding",
    "scaled_dot_product_attention": "scaled_dot_product_attention",
    "layer_norm": "layer_norm", "native_layer_norm": "layer_norm", "rms_norm": "rms_norm",
    "silu": "silu", "gelu": "gelu", "relu": "relu", "relu_": "relu", "tanh": "tanh",
    "sigmoid": "sigmoid", "exp": "exp", "log": "log", "sqrt": "sqrt", "softmax": "softmax",
    "_softmax": "softmax", "log_softmax": "log_softmax", "_log_softmax": "log_softmax",
    "add": "+", "add_": "+", "sub": "-", "rsub": "-", "mul": "*", "div": "/", "neg": "-",
    "pow": "**",
    "view": "rearrange", "reshape": "rearrange", "_unsafe_view": "rearrange",
    "permute": "rearrange", "transpose": "rearrange", "t": "rearrange",
    "unsqueeze": "rearrange", "squeeze": "rearrange", "flatten": "rearrange",
    "expand": "repeat", "repeat": "repeat", "repeat_interleave": "repeat",
    "cat": "concat", "stack": "stack", "split": "split", "split_with_sizes": "split",
    "chunk": "split", "slice": "split", "select": "[ ]", "unbind": "[ ]", "getitem": "[ ]",
    "arange": "arange", "cos": "cos", "sin": "sin",
    "convolution": "conv2d", "conv2d": "conv2d", "max_pool2d": "reduce",
    "max_pool2d_with_indices": "reduce", "avg_pool2d": "reduce",
    "adaptive_avg_pool2d": "mean", "mean": "mean", "sum": "sum", "amax": "max",
    "max": "max", "min": "min", "maximum": "maximum", "minimum": "minimum",
    "where": "where", "clamp": "clamp", "abs": "abs",
}


def aten_name(node: Any) -> str:
    """``aten.linear.default`` → ``linear``; a Python operator (``operator.mul``) by its name."""
    target = node.target
    name = getattr(target, "__name__", str(target))
    pkt = getattr(target, "_overloadpacket", None)
    if pkt is not None:
        name = pkt.__name__
    return name.split(".")[0]


def innermost(node: Any) -> str:
    """The class name of the innermost module a graph node ran in ('' at the top)."""
    stack = node.meta.get("nn_module_stack") or {}
    if not stack:
        return ""
    cls = list(stack.values())[-1][1]
    return cls.__name__ if isinstance(cls, type) else str(cls).rsplit(".", 1)[-1]


@dataclass(frozen=True)
class Coverage:
    """How much of the source's graph became named built-ins (see the module)."""

    total: int
    named: Counter = field(default_factory=Counter)
    externs: tuple[str, ...] = ()
    unmapped: Counter = field(default_factory=Counter)
    ss_lines: int = 0
    source_lines: int | None = None
    source_file: str | None = None

    @property
    def fraction(self) -> float:
        return sum(self.named.values()) / self.total if self.total else 1.0

    def text(self) -> str:
        """The report as the command prints it."""
        top = ", ".join(f"{k} {v}" for k, v in sorted(self.named.items(), key=lambda kv: (-kv[1], kv[0])))
        lines = [f"coverage: {sum(self.named.values())} of {self.total} graph operations "
                 f"({self.fraction:.0%}) became named built-ins and operators: {top}"]
        if self.unmapped:
            lines.append("  not named: " + ", ".join(f"{k} {v}" for k, v in sorted(self.unmapped.items())))
        lines.append(f"  extern fallbacks: {len(self.externs)}"
                     + (" (" + ", ".join(self.externs) + ")" if self.externs else ""))
        if self.source_lines is not None:
            lines.append(f"  .ss lines: {self.ss_lines}, against {self.source_lines} in "
                         f"{self.source_file}")
        else:
            lines.append(f"  .ss lines: {self.ss_lines}")
        return "\n".join(lines)


def count_lines(path: str | None) -> int | None:
    if not path:
        return None
    try:
        with open(path, encoding="utf-8") as f:
            return sum(1 for _ in f)
    except OSError:
        return None


def lm_coverage(program: Any) -> Counter:
    """What each computing operation of a causal LM's exported graph became, by the
    module it ran in: the ops that build the attention mask in the base model became
    ``causal``, those of a norm module the norm, of a rotary module the rotary table."""
    named: Counter = Counter()
    for node in program.graph.nodes:
        if node.op != "call_function":
            continue
        op, cls = aten_name(node), innermost(node)
        if cls.endswith("Model") and op in _MASK:
            named["causal"] += 1
            continue
        if op in BOOKKEEPING:
            continue
        if "RMSNorm" in cls:
            named["rms_norm"] += 1
        elif "GELU" in cls or "Gelu" in cls:
            named["gelu"] += 1
        elif cls.endswith("ForCausalLM") or cls.endswith("LMHeadModel"):
            named["[ ]"] += 1  # the logits of the positions kept: all of them
        else:
            named[ATEN.get(op, "?" + op)] += 1
    return named


def summarise(named: Counter, externs: tuple[str, ...], ss_text: str, source_file: str | None) -> Coverage:
    """A ``Coverage`` from the per-name counts (names starting ``?`` weren't named)."""
    unmapped = Counter({k[1:]: v for k, v in named.items() if k.startswith("?")})
    kept = Counter({k: v for k, v in named.items() if not k.startswith("?")})
    total = sum(named.values())
    return Coverage(total, kept, externs, unmapped, ss_text.count("\n"),
                    count_lines(source_file), source_file)

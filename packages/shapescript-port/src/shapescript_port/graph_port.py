"""A plain ``nn.Module`` ported through its exported graph: each parameter a field of
the model (named by its module path), each input a parameter of ``forward`` (the batch
axis, the first, dynamic; the other sizes as the example has them), and each operation a
line of ``forward`` (``graph_ops``), annotated with its type."""

from __future__ import annotations

import keyword
import re
from collections import Counter
from collections.abc import Callable
from typing import Any

from shapescript_port.coverage import BOOKKEEPING, Coverage, aten_name, summarise
from shapescript_port.errors import UNSUPPORTED_OP, PortError, where
from shapescript_port.graph_ops import NAMED, WRITERS, Arg
from shapescript_port.source import Source
from shapescript_port.trace import PRIMES, export_module
from shapescript_port.verify import verify_module

# Names a local can't take: the language's keywords and the prelude's functions.
_TAKEN = frozenset({
    "fn", "dim", "const", "model", "param", "for", "in", "if", "else", "return", "import",
    "python", "as", "to", "over", "and", "or", "not", "export", "extern", "with", "m",
    "relu", "sigmoid", "tanh", "silu", "gelu", "exp", "log", "sqrt", "abs", "square", "sin",
    "cos", "clamp", "softmax", "log_softmax", "cumsum", "linear", "layer_norm", "rms_norm",
    "embedding", "conv2d", "dropout", "scaled_dot_product_attention", "rank", "world_size",
    "mean", "sum", "max", "min", "reduce", "rearrange", "repeat", "concat", "stack", "split",
    "where", "matmul", "causal", "zeros", "ones", "arange", "b", "true", "false", "none",
})


def _ident(text: str) -> str:
    name = re.sub(r"\W+", "_", text).strip("_") or "t"
    if name[0].isdigit():
        name = "t" + name
    return name


def _shape(val: Any) -> tuple[int | str, ...] | None:
    import torch

    if not isinstance(val, torch.Tensor):
        return None
    out: list[int | str] = []
    for s in val.shape:
        if isinstance(s, int):
            out.append(s)
        else:
            text = str(s)
            if not re.fullmatch(r"s\d+", text):
                return None  # a size the trace couldn't keep (data-dependent: u0)
            out.append("b")
    return tuple(out)


def _type(shape: tuple[int | str, ...]) -> str:
    return "[" + " ".join(str(s) for s in shape) + "]"


class _Writer:
    """The program of one exported graph (see the module's docstring)."""

    def __init__(self, program: Any, model: Any, model_name: str) -> None:
        self.program = program
        self.model = model
        self.model_name = model_name
        sig = program.graph_signature
        self.params = {**sig.inputs_to_parameters, **sig.inputs_to_buffers}
        self.fields: dict[str, str] = {}       # field name → source key
        self.field_shapes: dict[str, tuple[int, ...]] = {}
        self.names: dict[str, str] = {}        # node name → text
        self.shapes: dict[str, tuple[int | str, ...]] = {}
        self.used: set[str] = set()
        self.lines: list[str] = []
        self.externs: list[str] = []
        self.extern_decls: list[str] = []
        self.named: Counter = Counter()
        self.inputs: list[tuple[str, tuple[int | str, ...]]] = []

    def fresh(self, base: str) -> str:
        name = _ident(base)
        if name in _TAKEN or keyword.iskeyword(name):
            name += "_y"
        k, out = 1, name
        while out in self.used:
            k += 1
            out = f"{name}_{k}"
        self.used.add(out)
        return out

    def arg(self, a: Any) -> Arg:
        import torch.fx

        if isinstance(a, torch.fx.Node):
            return Arg(self.names[a.name], self.shapes.get(a.name))
        if a is None:
            return Arg("none", None, None)
        if isinstance(a, bool):
            return Arg("true" if a else "false", None, a)
        if isinstance(a, (int, float)):
            return Arg(repr(a), None, a)
        if isinstance(a, (list, tuple)) and all(isinstance(v, (int, float)) for v in a):
            return Arg(repr(list(a)), None, list(a))
        return Arg(repr(a), None, a)

    def module_of(self, node: Any) -> str:
        stack = node.meta.get("nn_module_stack") or {}
        return list(stack.values())[-1][0] if stack else ""

    def placeholder(self, node: Any) -> None:
        key = self.params.get(node.name)
        if key is not None:
            field = self.fresh(key)
            self.fields[field] = key
            val = node.meta["val"]
            self.field_shapes[field] = tuple(int(s) for s in val.shape)
            self.names[node.name] = f"m.{field}"
            return
        shape = _shape(node.meta.get("val"))
        if shape is None:
            raise PortError(UNSUPPORTED_OP, f"input `{node.name}` isn't a tensor", op="input")
        name = self.fresh(node.name)
        self.names[node.name] = name
        self.shapes[node.name] = shape
        self.inputs.append((name, shape))

    def call(self, node: Any) -> None:
        op = aten_name(node)
        if op in BOOKKEEPING and node.args and hasattr(node.args[0], "name"):
            self.names[node.name] = self.names[node.args[0].name]
            self.shapes[node.name] = self.shapes.get(node.args[0].name, ())
            return
        module = self.module_of(node)
        shape = _shape(node.meta.get("val"))
        if shape is None:
            raise PortError(UNSUPPORTED_OP, f"{where(module, str(node.target))} has no result "
                            "of one tensor whose sizes the trace knows (a data-dependent "
                            "size, or several results): no built-in and no typed extern "
                            "fn can say its type", module=module, op=str(node.target))
        args = [self.arg(a) for a in node.args]
        kwargs = {k: v for k, v in node.kwargs.items()}
        writer = WRITERS.get(op)
        text = writer(args, kwargs, shape) if writer else None
        comment = ""
        if text is None:
            text = self.extern(node, op, args, kwargs, shape, module)
            comment = f"  # extern: `{node.target}` has no built-in that fits (in `{module or 'forward'}`)"
            self.named["?" + op] += 1
        else:
            self.named[NAMED[op]] += 1
        name = self.fresh(module.rsplit(".", 1)[-1] if module else op)
        self.names[node.name] = name
        self.shapes[node.name] = shape
        self.lines.append(f"    {name}: {_type(shape)} = {text}{comment}")

    def extern(self, node: Any, op: str, args: list[Arg], kwargs: dict[str, Any],
               shape: tuple[int | str, ...], module: str) -> str:
        params, texts = [], []
        if kwargs:
            raise PortError(UNSUPPORTED_OP, f"{where(module, str(node.target))}: no built-in fits "
                            "and its keyword arguments can't be given a typed extern fn",
                            module=module, op=str(node.target))
        for i, a in enumerate(args):
            if a.shape is not None:
                params.append(f"x{i}: {_type(a.shape)}")
            elif isinstance(a.value, bool):
                params.append(f"a{i}: bool")
            elif isinstance(a.value, int):
                params.append(f"a{i}: int")
            elif isinstance(a.value, float):
                params.append(f"a{i}: float")
            else:
                raise PortError(UNSUPPORTED_OP, f"{where(module, str(node.target))}: no built-in fits, "
                                f"and its argument {i + 1} ({a.text}) can't be given a typed extern fn",
                                module=module, op=str(node.target))
            texts.append(a.text)
        import torch

        name = self.fresh(f"aten_{op}")
        overload = str(node.target)
        # An extern fn names an importable Python function: torch's own of the same name.
        home = next((h for h, mod in (("torch", torch), ("torch.nn.functional", torch.nn.functional))
                     if callable(getattr(mod, op, None))), None)
        if home is None:
            raise PortError(UNSUPPORTED_OP, f"{where(module, overload)}: no built-in fits, and "
                            "torch has no function of its name for a typed extern fn",
                            module=module, op=overload)
        self.extern_decls += [f"## `{overload}`: nothing in the language fits this call.",
                              f"extern fn {name}({', '.join(params)}) -> {_type(shape)} = "
                              f"\"{home}.{op}\""]
        self.externs.append(overload)
        return f"{name}({', '.join(texts)})"

    def write(self, label: str) -> tuple[str, str]:
        for node in self.program.graph.nodes:
            if node.op == "placeholder":
                self.placeholder(node)
            elif node.op == "call_function":
                self.call(node)
            elif node.op == "output":
                outs = node.args[0]
                if len(outs) != 1:
                    raise PortError(UNSUPPORTED_OP, "the module returns several values; the "
                                    "port writes modules that return one tensor", op="output")
                result = outs[0]
        ret = self.shapes[result.name]
        M = self.model_name
        out = [f"## {M}, ported by `shapescript port` from `{label}` through its exported graph.",
               "## The batch axis b is dynamic; the other sizes are the example inputs'.", ""]
        out += self.extern_decls + ([""] if self.extern_decls else [])
        out += [f"model {M}:"]
        for field, key in self.fields.items():
            out += [f"    ## `{key}`", f"    param {field}: {_type(self.field_shapes[field])}"]
        params = ", ".join(f"{n}: {_type(s)}" for n, s in self.inputs)
        out += ["", "## What the source's forward gives.",
                f"fn forward(m: {M}, {params}) -> {_type(ret)}:"]
        out += self.lines
        out += [f"    return {self.names[result.name]}", ""]
        return "\n".join(out), M


def port_graph(src: Source) -> tuple[str, str, dict[str, Any], Coverage, Callable[[Any, Any], float]]:
    """The program of a plain module, its model's name, weights, coverage report and the
    verification to run on the compiled program."""
    import torch

    batch = src.inputs[0].shape[0] if src.inputs[0].dim() else None
    dynamic = {(i, 0): "b" for i, t in enumerate(src.inputs) if t.dim() and t.shape[0] == batch}
    inputs = tuple(_resized(t, PRIMES[2]) if (i, 0) in dynamic else t for i, t in enumerate(src.inputs))
    program = export_module(src.model, inputs, dynamic)
    name = _ident(src.label)
    name = name[0].upper() + name[1:]
    w = _Writer(program, src.model, name)
    text, model_name = w.write(src.label)
    state = {**dict(src.model.named_parameters()), **dict(src.model.named_buffers())}
    tensors = {f: state[k].detach().to(torch.float32).clone() for f, k in w.fields.items()}
    coverage = summarise(w.named, tuple(w.externs), text, src.modeling_file)
    fresh = tuple(_resized(t, PRIMES[3]) if (i, 0) in dynamic else t for i, t in enumerate(src.inputs))
    return text, model_name, tensors, coverage, \
        lambda prog, m: verify_module(prog, "forward", m, src.model, fresh)


def _resized(t: Any, batch: int) -> Any:
    """``t`` with ``batch`` rows (repeated or cut): example inputs of a prime batch size."""
    import torch

    reps = -(-batch // t.shape[0])
    return torch.cat([t] * reps)[:batch].clone()

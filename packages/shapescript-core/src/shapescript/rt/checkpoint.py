"""Checkpoints: ``save(path, m, …)`` and ``load(path, M)``.

A checkpoint is a safetensors file. Model ``i``'s field ``f`` is the tensor ``"i.f"``
(as in an ``nn.ModuleList``'s ``state_dict``), and the metadata holds, under the key
``"shapescript"``, a JSON description of every model: its type name, module, and each
field's name, shape and dtype::

    {"version": 1, "models": [{"type": "Spotter", "module": "train",
      "fields": [{"name": "w_e", "key": "0.w_e", "shape": [16, 32], "dtype": "f32"}, …]}]}

``load`` reads a file by its content, whatever its extension: anything but such a file
is a ``ValueError`` saying that ``save`` writes the expected format. Nothing is ever
unpickled: the header is JSON, the tensors raw bytes. Every field's shape and dtype is
checked (``ShapeError`` naming ``Model.field``), and the tensors go to the program's
device.

Loading trusts nothing in the file: the format version, every header entry (a dtype, a
list of sizes, byte offsets that lie in the file, match the shape and tile the data with
no gap and nothing after it) is checked before safetensors reads a byte of data, so a
damaged file is a ``ValueError`` that names the field or the byte range, and a file that
can't be read an ``OSError``; nothing else.
"""

from __future__ import annotations

import json
import os
import stat
from typing import TYPE_CHECKING

import torch

from shapescript.files import atomic_write_with as _atomic_write_with
from shapescript.vocab import SAFETENSORS_DTYPES as _SAFETENSORS_DTYPES

from .device import call_device
from .errors import ShapeError
from .specs import dtype_name
from .ranks import _process_group, _rank0_flag
from .sharding import gathered

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Mapping
    from typing import Any, TypeAlias, TypeVar

    from .model import Model

    _M = TypeVar("_M", bound=Model)
    _Path: TypeAlias = str | os.PathLike[str]
    _Device: TypeAlias = torch.device | str
    # ``get(name)``: a tensor of the file; what ``load(…, keys=…)`` maps a field to.
    _Get: TypeAlias = Callable[[str], torch.Tensor]
    _KeySpec: TypeAlias = "str | Key | Callable[[_Get], torch.Tensor]"
    _Keys: TypeAlias = Mapping[str, _KeySpec]

_CKPT_KEY = "shapescript"
_CKPT_VERSION = 1
_MAX_HEADER = 100 * 1024 * 1024
# Bytes per element of each safetensors dtype that ShapeScript writes.
_ST_SIZES = {"BOOL": 1, "U8": 1, "I8": 1, "I16": 2, "I32": 4, "I64": 8, "F16": 2, "BF16": 2,
             "F32": 4, "F64": 8}
# safetensors' dtype names → ShapeScript's
_ST_DTYPES = {v: k for k, v in _SAFETENSORS_DTYPES.items()}


def _is_model_class(cls: object) -> bool:
    return isinstance(cls, type) and hasattr(cls, "_ss_field_specs") and hasattr(cls, "_ss_from_tensors")


def _not_checkpoint(path: _Path, why: str) -> ValueError:
    return ValueError(f"{os.fspath(path)} is not a ShapeScript checkpoint ({why}); `save` writes "
                      "one: a safetensors file with each model's type and fields in its metadata")


def save(path: _Path, *models: Model) -> None:
    """Writes ``models`` to the checkpoint ``path`` (safetensors, replacing the file
    atomically). A file that can't be written (a full disk, a read-only folder) is a
    ``WriteError`` naming ``path``.

    >>> save("ckpt.safetensors", m)                           # doctest: +SKIP
    """
    if not models:
        raise TypeError("save needs a path and at least one model")
    import safetensors.torch

    for i, m in enumerate(models):
        if not _is_model_class(type(m)):
            raise TypeError(f"save: argument {i + 2} is a {type(m).__name__}, not a ShapeScript model")
    # Under a process group rank 0 writes, and every rank returns once the file is whole.
    # A model whose fields are sharded among the ranks is first gathered whole on rank 0
    # (every rank takes part).
    models = tuple(gathered(m) for m in models)  # type: ignore[misc]
    group = _process_group()
    if group is not None and group[0] != 0:
        _rank0_flag(None, f"save {os.fspath(path)}")
        return
    tensors, described, seen = {}, [], set()
    for i, m in enumerate(models):
        fields = []
        for name, p in m._ss_fields():
            t = p.detach().to("cpu").contiguous()
            ptr = t.untyped_storage().data_ptr()
            if ptr in seen and t.numel():
                t = t.clone()
            seen.add(ptr)
            key = f"{i}.{name}"
            tensors[key] = t
            fields.append({"name": name, "key": key, "shape": list(t.shape),
                           "dtype": dtype_name(t.dtype)})
        cls = type(m)
        described.append({"type": cls.__name__, "module": cls.__module__, "fields": fields})
    meta = {"format": "pt",
            _CKPT_KEY: json.dumps({"version": _CKPT_VERSION, "models": described})}
    path = os.fspath(path)
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        import errno
        raise FileNotFoundError(errno.ENOENT, "no such folder", folder)
    def write(tmp: str) -> None:
        # A failed write (safetensors' own error, an OSError) is the writer's WriteError.
        safetensors.torch.save_file(tensors, tmp, metadata=meta)

    ok = False
    try:
        _atomic_write_with(path, write)
        ok = True
    finally:
        if group is not None:
            _rank0_flag(ok, f"save {path}")


def _read_header(path: _Path) -> dict[str, Any]:
    """The safetensors header of ``path`` (a dict), read without trusting the file, its
    tensor entries checked against the file's size (``_check_entries``)."""
    with open(path, "rb") as f:
        st = os.fstat(f.fileno())
        if not stat.S_ISREG(st.st_mode):
            raise _not_checkpoint(path, "not a regular file")
        head = f.read(8)
        size = st.st_size
        if len(head) < 8:
            raise _not_checkpoint(path, "the file is too short")
        if head[:2] == b"PK" or head[:1] == b"\x80":
            raise _not_checkpoint(path, "it looks like a torch.save file, which is a pickle")
        n = int.from_bytes(head, "little")
        if n < 2 or n > size - 8 or n > _MAX_HEADER:
            raise _not_checkpoint(path, "not a safetensors file")
        raw = f.read(n)
    if len(raw) < n:
        raise _not_checkpoint(path, f"the file ends inside its header (bytes 8..{8 + n})")
    try:
        header = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise _not_checkpoint(path, "not a safetensors file") from None
    if not isinstance(header, dict):
        raise _not_checkpoint(path, "not a safetensors file")
    _check_entries(path, header, size - 8 - n, 8 + n)
    return header


def _check_entries(path: _Path, header: dict[str, Any], data_size: int, data_start: int) -> None:
    """ValueError unless every tensor entry has a known dtype, a list of sizes ≥ 0, and
    ``data_offsets`` that match them and, together, cover the data exactly: what
    safetensors would otherwise report with an error of its own, or read past."""
    spans = []
    for key, entry in header.items():
        if key == "__metadata__":
            if not isinstance(entry, dict) or not all(
                    isinstance(v, str) for v in entry.values()):
                raise _not_checkpoint(path, "its metadata isn't a map of strings")
            continue
        if not isinstance(entry, dict):
            raise ValueError(f"{os.fspath(path)}: tensor {key!r}: its entry isn't an object")
        dtype, shape, offsets = entry.get("dtype"), entry.get("shape"), entry.get("data_offsets")
        where = f"{os.fspath(path)}: tensor {key!r}"
        if dtype not in _ST_SIZES:
            raise ValueError(f"{where}: dtype {dtype!r} isn't one ShapeScript reads "
                             f"({', '.join(_ST_SIZES)})")
        if not isinstance(shape, list) or not all(
                type(d) is int and d >= 0 for d in shape):
            raise ValueError(f"{where}: its shape {shape!r} isn't a list of sizes")
        if not (isinstance(offsets, list) and len(offsets) == 2
                and all(type(o) is int for o in offsets)):
            raise ValueError(f"{where}: its data_offsets {offsets!r} aren't two byte offsets")
        begin, end = offsets
        if not 0 <= begin <= end:
            raise ValueError(f"{where}: its data_offsets {offsets} are out of order")
        if end > data_size:
            raise ValueError(
                f"{where}: its data, bytes {data_start + begin}..{data_start + end} of the "
                f"file, lies past the end (the file has {data_start + data_size} bytes): "
                "the file is truncated or damaged")
        numel = 1
        for d in shape:
            numel *= d
        if end - begin != numel * _ST_SIZES[dtype]:
            raise ValueError(f"{where}: bytes {data_start + begin}..{data_start + end} are "
                             f"{end - begin} bytes, but a {dtype} tensor of shape {shape} "
                             f"takes {numel * _ST_SIZES[dtype]}")
        spans.append((begin, end, key))
    at = 0
    for begin, end, key in sorted(spans):
        if begin != at:
            what = "overlaps the tensor before it" if begin < at else (
                f"leaves bytes {data_start + at}..{data_start + begin} unused")
            raise ValueError(f"{os.fspath(path)}: tensor {key!r} {what}")
        at = end
    if at != data_size:
        raise ValueError(f"{os.fspath(path)}: {data_size - at} bytes after the last tensor "
                         f"(bytes {data_start + at}..{data_start + data_size}): the file is "
                         "damaged or isn't one `save` wrote")


def describe(path: _Path) -> list[dict[str, Any]]:
    """The models a checkpoint holds: its metadata's list of
    ``{"type", "module", "fields": [{"name", "key", "shape", "dtype"}, …]}``, checked
    against the tensors the file really holds. ``ValueError`` if it isn't a checkpoint."""
    header = _read_header(path)
    meta = header.get("__metadata__")
    if not isinstance(meta, dict) or _CKPT_KEY not in meta:
        raise _not_checkpoint(path, "safetensors without ShapeScript's metadata")
    try:
        info = json.loads(meta[_CKPT_KEY])
    except (ValueError, RecursionError):
        info = None
    if not isinstance(info, dict):
        raise _not_checkpoint(path, "its ShapeScript metadata is malformed")
    version = info.get("version")
    if version != _CKPT_VERSION or type(version) is not int:
        raise ValueError(f"{os.fspath(path)}: a checkpoint of format version {version!r}; "
                         f"this ShapeScript reads version {_CKPT_VERSION}")
    try:
        models = info["models"]
        ok = isinstance(models, list) and all(
            isinstance(m, dict) and isinstance(m.get("type"), str) and isinstance(m.get("fields"), list)
            and all(isinstance(f, dict) and isinstance(f.get("name"), str) and isinstance(f.get("key"), str)
                    for f in m["fields"])
            for m in models)
    except (ValueError, KeyError, TypeError):
        ok = False
    if not ok:
        raise _not_checkpoint(path, "its ShapeScript metadata is malformed")
    for m in models:
        for f in m["fields"]:
            entry = header.get(f["key"])
            if not isinstance(entry, dict) or "shape" not in entry or "dtype" not in entry:
                raise _not_checkpoint(path, f"{m['type']}.{f['name']} is in the metadata but not the file")
            f["shape"] = list(entry["shape"])  # sizes, checked by _check_entries
            f["dtype"] = _ST_DTYPES[entry["dtype"]]
    return models


def _tuple_text(shape: Iterable[int]) -> str:
    items = [str(int(d)) for d in shape]
    return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"


class Key:
    """Where ``load(…, keys=…)`` finds a field in a file of other names.

    ``name`` is the tensor's name in the file. A ``{…}`` placeholder in it (``"h.{l}.w"``)
    makes the field a stack along its first axis: the tensors for 0, 1, … up to that
    axis's size. ``transpose=True`` swaps each tensor's last two axes first (GPT-2's
    ``Conv1D`` weights are ``[in out]`` where ``linear`` takes ``[out in]``).

    >>> Key("transformer.h.{l}.attn.c_attn.weight", transpose=True)
    Key('transformer.h.{l}.attn.c_attn.weight', transpose=True)
    """

    __slots__ = ("name", "transpose")

    def __init__(self, name: str, transpose: bool = False) -> None:
        if not isinstance(name, str):
            raise TypeError(f"Key needs a tensor name, not {name!r}")
        self.name = name
        self.transpose = bool(transpose)

    def __repr__(self) -> str:
        return f"Key({self.name!r}" + (", transpose=True)" if self.transpose else ")")

    def read(self, get: _Get, leading: int | None) -> torch.Tensor:
        """The tensor this key names, through ``get(name)``; ``leading`` is the size
        of the field's first axis (for a stack)."""
        import string

        fields = [f for _, f, _, _ in string.Formatter().parse(self.name) if f is not None]
        if not fields:
            t = get(self.name)
            return t.transpose(-1, -2) if self.transpose else t
        if len(set(fields)) != 1 or not fields[0].isidentifier():
            raise ValueError(f"{self!r}: a key stacks over one `{{name}}` placeholder")
        if leading is None:
            raise ValueError(f"{self!r}: a stack needs a field with a first axis")
        parts = [get(self.name.format(**{fields[0]: i})) for i in range(leading)]
        if self.transpose:
            parts = [t.transpose(-1, -2) for t in parts]
        return torch.stack(parts)


def _load_keys(path: _Path, model_class: type[_M], keys: dict[str, _KeySpec], device: _Device | None) -> _M:
    """``load`` with ``keys``: every field from the tensors its key names."""
    from safetensors import safe_open

    name = model_class.__name__
    shown = os.fspath(path)
    specs = tuple(model_class._ss_field_specs)
    declared = {s.name for s in specs}
    unknown = [k for k in keys if k not in declared]
    if unknown:
        raise ValueError(f"keys: {name} has no field{'s' if len(unknown) > 1 else ''} "
                         + ", ".join(unknown))
    device = call_device() if device is None else torch.device(device)
    tensors = {}
    try:
        fh_ctx = safe_open(os.fspath(path), framework="pt", device="cpu")
    except OSError:
        raise
    except Exception as err:
        raise ValueError(f"{shown}: not a safetensors file ({err})") from None
    with fh_ctx as fh:
        held = set(fh.keys())

        def get(key: str) -> torch.Tensor:
            if key not in held:
                raise ShapeError(f"{who}: {shown} has no tensor {key!r}")
            return fh.get_tensor(key)

        for spec in specs:
            who = f"{spec.where}: {name}.{spec.name}"
            how = keys.get(spec.name, spec.name)
            want = tuple(spec.axes)
            if isinstance(how, str):
                how = Key(how)
            if isinstance(how, Key):
                t = how.read(get, want[0] if want else None)
            elif callable(how):
                t = how(get)
            else:
                raise TypeError(f"keys[{spec.name!r}] is a tensor name, a Key or a function, "
                                f"not {how!r}")
            if not isinstance(t, torch.Tensor):
                raise TypeError(f"{who}: keys[{spec.name!r}] gave {type(t).__name__}, not a tensor")
            if tuple(t.shape) != want:
                raise ShapeError(f"{who}: expected {spec.written} = {_tuple_text(want)}, got shape "
                                 f"{_tuple_text(tuple(t.shape))} from {how!r} in {shown}")
            dt = spec.dtype
            if isinstance(dt, torch.dtype) and t.dtype != dt:
                if not (t.dtype.is_floating_point and dt.is_floating_point):
                    raise ShapeError(f"{who}: expected dtype {dtype_name(dt)}, got "
                                     f"{dtype_name(t.dtype)} from {how!r} in {shown}")
                t = t.to(dt)  # a float checkpoint read at the declared float dtype
            tensors[spec.name] = t.contiguous().to(device) if device.type != "cpu" else t.contiguous()  # type: ignore[union-attr]
    return model_class._ss_from_tensors(tensors)


def load(path: _Path, model_class: type[_M], device: _Device | None = None, keys: _Keys | None = None) -> _M:
    """The first model of type ``model_class`` in the checkpoint ``path``, its fields'
    shapes and dtypes checked against the class's declaration, on ``device`` (default:
    the program's device, else the CPU).

    With ``keys``, ``path`` is any safetensors file (a Hugging Face ``model.safetensors``,
    say), and ``keys`` maps a field to where it is: a tensor name, a ``Key`` (a stack
    over a ``{l}`` placeholder, a transpose), or a function ``get -> tensor`` for
    anything else (``get(name)`` reads a tensor). A field not in ``keys`` is read under
    its own name. Every field's shape is checked as above; a float tensor is converted
    to the field's float dtype.

    Raises ``ValueError`` when ``path`` isn't a checkpoint or holds no such model, and
    ``ShapeError`` naming ``Model.field`` when a field is missing, extra, or of another
    shape or dtype.
    """
    if not _is_model_class(model_class):
        raise TypeError(f"load needs a ShapeScript model class, not {model_class!r}")
    if keys is not None:
        return _load_keys(path, model_class, dict(keys), device)
    name = model_class.__name__
    models = describe(path)
    entry = next((m for m in models if m["type"] == name), None)
    shown = os.fspath(path)
    if entry is None:
        held = ", ".join(m["type"] for m in models) or "no models"
        raise ValueError(f"{shown} holds no {name} (it holds {held})")
    stored = {f["name"]: f for f in entry["fields"]}
    specs = tuple(model_class._ss_field_specs)
    for spec in specs:
        who = f"{name}.{spec.name}"
        f = stored.get(spec.name)
        if f is None:
            raise ShapeError(f"{spec.where}: {who}: missing from {shown}")
        want = tuple(spec.axes)
        if tuple(f["shape"]) != want:
            raise ShapeError(f"{spec.where}: {who}: expected {spec.written} = {_tuple_text(want)}, "
                             f"got shape {_tuple_text(f['shape'])} in {shown}")
        dt = spec.dtype
        want_dt = dtype_name(dt) if isinstance(dt, torch.dtype) else None
        if want_dt is not None and f["dtype"] != want_dt:
            raise ShapeError(f"{spec.where}: {who}: expected dtype {want_dt}, got {f['dtype']} "
                             f"in {shown}")
    extra = [n for n in stored if n not in {s.name for s in specs}]
    if extra:
        raise ShapeError(f"{shown}: its {name} has field{'s' if len(extra) > 1 else ''} "
                         + ", ".join(extra) + f" that {name} doesn't declare")
    from safetensors import safe_open

    device = call_device() if device is None else torch.device(device)
    tensors = {}
    try:
        with safe_open(os.fspath(path), framework="pt", device="cpu") as fh:
            for spec in specs:
                t = fh.get_tensor(stored[spec.name]["key"])
                tensors[spec.name] = t.to(device) if device.type != "cpu" else t  # type: ignore[union-attr]
    except OSError:
        raise
    except Exception as err:  # the file changed since it was checked, or a safetensors limit
        raise ValueError(f"{shown}: safetensors can't read it: {err}") from None
    return model_class._ss_from_tensors(tensors)


__all__ = ["save", "load", "describe", "Key"]

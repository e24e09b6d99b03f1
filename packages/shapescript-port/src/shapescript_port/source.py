"""What ``SOURCE`` names, loaded: a transformers model (a config folder, or a class name
and config options; random weights from the config unless the folder holds a
checkpoint; nothing is downloaded) or ``module:factory``, a Python function that returns
an ``nn.Module`` and its example inputs."""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import json
import os
import sys
from dataclasses import dataclass, field
from typing import Any

from shapescript_port.errors import BAD_SOURCE, PortError


@dataclass(frozen=True)
class Source:
    """A model to port. ``config`` is the transformers configuration (None for a plain
    module); ``inputs`` the example inputs of a plain module; ``label`` names it in
    messages; ``modeling_file`` is the file its class is defined in."""

    model: Any
    label: str
    config: Any = None
    inputs: tuple[Any, ...] = ()
    modeling_file: str | None = None
    options: dict[str, Any] = field(default_factory=dict)

    @property
    def is_transformers(self) -> bool:
        return self.config is not None


def parse_options(pairs: tuple[str, ...] | list[str]) -> dict[str, Any]:
    """``key=value`` config options, each value read as JSON when it is JSON (``64``,
    ``true``, ``null``, ``[1, 2]``) and as a string otherwise."""
    options: dict[str, Any] = {}
    for pair in pairs:
        key, eq, text = pair.partition("=")
        if not eq or not key.strip():
            raise PortError(BAD_SOURCE, f"config option `{pair}` isn't KEY=VALUE")
        try:
            options[key.strip()] = json.loads(text)
        except json.JSONDecodeError:
            options[key.strip()] = text
    return options


def load_source(source: str, options: dict[str, Any] | None = None, *, seed: int = 0) -> Source:
    """The model ``source`` names (see the module's docstring)."""
    import torch

    options = dict(options or {})
    if ":" in source and not os.path.isdir(source):
        return _factory(source)
    torch.manual_seed(seed)
    if os.path.isdir(source):
        return _folder(source, options)
    return _class(source, options)


def _modeling_file(model: Any) -> str | None:
    try:
        return inspect.getsourcefile(type(model))
    except (TypeError, OSError):
        return None


def _class(name: str, options: dict[str, Any]) -> Source:
    import transformers

    cls = getattr(transformers, name, None) if name.isidentifier() else None
    config_class = getattr(cls, "config_class", None)
    if cls is None or config_class is None or not hasattr(cls, "from_config") and not callable(cls):
        raise PortError(BAD_SOURCE, f"`{name}` is neither a folder, a transformers model class "
                        "(LlamaForCausalLM …) nor module:factory")
    try:
        config = config_class(**options)
    except (TypeError, ValueError) as err:
        raise PortError(BAD_SOURCE, f"{config_class.__name__} refuses the options: {err}") from None
    try:
        model = cls(config).eval()
    except (AssertionError, TypeError, ValueError, RuntimeError) as err:
        raise PortError(BAD_SOURCE, f"{name} can't be built from the options: {err}") from None
    return Source(model, name, config, modeling_file=_modeling_file(model), options=options)


def _folder(folder: str, options: dict[str, Any]) -> Source:
    import transformers

    if not os.path.isfile(os.path.join(folder, "config.json")):
        raise PortError(BAD_SOURCE, f"{folder} has no config.json")
    try:
        config = transformers.AutoConfig.from_pretrained(folder, local_files_only=True, **options)
        archs = getattr(config, "architectures", None) or []
        cls = getattr(transformers, archs[0], None) if archs else None
        if cls is None:
            cls = transformers.AutoModelForCausalLM._model_mapping[type(config)]
        weights = [f for f in os.listdir(folder) if f.endswith(".safetensors")]
        if weights:
            model = cls.from_pretrained(folder, config=config, local_files_only=True)
        else:
            model = cls(config)
    except (KeyError, ValueError, OSError) as err:
        raise PortError(BAD_SOURCE, f"transformers can't load {folder}: {err}") from None
    model = model.float().eval()
    return Source(model, type(model).__name__, config, modeling_file=_modeling_file(model),
                  options=options)


def _factory(spec: str) -> Source:
    import torch

    where, _, fn_name = spec.rpartition(":")
    try:
        if where.endswith(".py") or os.sep in where:
            name = "_shapescript_port_" + os.path.splitext(os.path.basename(where))[0]
            loader_spec = importlib.util.spec_from_file_location(name, where)
            if loader_spec is None or loader_spec.loader is None:
                raise ImportError(f"no Python module at {where}")
            module = importlib.util.module_from_spec(loader_spec)
            sys.modules[name] = module
            loader_spec.loader.exec_module(module)
        else:
            module = importlib.import_module(where)
    except (ImportError, OSError, SyntaxError) as err:
        raise PortError(BAD_SOURCE, f"can't import {where}: {err}") from None
    factory = getattr(module, fn_name, None)
    if not callable(factory):
        raise PortError(BAD_SOURCE, f"{where} has no function `{fn_name}`")
    made = factory()
    if not (isinstance(made, tuple) and len(made) == 2 and isinstance(made[0], torch.nn.Module)):
        raise PortError(BAD_SOURCE, f"{spec} must return (an nn.Module, its example inputs), "
                        f"not {type(made).__name__}")
    model, inputs = made
    inputs = tuple(inputs) if isinstance(inputs, (tuple, list)) else (inputs,)
    if not inputs or not all(isinstance(t, torch.Tensor) for t in inputs):
        raise PortError(BAD_SOURCE, f"{spec}'s example inputs must be tensors")
    return Source(model.float().eval(), type(model).__name__, None, inputs,
                  modeling_file=_modeling_file(model))

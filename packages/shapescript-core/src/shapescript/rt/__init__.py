"""ShapeScript's runtime: what compiled modules call (``import shapescript.rt as _ss_rt``).

- checks: ``TensorSpec``, ``HostSpec``, ``ModelSpec``, ``DomainSpec``; ``check_args``,
  ``make_checker``, ``check_as``, ``make_as_checker``;
- errors: ``ShapeError``, ``DeviceError``, ``DomainError``, ``ShapeScriptError``;
- the prelude's helpers: ``softmax``, ``log_softmax``, ``logsumexp``, ``layer_norm``,
  ``rms_norm``, ``cross_entropy``, ``cumsum``, ``dropout``, ``stack_map``; training
  mode: ``train``, ``is_training``;
- checks inside bodies, for facts the types can't prove: ``divides``, ``has_size``, ``sliced``,
  ``picked``, ``cut``, ``at_least``, ``counted`` (in ``ops.py``); ``pack`` and ``unpack``;
- devices: ``devices``, ``declare_module_device``, ``current_device``, ``call_device``;
  ``from_host`` (an ``as`` on a Python value), ``host_transfers``, ``device_problem``;
- settings: ``checks_mode``, ``value_checks_mode``, ``mode_enabled``;
- models and the training built-ins (``model.py``, ``training.py``), re-exported below
  with their ``__all__`` (or public names) when those modules are present.
"""

from __future__ import annotations

from .checks import (PROCESS_DEVICE, check_args, check_args_slow, check_as, check_as_slow,
                     make_as_checker, make_checker, same_unknowns)
from .config import checks_mode, mode_enabled, value_checks_mode
from .device import (call_device, current_device, declare_module_device, device_problem,
                     devices, from_host, host_transfers, parse_device, reset_devices)
from .domains import domain_problem
from .errors import DeviceError, DomainError, ShapeError, ShapeScriptError
from .ops import (at_least, conv2d, counted, cross_entropy, cumsum, cut, divides, dropout,
                  has_size, is_training,
                  layer_norm, log_softmax, logsumexp, pack, picked, rms_norm, sliced, softmax,
                  stack_map, train, unpack)
from .specs import FLOAT, INT, DomainSpec, HostSpec, ModelSpec, TensorSpec, dtype_name

__all__ = [
    "PROCESS_DEVICE", "check_args", "check_args_slow", "check_as", "check_as_slow",
    "make_as_checker", "make_checker", "same_unknowns",
    "checks_mode", "mode_enabled", "value_checks_mode",
    "call_device", "current_device", "declare_module_device", "devices", "parse_device",
    "reset_devices", "from_host", "host_transfers", "device_problem",
    "domain_problem",
    "DeviceError", "DomainError", "ShapeError", "ShapeScriptError",
    "at_least", "counted", "cut", "divides", "has_size", "picked", "sliced", "pack", "unpack",
    "conv2d", "cross_entropy", "cumsum", "dropout", "is_training", "layer_norm", "log_softmax",
    "logsumexp", "rms_norm", "softmax", "stack_map", "train",
    "FLOAT", "INT", "DomainSpec", "HostSpec", "ModelSpec", "TensorSpec", "dtype_name",
]


def _reexport(part: str) -> None:
    """``from .part import *`` (its ``__all__``, else what it defines), if it exists."""
    try:
        module = __import__(f"{__name__}.{part}", fromlist=["_"])
    except ModuleNotFoundError as err:
        if err.name != f"{__name__}.{part}":
            raise
        return
    names = getattr(module, "__all__", None)
    if names is None:
        names = [n for n, v in vars(module).items() if not n.startswith("_")
                 and getattr(v, "__module__", None) == module.__name__]
    globals().update({n: getattr(module, n) for n in names})
    __all__.extend(n for n in names if n not in __all__)


_reexport("model")
_reexport("training")
_reexport("report")
_reexport("checkpoint")

"""ShapeScript's runtime: what compiled modules call (``import shapescript.rt as _ss_rt``).

- checks: ``TensorSpec``, ``HostSpec``, ``ModelSpec``, ``DomainSpec``; ``check_args``,
  ``make_checker``, ``check_as``, ``make_as_checker`` (DECISIONS §20);
- errors: ``ShapeError``, ``DeviceError``, ``DomainError``, ``ShapeScriptError``;
- the prelude's helpers: ``softmax``, ``log_softmax``, ``logsumexp``, ``layer_norm``,
  ``rms_norm``, ``cross_entropy``, ``cumsum``, ``dropout``, ``stack_map``,
  ``set_field``; training mode: ``train``,
  ``is_training``;
- devices: ``devices``, ``declare_module_device``, ``current_device``, ``call_device``;
- settings: ``checks_mode``, ``value_checks_mode``, ``mode_enabled``.
"""

from .checks import (PROCESS_DEVICE, check_args, check_args_slow, check_as, check_as_slow,
                     make_as_checker, make_checker)
from .config import checks_mode, mode_enabled, value_checks_mode
from .device import (call_device, current_device, declare_module_device, devices,
                     parse_device, reset_devices)
from .domains import domain_problem
from .errors import DeviceError, DomainError, ShapeError, ShapeScriptError
from .ops import (cross_entropy, cumsum, dropout, is_training, layer_norm, log_softmax,
                  logsumexp, rms_norm, set_field, softmax, stack_map, train)
from .specs import FLOAT, INT, DomainSpec, HostSpec, ModelSpec, TensorSpec, dtype_name

__all__ = [
    "PROCESS_DEVICE", "check_args", "check_args_slow", "check_as", "check_as_slow",
    "make_as_checker", "make_checker",
    "checks_mode", "mode_enabled", "value_checks_mode",
    "call_device", "current_device", "declare_module_device", "devices", "parse_device",
    "reset_devices",
    "domain_problem",
    "DeviceError", "DomainError", "ShapeError", "ShapeScriptError",
    "cross_entropy", "cumsum", "dropout", "is_training", "layer_norm", "log_softmax",
    "logsumexp", "rms_norm", "set_field", "softmax", "stack_map", "train",
    "FLOAT", "INT", "DomainSpec", "HostSpec", "ModelSpec", "TensorSpec", "dtype_name",
]

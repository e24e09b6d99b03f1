"""The core's public API for plugins: everything an exporter or the language server may
import from ShapeScript, in one place. Nothing outside ``shapescript-core`` imports a
core module other than this one (an import-linter contract checks it), so the core can
change its insides without breaking a plugin.

Importing this module is light (no torch): the names are loaded when first used.

The steps of an exporter, with these names::

    program = check_file(path)                       # parse + check, never raises for the file
    if not program.ok:
        raise shapescript_error(program.diagnostics, program.sources)
    fn = choose_function(program.main.env, path, fn, "--fn")
    traced = generate_traced(program, fn)            # the function lowered for tracing
    ...                                              # the plugin's own tail, then atomic_write
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    # What static tools see: each name from its home, re-exported (`X as X`); at run time
    # `__getattr__` below loads the same homes (`_HOMES`) on first use.
    from shapescript import error_codes as error_codes
    from shapescript import vocab as vocab
    from shapescript.rt import distributed as distributed
    from shapescript.builtin_registry import (
        BuiltinDoc as BuiltinDoc, builtin_doc as builtin_doc, builtin_docs as builtin_docs,
    )
    from shapescript.check.env import (
        FieldInfo as FieldInfo, FnSig as FnSig, ModelInfo as ModelInfo,
        ModuleEnv as ModuleEnv, ParamSig as ParamSig,
    )
    from shapescript.check.exports import (
        export_diagnostics as export_diagnostics,
    )
    from shapescript.check.query import (
        nodes_at as nodes_at, prelude_file as prelude_file, span_contains as span_contains,
        syntax as syntax, walk as walk,
    )
    from shapescript.check.result import (
        CheckedModule as CheckedModule, Program as Program,
    )
    from shapescript.check.serving import (
        ServingForm as ServingForm, serving_diagnostics as serving_diagnostics,
        serving_form as serving_form,
    )
    from shapescript.check.sizes import (
        Size as Size,
    )
    from shapescript.check.types import (
        TensorType as TensorType,
    )
    from shapescript.codegen.functions import (
        CallSite as CallSite, generate_functions as generate_functions, torch_views as torch_views,
    )
    from shapescript.codegen.names import (
        python_name as python_name,
    )
    from shapescript.codegen.pytext import (
        py_attribute as py_attribute, py_comment as py_comment,
        py_docstring as py_docstring, py_identifier as py_identifier,
        py_literal as py_literal, py_name_from as py_name_from,
    )
    from shapescript.codegen.stubs import (
        STUB_STYLES as STUB_STYLES, stub_source as stub_source,
    )
    from shapescript.codegen.traced import (
        TracedModule as TracedModule, domain_of as domain_of,
        generate_traced as generate_traced,
    )
    from shapescript.codes import (
        CODES as CODES, explain as explain, normalize_code as normalize_code,
    )
    from shapescript.compiler import (
        check_program as check_program, check_source as check_source,
        choose_function as choose_function, compile_file as compile_file,
        compile_source as compile_source, internal_error as internal_error,
        prelude_env as prelude_env,
    )
    from shapescript.configured import (
        load_module as load_module, source_with_dims as source_with_dims,
    )
    from shapescript.diagnostics import (
        INTERNAL_NOTE as INTERNAL_NOTE, Diagnostic as Diagnostic, Label as Label,
    )
    from shapescript.errors import (
        DeviceError as DeviceError, DomainError as DomainError, ShapeError as ShapeError,
        ShapeScriptError as ShapeScriptError,
    )
    from shapescript.files import (
        WriteError as WriteError, atomic_dir as atomic_dir, atomic_write as atomic_write,
        atomic_write_with as atomic_write_with, same_file as same_file,
        probe_writable as probe_writable, sweep_stale as sweep_stale, write_error as write_error,
    )
    from shapescript.fixes import (
        Edit as Edit, Fix as Fix, apply_edits as apply_edits, quick_fix as quick_fix,
    )
    from shapescript.importer import (
        import_file as import_file, install as install,
    )
    from shapescript.incremental import (
        CheckCancelled as CheckCancelled, IncrementalChecker as IncrementalChecker,
        split_chunks as split_chunks,
    )
    from shapescript.plugins import (
        CHECK_PROFILES as CHECK_PROFILES, COMMANDS as COMMANDS,
        CheckProfile as CheckProfile, EXPORT_TARGETS as EXPORT_TARGETS,
        ExportFailed as ExportFailed, ExportTarget as ExportTarget,
        KNOWN_PROFILES as KNOWN_PROFILES, KNOWN_TARGETS as KNOWN_TARGETS,
        entry_points as entry_points, load_entry_point as load_entry_point,
        missing_hint as missing_hint,
    )
    from shapescript.progress import (
        Progress as Progress, format_duration as format_duration,
        format_size as format_size,
    )
    from shapescript.project_config import (
        CONFIG_FILES as CONFIG_FILES, ConfigError as ConfigError,
        check_stub_style as check_stub_style, config_table as config_table,
        find_config as find_config, read_toml as read_toml, stub_style as stub_style,
    )
    from shapescript.render import (
        render as render, render_full as render_full,
    )
    from shapescript.rt.device import (
        device_problem as device_problem,
    )
    from shapescript.rt.report import (
        report_sink as report_sink,
    )
    from shapescript.rt.standalone import (
        helper_source as helper_source,
    )
    from shapescript.signals import (
        Stopped as Stopped, die_with_parent as die_with_parent, signal_of as signal_of,
        stop_message as stop_message, stop_on_signals as stop_on_signals,
    )
    from shapescript.source import (
        MAX_SOURCE_BYTES as MAX_SOURCE_BYTES, SourceDecodeError as SourceDecodeError,
        decode_source as decode_source, read_source_bytes as read_source_bytes,
    )
    from shapescript.suppressions import (
        apply_suppressions as apply_suppressions,
    )
    from shapescript.term import (
        debug_enabled as debug_enabled, use_color as use_color,
    )
    from shapescript.vocab import (
        device_name as device_name, device_parts as device_parts,
    )

__all__ = [
    # checking
    "Program", "CheckedModule", "ModuleEnv", "FnSig", "ParamSig", "ModelInfo", "FieldInfo",
    "TensorType", "Size", "check_file", "check_program", "read_source", "SourceDecodeError",
    "choose_function",
    "export_diagnostics", "serving_diagnostics", "serving_form", "ServingForm",
    # diagnostics
    "Diagnostic", "Label", "render", "render_diagnostics", "internal_error", "INTERNAL_NOTE",
    "shapescript_error", "ShapeScriptError", "ShapeError", "DomainError", "DeviceError",
    # code generation
    "compile_source", "compile_file", "python_name", "generate_traced", "TracedModule",
 "torch_views",
    "helper_source", "device_name", "domain_of",
    # source text in generated Python: the one way there (codegen/pytext.py)
    "py_literal", "py_comment", "py_docstring", "py_identifier", "py_attribute", "py_name_from",
    # shared helpers and facts
    "vocab", "error_codes", "atomic_write", "atomic_write_with", "atomic_dir", "same_file", "use_color",
    "WriteError", "write_error", "sweep_stale", "probe_writable", "Stopped", "stop_on_signals", "stop_message",
    "signal_of", "die_with_parent",
    "debug_enabled", "Progress", "format_size", "format_duration",
    # editors (the language server)
    "IncrementalChecker", "CheckCancelled", "split_chunks", "syntax", "walk", "nodes_at", "span_contains",
    "prelude_file", "prelude_env", "BuiltinDoc", "builtin_doc", "builtin_docs",
    # plugins
    "ExportTarget", "CheckProfile", "ExportFailed", "KNOWN_TARGETS", "KNOWN_PROFILES", "missing_hint",
    # more for the command line
    "check_source", "read_source_bytes", "render_full", "internal_error_at", "CODES",
    "explain", "normalize_code", "device_parts", "device_problem", "install", "import_file",
    "EXPORT_TARGETS", "CHECK_PROFILES", "COMMANDS", "entry_points", "load_entry_point",
    # the check command and the editor: inline suppressions, quick fixes
    "apply_suppressions", "quick_fix", "apply_edits", "Fix", "Edit",
    # the check command's stdin
    "decode_source", "MAX_SOURCE_BYTES",
    # `run` on many processes: the process group of a rank torchrun started
    "distributed",
    # `run --log FILE`: report's JSON-lines sink (torch)
    "report_sink",
    # `build --dim NAME=N`: a file's dims set from outside; `run --dim`: the module so built
    "source_with_dims", "load_module",
    # `shapescript stubs`: Python type stubs of a checked file
    "stub_source", "STUB_STYLES",
    # [tool.shapescript]: where a project's settings are
    "CONFIG_FILES", "ConfigError", "check_stub_style", "config_table", "find_config",
    "read_toml", "stub_style",
]

_HOMES: dict[str, str] = {
    "apply_suppressions": "shapescript.suppressions",
    "quick_fix": "shapescript.fixes",
    "apply_edits": "shapescript.fixes",
    "Fix": "shapescript.fixes",
    "Edit": "shapescript.fixes",
    "stub_source": "shapescript.codegen.stubs",
    "STUB_STYLES": "shapescript.codegen.stubs",
    "CONFIG_FILES": "shapescript.project_config",
    "ConfigError": "shapescript.project_config",
    "check_stub_style": "shapescript.project_config",
    "config_table": "shapescript.project_config",
    "find_config": "shapescript.project_config",
    "read_toml": "shapescript.project_config",
    "stub_style": "shapescript.project_config",
    "source_with_dims": "shapescript.configured",
    "load_module": "shapescript.configured",
    "decode_source": "shapescript.source",
    "MAX_SOURCE_BYTES": "shapescript.source",
    "check_source": "shapescript.compiler",
    "read_source_bytes": "shapescript.source",
    "render_full": "shapescript.render",
    "CODES": "shapescript.codes",
    "explain": "shapescript.codes",
    "normalize_code": "shapescript.codes",
    "device_parts": "shapescript.vocab",
    "device_problem": "shapescript.rt.device",
    "install": "shapescript.importer",
    "import_file": "shapescript.importer",
    "EXPORT_TARGETS": "shapescript.plugins",
    "CHECK_PROFILES": "shapescript.plugins",
    "COMMANDS": "shapescript.plugins",
    "entry_points": "shapescript.plugins",
    "load_entry_point": "shapescript.plugins",
    "Program": "shapescript.check.result",
    "CheckedModule": "shapescript.check.result",
    "ModuleEnv": "shapescript.check.env",
    "FnSig": "shapescript.check.env",
    "ParamSig": "shapescript.check.env",
    "ModelInfo": "shapescript.check.env",
    "FieldInfo": "shapescript.check.env",
    "TensorType": "shapescript.check.types",
    "Size": "shapescript.check.sizes",
    "check_program": "shapescript.compiler",
    "SourceDecodeError": "shapescript.source",
    "choose_function": "shapescript.compiler",
    "export_diagnostics": "shapescript.check.exports",
    "serving_diagnostics": "shapescript.check.serving",
    "serving_form": "shapescript.check.serving",
    "ServingForm": "shapescript.check.serving",
    "Diagnostic": "shapescript.diagnostics",
    "Label": "shapescript.diagnostics",
    "INTERNAL_NOTE": "shapescript.diagnostics",
    "render": "shapescript.render",
    "internal_error": "shapescript.compiler",
    "ShapeScriptError": "shapescript.errors",
    "ShapeError": "shapescript.errors",
    "DomainError": "shapescript.errors",
    "DeviceError": "shapescript.errors",
    "compile_source": "shapescript.compiler",
    "compile_file": "shapescript.compiler",
    "python_name": "shapescript.codegen.names",
    "py_literal": "shapescript.codegen.pytext",
    "py_comment": "shapescript.codegen.pytext",
    "py_docstring": "shapescript.codegen.pytext",
    "py_identifier": "shapescript.codegen.pytext",
    "py_attribute": "shapescript.codegen.pytext",
    "py_name_from": "shapescript.codegen.pytext",
    "generate_traced": "shapescript.codegen.traced",
    "TracedModule": "shapescript.codegen.traced",
    "domain_of": "shapescript.codegen.traced",
    "helper_source": "shapescript.rt.standalone",
    "generate_functions": "shapescript.codegen.functions",
    "CallSite": "shapescript.codegen.functions",
    "torch_views": "shapescript.codegen.functions",
    "device_name": "shapescript.vocab",
    "atomic_write": "shapescript.files",
    "atomic_write_with": "shapescript.files",
    "atomic_dir": "shapescript.files",
    "same_file": "shapescript.files",
    "WriteError": "shapescript.files",
    "write_error": "shapescript.files",
    "sweep_stale": "shapescript.files",
    "probe_writable": "shapescript.files",
    "Stopped": "shapescript.signals",
    "stop_on_signals": "shapescript.signals",
    "stop_message": "shapescript.signals",
    "signal_of": "shapescript.signals",
    "die_with_parent": "shapescript.signals",
    "use_color": "shapescript.term",
    "debug_enabled": "shapescript.term",
    "Progress": "shapescript.progress",
    "format_size": "shapescript.progress",
    "format_duration": "shapescript.progress",
    "report_sink": "shapescript.rt.report",
    "IncrementalChecker": "shapescript.incremental",
    "CheckCancelled": "shapescript.incremental",
    "split_chunks": "shapescript.incremental",
    "syntax": "shapescript.check.query",
    "walk": "shapescript.check.query",
    "nodes_at": "shapescript.check.query",
    "span_contains": "shapescript.check.query",
    "prelude_file": "shapescript.check.query",
    "prelude_env": "shapescript.compiler",
    "BuiltinDoc": "shapescript.builtin_registry",
    "builtin_doc": "shapescript.builtin_registry",
    "builtin_docs": "shapescript.builtin_registry",
    "ExportTarget": "shapescript.plugins",
    "ExportFailed": "shapescript.plugins",
    "CheckProfile": "shapescript.plugins",
    "KNOWN_TARGETS": "shapescript.plugins",
    "KNOWN_PROFILES": "shapescript.plugins",
    "missing_hint": "shapescript.plugins",
}


def read_source(path: str) -> str:
    """A ``.ss`` file's text, read as the compiler reads it: OSError when it can't be
    (missing, not a regular file, too large: exit 2), ``SourceDecodeError`` (a
    ``ValueError`` whose ``diagnostic`` points at the first bad byte: exit 1) when it
    isn't UTF-8."""
    from shapescript.source import read_source as _read

    return _read(path)


def check_file(path: str) -> Program:
    """Parse and check the file ``path`` and what it imports: a ``Program`` whose
    ``diagnostics`` say what is wrong (``program.ok`` when nothing is). Raises OSError
    when the file can't be read; a file that isn't UTF-8 is a program with one error."""
    from shapescript.compiler import check_path

    return check_path(path)


def render_diagnostics(diagnostics: Iterable[Diagnostic], sources: Mapping[str, str] | None, *,
                       color: bool = False,
                       fmt: str = "full") -> str:
    """The diagnostics in one of the three layouts (``full``: rustc's; ``concise``;
    ``json``)."""
    from shapescript.render import render as _render

    return _render(list(diagnostics), dict(sources or {}), fmt, color)


def internal_error_at(file: str = "", line: int = 1, column: int = 1, *,
                      note: str | None = None) -> Diagnostic:
    """The E0000 diagnostic ("this is a bug in ShapeScript") at a place, without a
    source line."""
    from shapescript.render import internal_error as _at

    return _at(file, line, column, **({"note": note} if note is not None else {}))


def shapescript_error(diagnostics: Iterable[Diagnostic],
                      sources: Mapping[str, str] | None) -> ShapeScriptError:
    """The ``ShapeScriptError`` for a file with these diagnostics (to raise at an API
    boundary)."""
    from shapescript.errors import ShapeScriptError as _Error

    return _Error(render_diagnostics(diagnostics, sources), diagnostics, sources)


def load_checkpoint(path: str, model_class: Any, device: Any = None) -> Any:
    """The first model of type ``model_class`` in the checkpoint ``path`` (what ``load``
    does in ShapeScript): ValueError when there is none, ``ShapeError`` for a field of
    another shape or dtype."""
    from shapescript.rt.checkpoint import load

    return load(path, model_class, device)


def save_checkpoint(path: str, *models: Any) -> None:
    """Writes ``models`` to the checkpoint ``path`` (what ``save`` does in ShapeScript)."""
    from shapescript.rt.checkpoint import save

    save(path, *models)


def __getattr__(name: str) -> Any:
    if name in ("vocab", "error_codes"):  # the vocabulary's tables; the codes' constants
        value = importlib.import_module(f"shapescript.{name}")
        globals()[name] = value
        return value
    if name == "distributed":  # start/stop the process group, a rank's output (torch)
        value = importlib.import_module("shapescript.rt.distributed")
        globals()[name] = value
        return value
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'shapescript.api' has no attribute {name!r}")
    # Looked up at each access, not cached here: the home module is the one truth (a
    # test or a tool may stand another in its place in sys.modules).
    value = getattr(importlib.import_module(home), name)
    return value


def __dir__() -> list[str]:
    return sorted(__all__)

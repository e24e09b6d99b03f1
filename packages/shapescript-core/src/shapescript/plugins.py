"""How plugins plug in: the entry-point groups, the protocols their objects follow, and
the table of plugins ShapeScript knows by name (so a missing one gets an install hint).

Four entry-point groups, each loaded only when used:

``shapescript.export_targets``
    An ``ExportTarget``: a way ``shapescript export`` can write a program (the
    ``.pt2``/AOTInductor target, ``--hf``, ``--gguf``). Its entry point's name is the
    target's name; the object brings its command-line options and its Python function
    (``shapescript.export``, ``shapescript.export_hf``, ...).
``shapescript.check_profiles``
    A ``CheckProfile``: extra rules ``shapescript check --NAME`` applies (``--vllm``,
    ``--gguf``: the serving rules).
``shapescript.commands``
    A top-level Click command (``shapescript lsp``).
``shapescript.notebook``
    The IPython extension behind ``%load_ext shapescript`` (``%%shapescript`` cells): a
    module or object with ``load_ipython_extension(ipython)`` and
    ``unload_ipython_extension(ipython)``, registered under the name ``cells``.

The core never imports a plugin: it only reads entry-point metadata here.
"""

from __future__ import annotations

import importlib.metadata
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:
    from shapescript.compiler import Program
    from shapescript.diagnostics import Diagnostic

__all__ = [
    "CHECK_PROFILES", "COMMANDS", "EXPORT_TARGETS", "KNOWN_NOTEBOOK", "NOTEBOOK", "ExportFailed", "KNOWN_PROFILES",
    "KNOWN_TARGETS",
    "CheckProfile", "ExportTarget", "KNOWN_COMMANDS", "Known", "command_api", "entry_points",
    "load_entry_point",
    "missing_hint", "python_api",
]

EXPORT_TARGETS = "shapescript.export_targets"
CHECK_PROFILES = "shapescript.check_profiles"
COMMANDS = "shapescript.commands"
NOTEBOOK = "shapescript.notebook"


class ExportFailed(Exception):
    """An export target's error that isn't in the program: the command prints
    ``error: <message>`` and exits with ``exit_code`` (1: the export failed; 2: an error
    of the command, such as an output that can't be written)."""

    def __init__(self, message: str, exit_code: int = 1) -> None:
        super().__init__(message)
        self.message = message
        self.exit_code = exit_code


@runtime_checkable
class ExportTarget(Protocol):
    """One way to export. ``shapescript export FILE --<flag> …`` selects it; the target
    whose ``flag`` is None is the default (``.pt2``).

    ``options()`` returns Click parameters (built lazily, so listing targets imports no
    Click-heavy code); an option another target also declares (``--weights``) is shown
    once and given to whichever target runs. ``run(file, fn, options)`` does the export
    for the command and returns its exit code; it may raise ``ShapeScriptError`` (the
    file's diagnostics: exit 1), ``ValueError`` (a bad ``--fn`` or option: exit 2),
    ``OSError`` (an input that can't be read: exit 2) or ``ExportFailed``, which the
    command reports; other errors it reports itself on stderr.
    ``api`` is the Python function (``shapescript.export_hf``).
    """

    name: str
    flag: str | None
    extra: str
    summary: str

    def options(self) -> Sequence[Any]: ...

    def run(self, file: str, fn: str | None, options: dict[str, Any]) -> int: ...

    @property
    def api(self) -> Callable[..., Any]: ...


@runtime_checkable
class CheckProfile(Protocol):
    """Extra rules ``shapescript check --<name>`` applies to each file's forward
    function: ``diagnostics(program, fn)`` (``fn`` None: the profile's default). A
    profile may take options of its own (``--vllm --tp N``): ``options()`` gives their
    Click options, and ``configured(values)`` the profile with their values."""

    name: str
    extra: str
    summary: str

    def diagnostics(self, program: Program, fn: str | None) -> list[Diagnostic]: ...


@dataclass(frozen=True)
class Known:
    """A plugin ShapeScript knows by name, whether or not it is installed."""

    name: str
    flag: str | None
    extra: str
    api: str | None  # its function on the ``shapescript`` module
    # Every option string the plugin's command-line options take, its flag included, so
    # any of them gets the install hint when the plugin is missing (a test holds this to
    # the installed plugin's own options).
    options: tuple[str, ...] = ()


# The options every exporter that loads weights takes (``--weights``, ``--seed``), and
# those of the serving exporters (``--hf``, ``--gguf``).
_WEIGHT_OPTIONS = ("--weights", "--seed")
_SERVING_OPTIONS = (*_WEIGHT_OPTIONS, "--dtype", "--tokenizer", "--max-len", "--allow-nonfinite")

KNOWN_TARGETS: dict[str, Known] = {
    "pt2": Known("pt2", None, "export", "export",
                 ("-o", "--output", "--aoti", "--checks", "--value-checks", "--devices",
                  "--python", "--emit-python", *_WEIGHT_OPTIONS)),
    "hf": Known("hf", "--hf", "hf", "export_hf",
                ("--hf", "--vllm", "--layout", *_SERVING_OPTIONS, "--no-verify")),
    "gguf": Known("gguf", "--gguf", "gguf", "export_gguf",
                  ("--gguf", "--arch", *_SERVING_OPTIONS)),
}
KNOWN_PROFILES: dict[str, Known] = {
    "vllm": Known("vllm", "--vllm", "hf", None, ("--vllm", "--tp")),
    "gguf": Known("gguf", "--gguf", "gguf", None, ("--gguf",)),
}
# The notebook cells (``%load_ext shapescript``): the ``cells`` entry point of NOTEBOOK.
KNOWN_NOTEBOOK = Known("cells", None, "lsp", None)
# Commands with a Python function too (``shapescript.port``): the command's ``api``.
KNOWN_COMMANDS: dict[str, Known] = {
    "port": Known("port", None, "port", "port"),
}


def entry_points(group: str) -> dict[str, importlib.metadata.EntryPoint]:
    """The entry points of ``group`` by name; where two distributions register one
    name, the first by distribution name wins."""
    found: dict[str, importlib.metadata.EntryPoint] = {}
    eps = importlib.metadata.entry_points(group=group)
    for ep in sorted(eps, key=lambda e: (e.name, _dist_name(e))):
        found.setdefault(ep.name, ep)
    return found


def _dist_name(ep: importlib.metadata.EntryPoint) -> str:
    dist = getattr(ep, "dist", None)
    return dist.metadata["Name"] if dist is not None else ""


def load_entry_point(group: str, name: str) -> Any | None:
    """The object behind ``name`` in ``group``, or None when nothing registers it."""
    ep = entry_points(group).get(name)
    return None if ep is None else ep.load()


def missing_hint(what: str, extra: str) -> str:
    """The one message for a plugin that isn't installed."""
    return f"{what} needs pip install 'shapescript[{extra}]'"


def command_api(attr: str) -> Callable[..., Any]:
    """``shapescript.port``: the ``api`` function of the installed command of that
    name, or ImportError naming the extra to install."""
    known = KNOWN_COMMANDS[attr]
    command = load_entry_point(COMMANDS, known.name)
    if command is None or not callable(getattr(command, "api", None)):
        raise ImportError(missing_hint(f"shapescript.{attr}", known.extra))
    return command.api


def python_api(attr: str) -> Callable[..., Any]:
    """``shapescript.export``/``export_hf``/``export_gguf``: the installed target's
    function, or ImportError naming the extra to install."""
    for known in KNOWN_TARGETS.values():
        if known.api == attr:
            target = load_entry_point(EXPORT_TARGETS, known.name)
            if target is None:
                raise ImportError(missing_hint(f"shapescript.{attr}", known.extra))
            return target.api
    raise AttributeError(attr)

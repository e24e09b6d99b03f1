"""``shapescript run SCRIPT.py|FILE.ss [ARGS]…``: run a program with the import hook.

A Python script runs as ``python SCRIPT.py ARGS…`` would (as ``__main__``, with
``sys.argv = [SCRIPT, *ARGS]`` and its folder first on ``sys.path``), with ``.ss`` files
importable and ``SHAPESCRIPT_PYTHON`` set to this Python. A ``.ss`` file is imported as a
module and its ``main()`` is called, with ``sys.argv = [FILE, *ARGS]``.
A file that doesn't compile prints its diagnostics, without a traceback, and exits 1.
``--dim NAME=N`` sets a dim of the ``.ss`` file (as ``build --dim`` and
``shapescript.load_module(path, dims=…)`` do), and the file is checked again for it: a
malformed or unknown ``--dim``, or sizes the file can't take though it checks with its
own, are errors of the command (exit 2).

``--devices cuda`` (``cuda[1]``, ``mps``, ``cpu``) sets the program's device, winning
over the files' ``devices`` lines as ``build --devices`` does; a device this machine
doesn't have is an error of the command (exit 2), before anything runs. Host tensors
reach it through ``as`` (``shapescript.rt.device.from_host``).

``--nproc-per-node N`` (with ``--nnodes``, ``--node-rank``, ``--rdzv-endpoint`` for many
machines) runs it on N processes per machine through ``torch.distributed.run``
(``_launch.py``); each runs this command again, as ``torchrun -m shapescript_cli run FILE``
would, and a rank so started joins the process group before the program runs
(``shapescript.rt.distributed``; ``docs/training.md``).
"""

from __future__ import annotations

import os
import runpy
import sys
import traceback

import click

from ._util import MODE_CHOICE, print_shapescript_error


@click.command(context_settings={"ignore_unknown_options": True,
                                 "allow_interspersed_args": False})
@click.option("--checks", type=MODE_CHOICE, default=None,
              help="Shape, dtype and device checks (default: always).")
@click.option("--value-checks", type=MODE_CHOICE, default=None,
              help="Domain checks (default: debug).")
@click.option("--devices", default=None, metavar="DEVICE",
              help="The program's device (cpu, cuda, cuda[1], mps); wins over the files' "
                   "devices lines.")
@click.option("--nproc-per-node", type=int, default=None, metavar="N",
              help="Run on N processes on this machine, through torch.distributed.run.")
@click.option("--nnodes", type=int, default=1, metavar="M", show_default=True,
              help="Machines taking part (with --nproc-per-node).")
@click.option("--node-rank", type=int, default=0, metavar="R", show_default=True,
              help="This machine's number, from 0 (with --nnodes).")
@click.option("--rdzv-endpoint", default=None, metavar="HOST:PORT",
              help="Where the machines meet: machine 0's address and a free port.")
@click.option("--all-ranks", is_flag=True, default=False,
              help="Every rank prints and reports, its lines prefixed [rankR]: "
                   "(default: rank 0 alone).")
@click.option("--fsdp", is_flag=True, default=False,
              help="Shard the model's fields among the ranks (FSDP2's fully_shard) "
                   "instead of keeping a whole copy on each.")
@click.option("--log", "log", type=click.Path(dir_okay=False, writable=True), default=None,
              metavar="FILE",
              help="Also write every report to FILE, one JSON object a line "
                   "(as sink(FILE) does; draw it with shapescript plot).")
@click.option("--timeout", type=click.FloatRange(min=0, min_open=True), default=None,
              metavar="SECONDS",
              help="How long a rank waits for the others in a collective (default 300).")
@click.option("--dim", "dims", multiple=True, metavar="NAME=N",
              help="Set the .ss file's dim NAME to N (the file is checked again for it); "
                   "repeat for several.")
@click.argument("script", type=click.Path(exists=True, dir_okay=False))
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
def command(checks, value_checks, devices, nproc_per_node, nnodes, node_rank, rdzv_endpoint,
            all_ranks, fsdp, log, timeout, dims, script, args):
    """Run a Python script with the import hook installed, or a .ss file's main()."""
    from . import _launch
    from .build import parse_dims

    _launch.follow_launcher()            # a rank of `run --nproc-per-node` dies with it
    _launch.check_options(nproc_per_node, nnodes, node_rank, rdzv_endpoint)
    if devices is not None:
        _use_devices(devices, nproc_per_node)
    dim_values = parse_dims(dims)
    if dim_values and not script.endswith(".ss"):
        raise click.BadParameter("sets the dims of a .ss file; a Python script sets them "
                                 "with shapescript.load_module(path, dims={…})",
                                 param_hint="--dim")
    from shapescript_cli.config import default_modes  # [tool.shapescript]'s checks

    checks, value_checks = default_modes(script, checks, value_checks)
    # The ranks read these from their environment, however they were launched.
    if all_ranks:
        os.environ["SHAPESCRIPT_ALL_RANKS"] = "1"
    if fsdp:
        os.environ["SHAPESCRIPT_FSDP"] = "1"
    if timeout is not None:
        os.environ["SHAPESCRIPT_DIST_TIMEOUT"] = repr(float(timeout))
    if nproc_per_node is not None:
        from shapescript.api import distributed

        try:
            seconds = distributed.timeout_seconds()
        except ValueError as err:             # a bad SHAPESCRIPT_DIST_TIMEOUT
            raise click.UsageError(str(err)) from None
        if log is not None:               # the ranks read it from their environment
            os.environ["SHAPESCRIPT_LOG"] = os.path.abspath(log)
        worker = _launch.worker_args(checks, value_checks, script, args, dims, devices)
        sys.exit(_launch.launch(nproc_per_node, nnodes, node_rank, rdzv_endpoint,
                                seconds, worker))

    from shapescript.api import ShapeScriptError, WriteError, import_file, install

    group = _join_group(script)
    log = log if log is not None else os.environ.get("SHAPESCRIPT_LOG") or None
    if log is not None:
        from shapescript.api import report_sink

        try:
            report_sink(log)              # rank 0 alone writes it
        except OSError as err:
            click.echo(f"error: {err}" if isinstance(err, WriteError) else
                       f"error: cannot write {log}: {err.strerror or err}", err=True)
            sys.exit(2)
    # A rank torchrun started (of a .ss program, which joined above, or of a Python
    # script, which starts its own group) ends its group, and leaves at once if it ended
    # well.
    from shapescript.api import distributed

    rank = group or distributed.launched()
    together = False
    try:
        _run(checks, value_checks, script, args, import_file, install, ShapeScriptError,
             dim_values)
        together = True
    except SystemExit as end:
        together = end.code in (None, 0)
        if not together:
            raise
    finally:
        if rank:
            # No barrier first: a rank still inside a collective that this one never
            # reached would take the barrier for it; its own timeout names it instead.
            distributed.stop()
    if rank and together:
        _leave_rank()


def _leave_rank() -> None:
    """A rank whose program ended well leaves at once, its exit handlers run and its
    output flushed: torch's gloo threads, still referenced where the interpreter's own
    teardown destroys them, abort the process from C++ ("terminate called without an
    active exception") now and then on a loaded machine, after the program's work was
    done, which the launcher would report as a failed rank."""
    import atexit
    import gc
    import io

    atexit._run_exitfuncs()
    # What the interpreter's exit would write: every file still open (a Python script's
    # global handle, the standard streams) is flushed.
    for obj in gc.get_objects():
        # By type: `isinstance` would ask objects that warn when asked (torch's
        # deprecated `reduce_op`).
        if issubclass(type(obj), (io.TextIOWrapper, io.BufferedWriter, io.BufferedRandom)):
            try:
                if not obj.closed:
                    obj.flush()
            except (OSError, ValueError):
                pass
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(0)


def _use_devices(spec, nproc_per_node):
    """Sets the program's device for this process (and, with ``--nproc-per-node``, checks
    it can be each rank's); a malformed device or one this machine lacks exits 2."""
    from shapescript.api import device_parts

    try:
        device_parts(spec)
    except ValueError as err:
        raise click.BadParameter(str(err), param_hint="--devices") from None
    import shapescript
    from shapescript.api import device_problem

    from . import _launch

    problem = device_problem(spec)
    if problem is None and nproc_per_node is not None:
        problem = _launch.devices_problem(spec, nproc_per_node)
    if problem is not None:
        click.echo(f"error: --devices {spec}: {problem}", err=True)
        sys.exit(2)
    shapescript.devices(spec)


def _join_group(script):
    """A rank that torchrun started joins the process group (a .ss program; a Python
    script starts its own, as it would under torchrun) and routes its output; whether it
    joined."""
    from shapescript.api import distributed

    if not distributed.launched():
        return False
    if not script.endswith(".ss"):
        return False
    try:
        distributed.start()
    except (RuntimeError, ValueError) as err:
        rank = os.environ.get("RANK", "?")
        text = str(err).strip().splitlines()
        click.echo(f"error: rank {rank} could not join the process group: "
                   f"{text[0] if text else type(err).__name__}", err=True)
        sys.exit(1)
    distributed.route_output()
    return True


def _run(checks, value_checks, script, args, import_file, install, ShapeScriptError,
         dims=None):
    from shapescript.api import WriteError

    install(checks=checks, value_checks=value_checks)
    os.environ["SHAPESCRIPT_PYTHON"] = sys.executable
    path = os.path.abspath(script)
    sys.argv = [script, *args]
    sys.path.insert(0, os.path.dirname(path))
    try:
        _require_source(script, path)
        if script.endswith(".ss"):
            if dims:
                module = _load_with_dims(path, script, dims, checks, value_checks)
            else:
                module = import_file(path)
            main = getattr(module, "main", None)
            if not callable(main):
                click.echo(f"error: {script} has no fn main()", err=True)
                sys.exit(2)
            _require_device(script)
            main()
        else:
            runpy.run_path(script, run_name="__main__")
        # What is still buffered goes now, where a closed pipe is caught (below), not at
        # exit, where Python would print that it couldn't.
        sys.stdout.flush()
    except ShapeScriptError as err:
        print_shapescript_error(err)
        sys.exit(1)
    except (SystemExit, KeyboardInterrupt):
        raise
    except WriteError as err:           # a checkpoint, the log: a full disk …
        click.echo(f"error: {err}", err=True)
        sys.exit(2)
    except BrokenPipeError as err:
        if not _stdout_closed():
            _print_user_traceback(err, path)   # a pipe of the program's own
            sys.exit(1)
        _quiet_stdout()
        sys.exit(0)
    except BaseException as err:
        _print_user_traceback(err, path)
        sys.exit(1)


def _load_with_dims(path, script, dims, checks, value_checks):
    """The module of ``path`` compiled with ``dims`` set. The file is checked first as
    written: its own errors are the program's (``ShapeScriptError``, exit 1); errors that
    only the new sizes cause, and a dim the file doesn't declare, are the command's
    (exit 2), their diagnostics shown."""
    from shapescript.api import (
        ShapeScriptError, check_program, load_module, read_source, shapescript_error,
    )

    program = check_program(read_source(path), path)
    if not program.ok:
        raise shapescript_error(program.diagnostics, program.sources)
    given = " ".join(f"--dim {name}={value}" for name, value in dims.items())
    try:
        return load_module(path, dims)  # the modes `install` was given
    except ValueError as err:
        click.echo(f"error: --dim: {str(err).removeprefix('dims: ')}", err=True)
    except ShapeScriptError as err:
        print_shapescript_error(err)
        click.echo(f"error: {script} doesn't check with {given} (it does with its own "
                   "dims): choose sizes its code can take", err=True)
    sys.exit(2)


def _require_device(script):
    """Exit 2 when the device a file's ``devices`` line chose isn't on this machine: said
    before ``main()`` runs, not as torch's error at the first tensor put there."""
    from shapescript.api import device_problem

    problem = device_problem()
    if problem is not None:
        click.echo(f"error: {script}: its `devices` line can't be used: {problem}; choose "
                   "another device with --devices (e.g. --devices cpu)", err=True)
        sys.exit(2)


def _stdout_closed():
    """Whether whoever read stdout has gone (``shapescript run train.ss | head -3``): the
    program stops there, quietly, as ``yes | head`` does. Asked of the pipe itself, so
    that a program's own broken pipe still shows its traceback."""
    import select

    try:
        fd = sys.__stdout__.fileno()
        poll = select.poll()
        poll.register(fd, select.POLLOUT)
        return any(ev & (select.POLLERR | select.POLLHUP) for _, ev in poll.poll(0))
    except (AttributeError, OSError, ValueError):
        return True                 # no way to ask: the usual reason is the reader


def _quiet_stdout():
    """Points stdout at devnull, so that the flushes at exit (the report line's, Python's
    own) don't fail again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.__stdout__.fileno())
    except (AttributeError, OSError, ValueError):
        pass


def _require_source(script, path):
    """Exit 2 unless the script is a file that can be read (not a FIFO, which would hang,
    a device or a file over the size limit); a .ss file that isn't UTF-8 is reported by
    the compiler."""
    from shapescript.api import SourceDecodeError, read_source

    try:
        read_source(path)
    except SourceDecodeError:
        pass  # a .ss file's diagnostic, reported when it is compiled; Python decides for .py
    except OSError as err:
        click.echo(f"error: cannot read {script}: {err.strerror or err}", err=True)
        sys.exit(2)


def _print_user_traceback(err, path):
    """The traceback as ``python SCRIPT`` prints it: from the script's first frame on."""
    tb = err.__traceback__
    while tb is not None and os.path.abspath(tb.tb_frame.f_code.co_filename) != path:
        tb = tb.tb_next
    lines = traceback.format_exception(type(err), err, tb or err.__traceback__)
    qualified = f"shapescript.{type(err).__name__}: "
    if type(err).__module__ == "shapescript" and lines and lines[-1].startswith(qualified):
        # The book prints ShapeScript's run-time errors by their own name:
        # `ShapeError: spotter.ss:86:25: expected [P*P D] = (16, 48), got shape (16, 32)`.
        lines[-1] = lines[-1][len("shapescript."):]
    sys.stderr.write("".join(lines))
    sys.stderr.flush()

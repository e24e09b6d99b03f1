"""``shapescript run --nproc-per-node N …``: the program on many processes, through
``torch.distributed.run`` (torchrun's own code, in this process).

Each rank runs ``python -m shapescript_cli run [--checks …] FILE ARGS…``, exactly what
``torchrun … -m shapescript_cli run FILE`` runs; that command sees torchrun's variables
and starts the process group (``shapescript.rt.distributed``). One node: torchrun's
``--standalone`` rendezvous on a free port of 127.0.0.1. Many: the static rendezvous at
``--rdzv-endpoint``, hosted by node 0. A rank that fails ends the others (torchrun's
behaviour) and this command says which rank failed and how, then exits 1.

The ranks never outlive this command. Each is started with ``SHAPESCRIPT_LAUNCHER_PID``
set, and first asks Linux for SIGTERM when its parent dies (``PR_SET_PDEATHSIG``), so a
SIGKILL of the command ends them too, each unwinding through its writers. SIGINT or
SIGTERM of the command goes to the ranks (torchrun's agent forwards it), and the command
says so in one line and exits 130 or 143; the ranks stop without a word.
"""

from __future__ import annotations

import errno
import os
import signal
import socket

import click


# The launcher's pid, in each rank's environment: a rank started by this command.
LAUNCHER_PID = "SHAPESCRIPT_LAUNCHER_PID"
_launched: list[bool] = []


def follow_launcher():
    """In a rank this command started: die with the launcher (SIGTERM when it dies, even
    by SIGKILL), or stop now if it is already gone. The variable is dropped, so that
    a ``shapescript`` the program runs is a command of its own."""
    from shapescript.api import die_with_parent

    launcher = os.environ.pop(LAUNCHER_PID, None)
    if launcher is None or not launcher.isdigit() or int(launcher) == os.getpid():
        return
    _launched.append(True)
    die_with_parent(signal.SIGTERM)
    if os.getppid() != int(launcher):   # it died before the request was made
        raise SystemExit(128 + signal.SIGTERM)


def launched_here():
    """Whether this process is a rank that this command launched (it stops quietly:
    the launcher reports)."""
    return bool(_launched)


def parse_endpoint(endpoint):
    """``"HOST:PORT"`` → ``(host, port)``; ``click.BadParameter`` otherwise."""
    host, sep, port = endpoint.rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise click.BadParameter(f"expected HOST:PORT, e.g. 10.0.0.1:29500, not {endpoint!r}",
                                 param_hint="'--rdzv-endpoint'")
    return host.strip("[]"), int(port)


def port_in_use(host, port):
    """Whether ``port`` can't be listened on at ``host`` (node 0 hosts the rendezvous)."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror:
        return False                  # torch reports an unknown host itself
    for family, kind, proto, _, addr in infos:
        with socket.socket(family, kind, proto) as s:
            try:
                s.bind(addr)
            except OSError as err:
                if err.errno == errno.EADDRINUSE:
                    return True
                # not this machine's address: another node hosts it
    return False


def worker_args(checks, value_checks, script, args, dims=(), devices=None):
    """The module and arguments each rank runs (``dims``: the ``--dim`` options as given;
    ``devices``: ``--devices``, which each rank sets for itself)."""
    out = ["-m", "shapescript_cli", "run"]
    if devices:
        out += ["--devices", devices]
    if checks:
        out += ["--checks", checks]
    if value_checks:
        out += ["--value-checks", value_checks]
    for text in dims:
        out += ["--dim", text]
    return out + [script, *args]


def torchrun_args(nproc, nnodes, node_rank, endpoint, timeout):
    """torchrun's options for this launch."""
    out = ["--nproc-per-node", str(nproc), "--max-restarts", "0", "--monitor-interval", "0.1"]
    if nnodes == 1 and endpoint is None:
        # torchrun's --standalone, on the loopback address only.
        out += ["--nnodes", "1", "--rdzv-backend", "c10d", "--rdzv-endpoint", "127.0.0.1:0",
                "--local-addr", "127.0.0.1"]
    else:
        out += ["--nnodes", str(nnodes), "--node-rank", str(node_rank),
                "--rdzv-backend", "static", "--rdzv-endpoint", endpoint,
                "--rdzv-conf", f"timeout={int(timeout)}"]
    return out


def describe_failure(rank, failure):
    """``rank 1 (local rank 1, pid 4242) was killed by SIGKILL`` for one failed rank."""
    who = f"rank {rank} (local rank {failure.local_rank}, pid {failure.pid})"
    code = failure.exitcode
    if code is not None and code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        return f"{who} was killed by {name}"
    return f"{who} exited with code {code}"


def launch(nproc, nnodes, node_rank, endpoint, timeout, worker):
    """Runs ``worker`` (``worker_args``) on ``nproc`` processes per node; the exit code."""
    from torch.distributed import run as torchrun
    from torch.distributed.elastic.multiprocessing.errors import ChildFailedError

    if endpoint is not None and node_rank == 0:
        host, port = parse_endpoint(endpoint)
        if port_in_use(host, port):
            click.echo(f"error: port {port} on {host} is in use: node 0 hosts the rendezvous "
                       "there; choose another --rdzv-endpoint port", err=True)
            return 2
    from torch.distributed.elastic.multiprocessing import SignalException

    parser = torchrun.get_args_parser()
    args = parser.parse_args(torchrun_args(nproc, nnodes, node_rank, endpoint, timeout) + worker)
    os.environ[LAUNCHER_PID] = str(os.getpid())       # torchrun passes it to the ranks
    _quiet_stop_logs()
    try:
        torchrun.run(args)
    except SignalException as err:
        # SIGINT/SIGTERM (and SIGHUP, SIGQUIT), which torchrun's agent turns into this
        # exception once it has stopped the ranks with the same signal.
        from shapescript.api import stop_message

        signum = int(err.sigval)
        click.echo(f"error: {stop_message(signum)}: the ranks were stopped", err=True)
        return 128 + signum
    except ChildFailedError as err:
        # The first to fail, and of those failing at once the one a signal killed (not
        # the SIGTERM torchrun sends the rest): the others failed because it did.
        failures = sorted(err.failures.items(), key=lambda kv: (
            kv[1].timestamp,
            0 if kv[1].exitcode is not None and kv[1].exitcode < 0
            and kv[1].exitcode != -signal.SIGTERM else 1))
        first_rank, first = failures[0]
        lines = [f"error: {describe_failure(first_rank, first)}; "
                 f"the other ranks were stopped"]
        lines += [f"  then {describe_failure(r, f)}" for r, f in failures[1:]]
        click.echo("\n".join(lines), err=True)
        return 1
    except Exception as err:  # the rendezvous: a port in use, a node that never came
        name = type(err).__name__
        if name in ("DistNetworkError", "DistStoreError", "RendezvousError",
                    "RendezvousTimeoutError", "RendezvousConnectionError",
                    "RendezvousClosedError", "RendezvousStateError", "DistError"):
            first = str(err).strip().splitlines()[0] if str(err).strip() else name
            where = endpoint or "127.0.0.1"
            click.echo(f"error: the ranks could not meet at {where}: {first}", err=True)
            return 1
        raise
    return 0


# torchrun's agent logs each step of stopping the ranks; the command says it in one line.
_STOP_LOGS = ("Received %s death signal", "Sending process %s closing signal")


def _not_a_stop_log(record):
    return not str(record.msg).startswith(_STOP_LOGS)


def _quiet_stop_logs():
    import logging

    for name in ("torch.distributed.elastic.agent.server.api",
                 "torch.distributed.elastic.multiprocessing.api"):
        logging.getLogger(name).addFilter(_not_a_stop_log)   # added once, whatever the calls


def check_options(nproc, nnodes, node_rank, endpoint):
    """``click.UsageError`` for launcher options that don't fit together."""
    if nproc is None:
        if nnodes != 1 or node_rank != 0 or endpoint is not None:
            raise click.UsageError("--nnodes, --node-rank and --rdzv-endpoint go with "
                                   "--nproc-per-node")
        return
    if nproc < 1:
        raise click.BadParameter("must be ≥ 1", param_hint="'--nproc-per-node'")
    if nnodes < 1:
        raise click.BadParameter("must be ≥ 1", param_hint="'--nnodes'")
    if not 0 <= node_rank < nnodes:
        raise click.BadParameter(f"must be from 0 to {nnodes - 1}", param_hint="'--node-rank'")
    if nnodes > 1 and endpoint is None:
        raise click.UsageError("--nnodes > 1 needs --rdzv-endpoint HOST:PORT, the address of "
                               "node 0, the same on every node")
    if endpoint is not None:
        parse_endpoint(endpoint)
    if os.environ.get("TORCHELASTIC_RUN_ID") or ("RANK" in os.environ and "WORLD_SIZE" in os.environ):
        raise click.UsageError("this is already a rank started by torchrun: drop "
                               "--nproc-per-node (torchrun chose the processes)")


def devices_problem(spec, nproc):
    """Why ``--devices spec`` can't be the device of ``nproc`` ranks on this machine, or
    ``None``. Each rank's ``cuda`` is its own GPU (``cuda:LOCAL_RANK``, made current by
    ``shapescript.rt.distributed``), so ``cuda`` needs a GPU a rank and ``cuda[N]``, one
    GPU for all, suits one rank only: NCCL can't run two ranks on one GPU."""
    import torch
    from shapescript.api import device_parts

    kind, index = device_parts(spec)
    if kind != "cuda" or nproc < 2:
        return None
    if index is not None:
        return (f"names one GPU for all {nproc} ranks; write `cuda`, and each rank gets "
                "its own (cuda:LOCAL_RANK)")
    count = torch.cuda.device_count()
    if count < nproc:
        return (f"{nproc} ranks need a GPU each, and {count} "
                f"{'is' if count == 1 else 'are'} visible")
    return None


__all__ = ["launch", "check_options", "worker_args", "torchrun_args", "describe_failure",
           "parse_endpoint", "port_in_use", "devices_problem", "follow_launcher",
           "launched_here", "LAUNCHER_PID"]

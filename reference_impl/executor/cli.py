"""The `argoexec` command line: parse, wire, dispatch. No work happens here.

    argoexec init        [logopts]            legacy init container
    argoexec wait        [logopts]            legacy aux container
    argoexec supervisor  [logopts]            init-less aux container
    argoexec emissary    [logopts] -- cmd...  wraps every user container
    argoexec kill        SIG PID              used by the controller through pods/exec

`logopts` are Argo's `--loglevel`, `--log-format` and `--gloglevel`; unknown
extra options (config `executor.args`) are accepted and ignored. Each
subcommand imports its modules only when chosen, so the emissary, which runs
in every user container, does not pay for the API client or artifact drivers.
"""

from __future__ import annotations

import argparse
import dataclasses
import logging
import os
import signal
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from reference_impl import commission
from reference_impl import common
from reference_impl.executor import launching
from reference_impl.executor.errors import ExecutorError
from reference_impl.executor.protocol import Paths

if TYPE_CHECKING:
    from reference_impl.executor.api.taskresults import Reporter
    from reference_impl.executor.clocks import Clock
    from reference_impl.executor.settings import ExecutorSettings

logger = logging.getLogger(__name__)

_LEVELS = {
    "debug": logging.DEBUG,
    "info": logging.INFO,
    "warn": logging.WARNING,
    "warning": logging.WARNING,
    "error": logging.ERROR,
    "fatal": logging.CRITICAL,
}


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="argoexec", description="WPC reference executor"
    )
    sub = parser.add_subparsers(dest="command", required=True)
    for name in ("init", "wait", "supervisor", "emissary"):
        cmd = sub.add_parser(name)
        cmd.add_argument("--loglevel", default="info", choices=sorted(_LEVELS))
        cmd.add_argument("--log-format", default="text", choices=("text", "json"))
        cmd.add_argument("--gloglevel", default="0")
        if name == "emissary":
            cmd.add_argument(
                "argv", nargs=argparse.REMAINDER, help="-- the command to run"
            )
    kill = sub.add_parser("kill")
    kill.add_argument("signal", type=int)
    kill.add_argument("pid", type=int)
    return parser


def main(
    argv: Sequence[str] | None = None,
    *,
    root: Path = Path("/"),
    executable: Path | None = None,
) -> int:
    """Run argoexec; return the process exit code.

    `root` is where the pod's filesystem is: `/`, except in tests. `executable`
    is the launcher this process was started by (`launching`), which `init`
    copies. Signals stay blocked, as the launcher left them, until the chosen
    command has installed its handlers.
    """
    args, _ignored = _parser().parse_known_args(argv)
    if args.command in ("kill", "init"):
        launching.release_signals()  # no handlers of their own: default dispositions
    if args.command == "kill":
        from reference_impl.executor import faults
        from reference_impl.executor.files import killing

        fault = faults.commission_fault(os.environ.get(faults.ENV_FAULT))
        killing.kill_process(
            signal_number=commission.signal_for(fault, "kill", args.signal),
            pid=args.pid,
            out=sys.stdout,
            paths=Paths(root=root),
            container=os.environ.get(common.ENV_CONTAINER_NAME),
        )
        return 0
    _configure_logging(args.loglevel, args.log_format)
    paths = Paths(root=root)
    try:
        return _dispatch(args, paths, executable)
    except ExecutorError as err:
        # Reached only for errors before a subcommand's own handling (settings).
        from reference_impl.executor.files import exits

        return exits.finish(paths=paths, error=err)


def _dispatch(args: argparse.Namespace, paths: Paths, executable: Path | None) -> int:
    from reference_impl.executor.clocks import SystemClock
    from reference_impl.executor.settings import ExecutorSettings

    settings = dataclasses.replace(
        ExecutorSettings.from_env(), executor_binary=executable
    )
    clock = SystemClock()
    if args.command == "emissary":
        from reference_impl.executor.commands.emissary import run_emissary
        from reference_impl.executor.files.watching import DirectoryWatch

        command = args.argv[1:] if args.argv[:1] == ["--"] else args.argv
        watch = DirectoryWatch(paths.var_run_argo) if settings.wait_for_ready else None
        return run_emissary(
            settings=settings,
            paths=paths,
            argv=command,
            workdir=os.getcwd(),
            clock=clock,
            pause=watch.pause if watch else None,
            keep_handlers=True,
        )
    from reference_impl.executor.storage import stores

    stores_for = stores.s3_store_factory(paths)
    if args.command == "init":
        from reference_impl.executor.commands.initializing import run_init

        return run_init(settings=settings, paths=paths, stores_for=stores_for)
    from reference_impl.executor.staging.postmain import AuxInputs

    aux = AuxInputs(
        settings=settings,
        paths=paths,
        clock=clock,
        reporter=_reporter(settings, clock),
        stores_for=stores_for,
    )
    # The controller's terminateContainers signals every running container once
    # main is done, wait/supervisor included (Argo's signalContainers does the
    # same). Like argoexec, finish saving outputs: the SIGKILL after the grace
    # period is the limit, not the SIGTERM.
    signal.signal(signal.SIGTERM, _note_sigterm)
    launching.release_signals()
    if args.command == "wait":
        from reference_impl.executor.commands.waiting import run_wait

        return run_wait(aux)
    from reference_impl.executor.commands.supervising import run_supervisor

    code = run_supervisor(aux)
    return commission.exit_code(settings.commission, code, container=args.command)


def _note_sigterm(signum: int, frame: object) -> None:
    """Log SIGTERM and carry on with post-main work (see `_dispatch`)."""
    logging.getLogger(__name__).info(
        "Received SIGTERM; finishing output collection before exiting."
    )


def _reporter(settings: ExecutorSettings, clock: Clock) -> Reporter:
    from reference_impl.executor.api import kubeapi
    from reference_impl.executor.api import taskresults

    kube = kubeapi.KubeSettings.from_env()
    return taskresults.Reporter(
        api=kubeapi.InClusterClient(kube),
        identity=taskresults.Identity(
            namespace=kube.namespace,
            node_id=settings.node_id,
            workflow_name=settings.workflow_name,
            workflow_uid=settings.workflow_uid,
            instance_id=settings.instance_id,
        ),
        clock=clock,
        fault=settings.commission,
    )


def _configure_logging(level: str, fmt: str) -> None:
    if fmt == "json":
        pattern = '{"time":"%(asctime)s","level":"%(levelname)s","logger":"%(name)s","msg":"%(message)s"}'
    else:
        pattern = "time=%(asctime)s level=%(levelname)s msg=%(message)s"
    logging.basicConfig(level=_LEVELS[level], format=pattern, stream=sys.stderr)

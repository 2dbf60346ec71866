"""`argoexec emissary -- cmd...`: run a user container's command under the protocol.

Sequence (contract 1.5 and 2.3; the files are described in `protocol`):

    1. mkdir ctr/<c> (0777): "I have started"; catch signals (queued until step 7)
    2. init-less (ARGO_WAIT_FOR_READY): wait for READY (`handshake`), else exit 65
    3. read the template (file, else ARGO_TEMPLATE)
    4. init-less main only: link input artifacts, check the working dir, else exit 65
    5. containerSet: wait for dependencies' exitcode files
    6. look the command up on PATH, else exit 64
    7. run it (`children`): forward signals, tee output, obey the signal file;
       a template sidecar kills itself once every main container has exited
    8. main only: copy output parameters and tar output artifacts (`outputs`)
    9. always: write ctr/<c>/exitcode; exit with the child's code (64/65 on errors)
"""

from __future__ import annotations

import dataclasses
import logging
import os
import shutil
import signal
import threading
from collections.abc import Callable
from collections.abc import Sequence
from dataclasses import dataclass

from reference_impl import commission
from reference_impl import common
from reference_impl.executor import templates
from reference_impl.executor.child import children
from reference_impl.executor.child import handshake
from reference_impl.executor.child import linking
from reference_impl.executor.child import outputs
from reference_impl.executor.clocks import Clock
from reference_impl.executor.errors import CommandNotFound
from reference_impl.executor.errors import ExecutorError
from reference_impl.executor.errors import PreMainFailure
from reference_impl.executor.faults import EARLY_SIGKILL_FRACTION
from reference_impl.executor.faults import EXIT_CODE_INSTEAD_OF_65
from reference_impl.executor.faults import Fault
from reference_impl.executor.files import commissioned
from reference_impl.executor.files import exits
from reference_impl.executor.files import killing
from reference_impl.executor.protocol import Paths
from reference_impl.executor.protocol import make_ctr_dir
from reference_impl.executor.settings import ExecutorSettings
from reference_impl.executor.threads import start_helper

logger = logging.getLogger(__name__)

_DEPENDENCY_SIGNAL_CODES = {int(signal.SIGTERM): 143, int(signal.SIGINT): 130}
"""Exit codes for signals caught while waiting for containerSet dependencies (upstream: 143)."""


@dataclass
class _Exit:
    """The code for the exitcode file; the child's once it has run."""

    code: int = common.EXIT_EMISSARY_ERROR


def run_emissary(
    *,
    settings: ExecutorSettings,
    paths: Paths,
    argv: Sequence[str],
    workdir: str,
    clock: Clock,
    pause: Callable[[float], None] | None = None,
    forwarder: children.SignalForwarder | None = None,
    keep_handlers: bool = False,
) -> int:
    """Run `argv` as container `settings.container_name`; return the process exit code.

    `keep_handlers`: the caller exits right after (the CLI), so leave the
    signal handlers in place, dropping late signals, instead of restoring the
    previous ones; in-process callers (tests) get theirs back.
    """
    state = _Exit()
    fault = settings.commission
    forwarder = forwarder or children.SignalForwarder(
        translate=lambda signum: commission.signal_for(fault, "forward", signum)
    )
    forwarder.install()

    def exiting(code: int) -> int:
        return commission.exit_code(fault, code, container=settings.container_name)

    try:
        return exiting(
            _run(
                settings=settings,
                paths=paths,
                argv=argv,
                workdir=workdir,
                clock=clock,
                pause=pause,
                forwarder=forwarder,
                state=state,
            )
        )
    except PreMainFailure as err:
        code = err.exit_code
        if settings.fault is Fault.EXIT_1_NOT_65:
            code = EXIT_CODE_INSTEAD_OF_65
        state.code = code
        exits.finish(paths=paths, error=err, fault=fault)
        return exiting(code)
    except ExecutorError as err:
        return exiting(exits.finish(paths=paths, error=err, fault=fault))
    finally:
        forwarder.finish()
        if not keep_handlers:
            forwarder.restore()
        if settings.fault is Fault.NO_EXITCODE_FILE:
            logger.warning(
                "Fault %s: not writing the exitcode file.", Fault.NO_EXITCODE_FILE.value
            )
        else:
            _write_exitcode(
                paths=paths, container=settings.container_name, code=exiting(state.code)
            )


def _run(
    *,
    settings: ExecutorSettings,
    paths: Paths,
    argv: Sequence[str],
    workdir: str,
    clock: Clock,
    pause: Callable[[float], None] | None,
    forwarder: children.SignalForwarder,
    state: _Exit,
) -> int:
    name = settings.container_name
    if not argv:
        raise ExecutorError("no command given after `--`")
    fault = settings.commission
    try:
        ctr = make_ctr_dir(paths, name)
        commissioned.set_mode(fault, "ctr-dir", ctr, container=name)
    except OSError as err:
        raise ExecutorError(f"failed to create ctr directory: {err}") from None
    waited = 0.0
    if settings.wait_for_ready:
        timings = settings.timings
        if settings.fault is Fault.IGNORE_STALE_HEARTBEAT:
            # A chaos negative control: a stale RUNNING marker never ends the wait.
            timings = dataclasses.replace(timings, stale=float("inf"))
        started = clock.monotonic()
        handshake.wait_for_ready(paths=paths, clock=clock, timings=timings, pause=pause)
        waited = clock.monotonic() - started
    template = templates.load(paths=paths, env_value=settings.template_env)
    if settings.wait_for_ready and name == common.MAIN:
        linking.link_input_artifacts(
            template=template, paths=paths, fault=settings.commission
        )
        linking.check_working_dir(workdir)
    running = _Running(
        template=template,
        settings=settings,
        paths=paths,
        clock=clock,
        forwarder=forwarder,
    )
    code = _wait_for_dependencies(running)
    if code is not None:
        state.code = code
        return code
    command = look_path(
        argv[0], path=settings.child_env.get("PATH", ""), workdir=workdir
    )
    on_started = None
    if name in template.sidecar_names:
        on_started = _sidecar_self_kill(running)
    try:
        code = children.run(
            spec=children.ChildSpec(
                argv=[command, *argv[1:]],
                env=settings.child_env,
                cwd=workdir,
                capture=settings.include_script_output,
            ),
            paths=paths,
            container=name,
            forwarder=forwarder,
            clock=clock,
            poll=settings.timings.file_poll,
            watch_signals=settings.fault is not Fault.IGNORE_SIGNAL_FILE,
            on_started=on_started,
        )
    except OSError as err:  # e.g. exec format error, permission denied
        raise ExecutorError(f"failed to start command: {err}") from None
    state.code = code
    for file, path in (
        ("stdout", paths.stdout(name)),
        ("combined", paths.combined(name)),
        ("termination-log", paths.termination_log),
    ):
        commissioned.rewrite(fault, file, path, container=name)
    if name == common.MAIN:
        outputs.save_outputs(template=template, paths=paths, fault=fault)
    else:
        logger.info("Not saving outputs: %s is not the main container.", name)
    _give_up_late(settings, waited)
    return code


def _give_up_late(settings: ExecutorSettings, waited: float) -> None:
    """The `late-give-up` fault: a main that waited past the 30 s rule fails after all.

    WPC-HANDSHAKE-009 says a long pre-main with a live heartbeat must not make main
    give up. Under the fault main still runs its command and saves its outputs (so
    a reader in main sees the whole handshake), then exits 65 as if the supervisor
    had died: the node fails where it would have succeeded with a fast pre-main.
    """
    stale = settings.timings.stale
    if (
        settings.fault is Fault.LATE_GIVE_UP
        and settings.container_name == common.MAIN
        and waited > stale
    ):
        raise PreMainFailure(
            f"supervisor presumed dead: READY came after {waited:.0f}s, "
            f"more than {stale:.0f}s"
        )


def look_path(name: str, *, path: str, workdir: str) -> str:
    """Go's exec.LookPath: a name with a slash is used as is, else searched on `path`."""
    if "/" in name:
        candidate = name if os.path.isabs(name) else os.path.join(workdir, name)
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return name
        reason = (
            "permission denied"
            if os.path.exists(candidate)
            else "no such file or directory"
        )
        raise CommandNotFound(
            f'failed to find name in PATH: exec: "{name}": stat {name}: {reason}'
        )
    found = shutil.which(name, path=path)
    if found is None:
        raise CommandNotFound(
            f'failed to find name in PATH: exec: "{name}": executable file not found in $PATH'
        )
    return found


@dataclass(frozen=True)
class _Running:
    """What the steps around the child use: the loaded template and the container's tools."""

    template: templates.Template
    settings: ExecutorSettings
    paths: Paths
    clock: Clock
    forwarder: children.SignalForwarder


def _wait_for_dependencies(running: _Running) -> int | None:
    """Block until containerSet dependencies exit 0; a code to exit with if signalled."""
    template, settings, paths = running.template, running.settings, running.paths
    clock, forwarder = running.clock, running.forwarder
    for dep in template.dependencies(settings.container_name):
        logger.info("Waiting for dependency %s.", dep)
        while not paths.exitcode(dep).exists():
            for signum in forwarder.pending:
                if signum in _DEPENDENCY_SIGNAL_CODES:
                    return _DEPENDENCY_SIGNAL_CODES[signum]
            clock.sleep(settings.timings.file_poll)
        text = paths.exitcode(dep).read_text().strip()
        if text != "0":
            raise ExecutorError(f'dependency "{dep}" exited with non-zero code: {text}')
    return None


def _sidecar_self_kill(running: _Running) -> Callable[[int], None]:
    """Once started, a template sidecar kills itself when every main container has exited.

    SIGTERM, then SIGKILL once the grace period has passed, both sent to the
    child directly. Through the signal file each would reach the child up to
    one poll interval late, independently, so the child could see less than
    the grace period between them (WPC-KILL-003 says no earlier than G). The
    `sidecar-sigkill-early` fault waits only part of it.
    """
    template, settings, paths = running.template, running.settings, running.paths
    clock, forwarder = running.clock, running.forwarder

    def kill_when_mains_exit() -> None:
        mains = template.main_container_names
        killing.wait_until_exited(
            paths=paths, containers=mains, clock=clock, poll=settings.timings.file_poll
        )
        name = settings.container_name
        logger.info("Main container(s) %s exited; terminating %s.", mains, name)
        stop = commission.signal_for(settings.commission, "sidecar", signal.SIGTERM)
        if not forwarder.signal_child(stop):
            return
        grace = settings.grace_seconds
        if settings.fault is Fault.SIDECAR_SIGKILL_EARLY:
            grace *= EARLY_SIGKILL_FRACTION
        if clock.wait(forwarder.exited, grace):
            return
        logger.info("%s still runs %.1f s after SIGTERM; sending SIGKILL.", name, grace)
        forwarder.signal_child(signal.SIGKILL)

    def start(_pid: int) -> None:
        start_helper(
            threading.Thread(
                target=kill_when_mains_exit, name="sidecar-self-kill", daemon=True
            )
        )

    return start


def _write_exitcode(*, paths: Paths, container: str, code: int) -> None:
    # Whole or not at all: readers test for existence, then read the number.
    target = paths.exitcode(container)
    tmp = target.with_name(target.name + ".tmp")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_text(str(code))
        os.chmod(tmp, 0o644)
        os.replace(tmp, target)
    except OSError as err:
        logger.error("Failed to write the exit code %d: %s.", code, err)

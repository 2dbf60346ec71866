"""Killing: by signal file (other containers), and `argoexec kill SIG PID` (this one).

Kill by file (contract 5.1): for each container write 15 to its signal file,
wait up to the grace period for every exitcode file, then write 9 and wait up
to 10 s more. The emissary of each container acts on the file (`children`).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from collections.abc import Sequence
from typing import TextIO

from reference_impl.executor.clocks import Clock
from reference_impl.executor.protocol import Paths
from reference_impl.executor.protocol import make_ctr_dir

logger = logging.getLogger(__name__)

SIGTERM = 15
SIGKILL = 9


def write_signal(*, paths: Paths, container: str, signal_number: int) -> None:
    """Ask `container`'s emissary to signal its child."""
    make_ctr_dir(paths, container)
    fd = os.open(paths.signal(container), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o666)
    try:
        os.write(fd, str(signal_number).encode())
    finally:
        os.close(fd)


def wait_for_exit(
    *,
    paths: Paths,
    containers: Sequence[str],
    timeout: float,
    clock: Clock,
    poll: float,
) -> bool:
    """Wait until every container has an exitcode file; False if `timeout` passed first."""
    deadline = clock.monotonic() + timeout
    while True:
        if all(paths.exitcode(c).exists() for c in containers):
            return True
        remaining = deadline - clock.monotonic()
        if remaining <= 0:
            return False
        clock.sleep(min(poll, remaining))


def wait_until_exited(
    *, paths: Paths, containers: Sequence[str], clock: Clock, poll: float
) -> None:
    """Wait, with no deadline, until every container has an exitcode file."""
    wait_for_exit(
        paths=paths, containers=containers, timeout=float("inf"), clock=clock, poll=poll
    )


def kill_containers(
    *,
    paths: Paths,
    containers: Sequence[str],
    grace: float,
    clock: Clock,
    poll: float,
    after_sigkill: float = 10.0,
) -> bool:
    """Terminate, then kill, containers through their signal files; True if all exited."""
    if not containers:
        return True
    logger.info("Killing containers %s (grace %.0f s).", list(containers), grace)
    for signal_number, timeout in ((SIGTERM, grace), (SIGKILL, after_sigkill)):
        for name in containers:
            write_signal(paths=paths, container=name, signal_number=signal_number)
        if wait_for_exit(
            paths=paths, containers=containers, timeout=timeout, clock=clock, poll=poll
        ):
            return True
    logger.warning("Containers %s did not exit after SIGKILL.", list(containers))
    return False


def kill_process(
    *,
    signal_number: int,
    pid: int,
    out: TextIO,
    paths: Paths | None = None,
    container: str | None = None,
    send: Callable[[int, int], None] = os.kill,
) -> None:
    """`argoexec kill SIG PID`: say what is about to happen, then signal the process.

    The controller's SIGKILL arrives as `kill 9 1` executed inside the
    container, and Linux ignores SIGKILL sent to a PID namespace's init from
    inside that namespace: the emissary (PID 1) would survive it and so would
    the user's command. When `container` has an emissary (its ctr directory
    exists), SIGKILL for PID 1 is therefore also written to its signal file:
    the emissary SIGKILLs its child and exits 137, which is what the controller
    asked for (WPC-KILL-010). Upstream sends only the ignored signal (OQ-15).
    """
    out.write(f"killing {pid} with {signal_number}\n")
    out.flush()
    send(pid, signal_number)
    if (
        signal_number == SIGKILL
        and pid == 1
        and paths is not None
        and container is not None
        and paths.ctr(container).is_dir()
    ):
        logger.info(
            "PID 1 ignores SIGKILL from inside; asking %s's emissary.", container
        )
        write_signal(paths=paths, container=container, signal_number=SIGKILL)

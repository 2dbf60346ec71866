"""Run a long child (pytest) so that Ctrl-C lets it finish its own clean-up.

`subprocess.run` answers a KeyboardInterrupt by waiting 0.25 s for the child
and then killing it: a suite interrupted that way never runs its fixtures'
teardown, so its namespaces and dedicated controller instances leak, and it
writes no report. Here the child runs in a process group of its own, so a
terminal's Ctrl-C reaches only this process, and every SIGINT, SIGTERM or
SIGHUP we receive is passed to the child's whole group (pytest and its xdist
workers, each of which then tears down what it set up) while we go on waiting
for it to exit. A second Ctrl-C is passed on as well: whoever presses it twice
wants the child to stop sooner, and the child decides what that means (pytest
with the suite's plugin goes on cleaning up). A child whose rollback handles
only one signal, once, gets just that (`run_to_end(..., once=...)`).
`run_to_end` also says which signals arrived, so a caller can tell a child
that stopped because it was asked to from one that failed.
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import subprocess
from collections.abc import Iterator
from collections.abc import Mapping
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from types import FrameType

logger = logging.getLogger(__name__)

FORWARDED = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


class _Forwarder:
    """Pass each FORWARDED signal to the children's process groups, or keep it until there is one.

    The handlers go in before the first child starts: a signal that arrived between
    `Popen` returning and their installation killed this launcher with the
    default action and left the child, in a group of its own, running alone
    (a unit test caught it once on a loaded machine).
    """

    def __init__(self, once: signal.Signals | None = None) -> None:
        self.pids: list[int] = []
        self.pending: list[int] = []
        self.received: list[int] = []
        self.once = once
        """Pass on only the first signal, as this one (None: each, as it came)."""

    def handle(self, signum: int, frame: FrameType | None) -> None:
        self.received.append(signum)
        if self.once is not None and len(self.received) > 1:
            logger.warning(
                "Received %s again: not passed on, the child is still cleaning up.",
                signal.Signals(signum).name,
            )
            return
        if not self.pids:
            self.pending.append(signum)
            return
        for pid in self.pids:
            self._send(pid, signum)

    def attach(self, pid: int) -> None:
        """A child exists: pass on what arrived before the first one did."""
        self.pids.append(pid)
        while self.pending:
            self._send(pid, self.pending.pop(0))

    def _send(self, pid: int, signum: int) -> None:
        sent = signum if self.once is None else self.once
        logger.warning(
            "Received %s: passed to its process group (pid %d)%s, waiting for it to "
            "clean up.",
            signal.Signals(signum).name,
            pid,
            "" if sent == signum else f" as {signal.Signals(sent).name}",
        )
        with contextlib.suppress(ProcessLookupError):
            os.killpg(pid, sent)


@contextlib.contextmanager
def _forwarding(once: signal.Signals | None = None) -> Iterator[_Forwarder]:
    """While active, FORWARDED signals go to the forwarder, not their default action."""
    forwarder = _Forwarder(once)
    previous = {s: signal.signal(s, forwarder.handle) for s in FORWARDED}
    try:
        yield forwarder
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)


@dataclass(frozen=True)
class Ended:
    """How a child run by `run_to_end` ended."""

    status: int
    """Its exit status; 128 + the signal's number when a signal killed it."""
    signals: tuple[str, ...]
    """The names of the signals received while it ran, in order (empty: none);
    with `once`, only the first was passed on."""


def run_forwarding(
    command: Sequence[str],
    *,
    env: Mapping[str, str] | None = None,
    cwd: Path | None = None,
) -> int:
    """Run `command` in its own process group, passing signals on; its exit status."""
    return run_to_end(command, env=env, cwd=cwd).status


def run_to_end(
    command: Sequence[str],
    *,
    env: Mapping[str, str] | None = None,
    cwd: Path | None = None,
    once: signal.Signals | None = None,
) -> Ended:
    """Run `command` in its own process group, passing signals on, until it exits.

    Output is not captured: the child writes to our console as it goes. A child
    killed by a signal reports 128 + its number, as a shell would. `once`: pass
    on only the first signal, as this one, for a child that rolls back on it
    (`clusters up` on SIGINT; it has no SIGHUP handler); later ones are only
    logged.
    """
    with _forwarding(once) as forwarder:
        proc = subprocess.Popen(
            list(command),
            env=dict(env) if env is not None else None,
            cwd=cwd,
            process_group=0,
        )
        forwarder.attach(proc.pid)
        status = proc.wait()  # PEP 475: a handled signal does not end the wait
    return Ended(
        status=128 - status if status < 0 else status,
        signals=tuple(signal.Signals(s).name for s in forwarder.received),
    )


def run_side_by_side(
    commands: Sequence[Sequence[str]], *, logs: Sequence[Path]
) -> list[int]:
    """Run `commands` at once, each in its own process group with its output in its log.

    Every signal we receive goes to every child's group, as `run_forwarding` does
    for one; once one has arrived, no further child is started (its status is
    128 + that signal's number, as if it had been killed by it). Returns each
    command's exit status, in order. The output goes to files because two
    suites writing to one console would interleave line by line.
    """
    if len(commands) != len(logs):
        raise ValueError(f"{len(commands)} commands but {len(logs)} logs")
    statuses: list[int | None] = [None] * len(commands)
    with _forwarding() as forwarder:
        started: list[tuple[int, subprocess.Popen[bytes]]] = []
        for index, (command, log) in enumerate(zip(commands, logs, strict=True)):
            if forwarder.received:
                statuses[index] = 128 + forwarder.received[0]
                continue
            log.parent.mkdir(parents=True, exist_ok=True)
            with log.open("wb") as sink:  # the child keeps its own descriptor
                proc = subprocess.Popen(
                    list(command),
                    stdout=sink,
                    stderr=subprocess.STDOUT,
                    stdin=subprocess.DEVNULL,
                    process_group=0,
                )
            forwarder.attach(proc.pid)
            started.append((index, proc))
        for index, proc in started:
            status = proc.wait()  # PEP 475: a handled signal does not end the wait
            statuses[index] = 128 - status if status < 0 else status
    return [128 if status is None else status for status in statuses]

"""Host-wide locks for scenarios that must not overlap on one cluster.

Some scenarios cannot share the cluster with each other even though each has
its own namespace: a controller without `instanceID` processes every Workflow
of the cluster that lacks the instance label, so it must never run while
another scenario relies on such a Workflow staying untouched (or while another
controller without `instanceID` serves the same Workflows). `held()` is an
advisory `flock` on a file named after the lock and the cluster's API server,
so it serialises pytest-xdist workers and concurrent runs on one host (other
worktrees included); the kernel releases it when the holding process dies.
Waiting for it goes through `waiting.until`; running out of time is a harness
problem (HarnessError), not a verdict on the implementation.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import re
import tempfile
from collections.abc import Iterator
from pathlib import Path

from conformance.errors import HarnessError
from conformance.errors import WaitTimeout
from conformance.harness.watching import until
from plumbing.waiting import Clock
from plumbing.waiting import NotYet

UNLABELLED_WORKFLOWS = "unlabelled-workflows"
"""Held by scenarios that create Workflows without the instance label and expect
them to stay unprocessed, or that run a controller without `instanceID`."""

NAME = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")


def lock_path(name: str, *, cluster: str, directory: Path | None = None) -> Path:
    """The lock file of `name` for the cluster whose API server is `cluster`."""
    if not NAME.match(name):
        raise HarnessError(f"lock name {name!r} is not a DNS label")
    digest = hashlib.sha256(cluster.encode()).hexdigest()[:16]
    folder = directory or Path(tempfile.gettempdir()) / "wpc-locks"
    return folder / f"{digest}-{name}.lock"


@contextlib.contextmanager
def held(
    name: str,
    *,
    cluster: str,
    holder: str,
    timeout: float,
    interval: float,
    directory: Path | None = None,
    clock: Clock | None = None,
) -> Iterator[Path]:
    """Hold the lock `name` for `cluster` while the block runs; wait for it first.

    `holder` (a test's node ID) is written into the file, so a waiter's timeout
    names who kept the lock.
    """
    path = lock_path(name, cluster=cluster, directory=directory)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o666)
    try:

        def acquired() -> bool | NotYet:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                return NotYet(f"{path} is held by {path.read_text().strip()!r}")
            return True

        try:
            until(
                acquired,
                timeout=timeout,
                interval=interval,
                describe=f"the lock {name} for {cluster}",
                clock=clock,
            )
        except WaitTimeout as exc:
            raise HarnessError(f"{holder}: {exc}") from exc
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{holder} (pid {os.getpid()})\n".encode(), 0)
        yield path
    finally:
        os.close(fd)  # closing the only descriptor releases the flock

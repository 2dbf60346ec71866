"""Host-wide locks for scenarios that must not overlap on one cluster.

Some scenarios cannot share the cluster with each other even though each has
its own namespace: a controller without `instanceID` processes every Workflow
of the cluster that lacks the instance label, so it must never run while
another scenario relies on such a Workflow staying untouched (or while another
controller without `instanceID` serves the same Workflows). `held()` is an
advisory `flock` on a file named after the lock and the cluster's API server,
so it serialises pytest-xdist workers and concurrent runs on one host (other
worktrees included); the kernel releases it when the holding process dies.
The lock files live in a directory only the running user can write
(`/run/wpc-locks` for root), never a shared one such as /tmp: there another
user could plant a symbolic link that makes a root run truncate any file, or
hold the lock to stall every run. Neither the directory nor the file is
followed through a link, and both must belong to the running user.
Waiting for it goes through `waiting.until`; running out of time is a harness
problem (HarnessError), not a verdict on the implementation.
"""

from __future__ import annotations

import atexit
import contextlib
import fcntl
import hashlib
import os
import re
import stat
from collections.abc import Callable
from collections.abc import Iterator
from pathlib import Path

from conformance.errors import HarnessError
from conformance.errors import WaitTimeout
from conformance.harness.cluster.watching import until
from plumbing.waiting import Clock
from plumbing.waiting import NotYet

UNLABELLED_WORKFLOWS = "unlabelled-workflows"
"""Held by scenarios that create Workflows without the instance label and expect
them to stay unprocessed, or that run a controller without `instanceID`."""

PREPARE = "prepare"
"""Held while a run builds and loads images and runs its profile's prepare commands:
two runs side by side (`wpc qualify`'s builds, two people's runs on one host) would
write the same image archives and contexts in the cache at once."""

NAME = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")


ROOT_LOCKS = Path("/run/wpc-locks")


def default_directory() -> Path:
    """Where this user's lock files live: /run/wpc-locks for root, else under ~/.cache."""
    if os.geteuid() == 0:
        return ROOT_LOCKS
    return Path.home() / ".cache" / "wpc" / "locks"


def lock_path(name: str, *, cluster: str, directory: Path | None = None) -> Path:
    """The lock file of `name` for the cluster whose API server is `cluster`."""
    if not NAME.match(name):
        raise HarnessError(f"lock name {name!r} is not a DNS label")
    digest = hashlib.sha256(cluster.encode()).hexdigest()[:16]
    folder = directory or default_directory()
    return folder / f"{digest}-{name}.lock"


def _private_directory(folder: Path) -> None:
    """Create `folder` (0700) or check it: a real directory of ours, not writable by others."""
    # FileExistsError: a file (or a link to one) where the directory goes
    with contextlib.suppress(FileExistsError):
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    info = folder.lstat()
    problem = (
        "is a symbolic link"
        if stat.S_ISLNK(info.st_mode)
        else "is not a directory"
        if not stat.S_ISDIR(info.st_mode)
        else f"belongs to uid {info.st_uid}, not {os.geteuid()}"
        if info.st_uid != os.geteuid()
        else f"is writable by others (mode {stat.S_IMODE(info.st_mode):o})"
        if info.st_mode & (stat.S_IWGRP | stat.S_IWOTH)
        else ""
    )
    if problem:
        raise HarnessError(
            f"lock directory {folder} {problem}; remove it or fix it (it must be "
            f"a directory of uid {os.geteuid()}, mode 0700)"
        )


def _open_lock(path: Path) -> int:
    """Open (or create) the lock file without following a link; it must be ours."""
    _private_directory(path.parent)
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    except OSError as exc:
        raise HarnessError(f"cannot open the lock file {path}: {exc}") from exc
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode) or info.st_uid != os.geteuid():
        os.close(fd)
        raise HarnessError(
            f"lock file {path} is not a regular file of uid {os.geteuid()}; remove it"
        )
    return fd


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
    waiting: Callable[[str], None] | None = None,
) -> Iterator[Path]:
    """Hold the lock `name` for `cluster` while the block runs; wait for it first.

    `holder` (a test's node ID) is written into the file, so a waiter's timeout
    names who kept the lock. `waiting`, if given, is told once, with the
    holder's words, when the lock is not free at first: a run that waits
    minutes for another's builds says so rather than going quiet.
    """
    path = lock_path(name, cluster=cluster, directory=directory)
    fd = _open_lock(path)
    told: list[str] = []
    try:

        def acquired() -> bool | NotYet:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                held_by = path.read_text().strip()
                if waiting is not None and not told:
                    told.append(held_by)
                    waiting(held_by)
                return NotYet(f"{path} is held by {held_by!r}")
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


ALIVE = "alive"
DEAD = "dead"
UNKNOWN = "unknown"
"""What a session lock says of its run (`liveness`)."""


def session_lock_name(session_id: str) -> str:
    """The lock a live run holds for its whole life (`session-<id>`)."""
    return f"session-{session_id}"


def hold_for_life(name: str, *, cluster: str, directory: Path | None = None) -> Path:
    """Take the lock `name` for the rest of this process's life (never blocks).

    The kernel releases it when the process ends, however it ends; at a normal
    exit the file is removed as well, so only runs that died leave one behind.
    The file's existence says "this host started that run"; whether it is held
    says whether the run still lives (`liveness`).
    """
    path = lock_path(name, cluster=cluster, directory=directory)
    fd = _open_lock(path)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError as exc:
        os.close(fd)
        raise HarnessError(f"{path} is held by another process") from exc
    os.ftruncate(fd, 0)
    os.pwrite(fd, f"pid {os.getpid()}\n".encode(), 0)
    _HELD.append(fd)

    def release() -> None:
        with contextlib.suppress(OSError):
            path.unlink()
        with contextlib.suppress(OSError):
            os.close(fd)

    atexit.register(release)
    return path


_HELD: list[int] = []
"""Descriptors of the locks held for life (kept open, so the locks stay held)."""


def liveness(name: str, *, cluster: str, directory: Path | None = None) -> str:
    """ALIVE (its holder runs), DEAD (no holder: the run died), UNKNOWN (no such file).

    UNKNOWN is every run this host did not start (another host, a chaos
    experiment, a version of the suite before these locks): never swept.
    """
    path = lock_path(name, cluster=cluster, directory=directory)
    try:
        fd = os.open(path, os.O_RDWR | os.O_NOFOLLOW | os.O_CLOEXEC)
    except FileNotFoundError:
        return UNKNOWN
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return ALIVE
    finally:
        os.close(fd)
    return DEAD


def forget(name: str, *, cluster: str, directory: Path | None = None) -> None:
    """Remove a dead run's lock file once what it left is swept."""
    with contextlib.suppress(FileNotFoundError):
        lock_path(name, cluster=cluster, directory=directory).unlink()

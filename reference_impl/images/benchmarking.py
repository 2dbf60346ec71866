"""`python -m reference_impl.images bench-start`: argoexec's start-up and its early-signal window.

Each run starts `<executable> emissary -- <command>` as a container would (the
environment the controller gives it, the template in ARGO_TEMPLATE), with
/var/run/argo on a tmpfs of the benchmark's own (a private mount namespace, so
it needs root and `unshare`). Figures per run, all from the end of exec (when
`Popen` returns):

    owned    the process that will parent the user's command blocks or catches
             SIGTERM (SigBlk/SigCgt in /proc/<pid>/status, polled every ms, and
             held from then on)
    handled  that process catches SIGTERM: the emissary's Python handler exists
    main     the user's command runs (it writes its parent's pid into a FIFO)
    cpu      user + system CPU of the whole run (the part that does not depend on
             what else the machine is doing)

With several executables, their starts alternate, so that a machine whose
other load changes (a shared one) weighs on each of them alike.

The signal sweep starts the emissary as PID 1 of a new PID namespace (as in a
container), sends it SIGTERM from outside (as the kubelet does) at fixed delays
after exec while its command would sleep for 3 s, and sorts the ends: `143` is
the contract (forwarded to the command); `exit 2` is the static bootloader
reporting a child killed by the signal; `signal N` a death by the signal; `0`
a lost signal (PID 1 neither caught nor blocked it, so the kernel dropped it).
The window is the latest delay with a fatal end; lost signals are counted too.

It is a benchmark, not a test: it prints figures and asserts nothing.
"""

from __future__ import annotations

import ctypes
import os
import resource
import select
import shutil
import signal
import subprocess
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from dataclasses import field
from pathlib import Path

RUN_DIR = Path("/var/run/argo")
FIFO = Path("/run/wpc-bench-start.fifo")
_SIGTERM_BIT = 1 << (signal.SIGTERM - 1)
POLL = 0.001
"""Seconds between two looks at /proc: the resolution of `owned` and `handled`."""
RUN_TIMEOUT = 120.0
"""Longest a single run may take, even on a badly loaded machine."""
FATAL = ("exit 2", "signal")
LOST = "0 (lost: the command ran to its end)"
_CLONE_NEWPID = 0x20000000


def environment() -> dict[str, str]:
    """What the reference controller gives a container that runs the emissary."""
    return {
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "ARGO_CONTAINER_NAME": "main",
        "ARGO_TEMPLATE": "{}",
        "TMPDIR": str(RUN_DIR),
        "WPC_EXECUTOR_TMPDIR": str(RUN_DIR),
    }


@dataclass
class StartRun:
    """One start: seconds from exec to each milestone (None: never seen)."""

    owned: float | None
    handled: float | None
    main: float
    cpu: float
    """CPU seconds (user + system) of the emissary and everything it waited for."""


@dataclass
class _Seen:
    """Per pid: since when a mask bit has been set without a break."""

    owned: dict[int, float | None] = field(default_factory=dict)
    handled: dict[int, float | None] = field(default_factory=dict)
    inner: dict[int, int] = field(default_factory=dict)
    """Pid in the run's own PID namespace (what `$PPID` says there) -> ours."""


def _children(pid: int) -> list[int]:
    try:
        text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    except OSError:
        return []  # intentionally ignore: the process has just exited
    return [int(p) for p in text.split()]


def _status(pid: int) -> tuple[int, int, int] | None:
    """(SigCgt, SigBlk, innermost pid) of `pid`, or None if it has gone."""
    try:
        lines = Path(f"/proc/{pid}/status").read_text().splitlines()
    except OSError:
        return None  # intentionally ignore: the process has just exited
    fields = dict(line.split(":\t", 1) for line in lines if ":\t" in line)
    inner = int(fields["NSpid"].split()[-1])
    return int(fields["SigCgt"], 16), int(fields["SigBlk"], 16), inner


def _mark(since: dict[int, float | None], pid: int, now: float, on: bool) -> None:
    if not on:
        since[pid] = None  # e.g. handlers inherited over fork, reset by exec
    elif since.get(pid) is None:
        since[pid] = now


def _watch(root: int, t0: float, stop: threading.Event, seen: _Seen) -> None:
    while not stop.is_set():
        now = time.monotonic() - t0
        pending = [root]
        while pending:
            pid = pending.pop()
            pending += _children(pid)
            status = _status(pid)
            if status is not None:
                caught = bool(status[0] & _SIGTERM_BIT)
                _mark(seen.handled, pid, now, caught)
                _mark(seen.owned, pid, now, caught or bool(status[1] & _SIGTERM_BIT))
                seen.inner[status[2]] = pid
        stop.wait(POLL)


def _pid_namespaces(*, fresh: bool) -> None:
    """Have children born in a new PID namespace (`fresh`) or in ours again."""
    libc = ctypes.CDLL(None, use_errno=True)
    own = os.open("/proc/self/ns/pid", os.O_RDONLY)
    try:
        ok = libc.setns(own, _CLONE_NEWPID) == 0
        if ok and fresh:
            ok = libc.unshare(_CLONE_NEWPID) == 0
    finally:
        os.close(own)
    if not ok:
        err = ctypes.get_errno()
        raise OSError(err, f"cannot switch PID namespaces: {os.strerror(err)}")


def _start(argv: Sequence[str]) -> subprocess.Popen[bytes]:
    """Start `argv` as PID 1 of a new PID namespace, as a container's process is.

    PID 1 differs: a signal it neither catches nor blocks is dropped, not fatal.
    `unshare(CLONE_NEWPID)` works only while children are born in our own
    namespace, and threads cannot be started while they are not, so switch
    back (setns) right after the fork.
    """
    _pid_namespaces(fresh=True)
    try:
        return subprocess.Popen(
            list(argv),
            env=environment(),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
    finally:
        _pid_namespaces(fresh=False)


def _clean_run_dir() -> None:
    for entry in RUN_DIR.iterdir():
        if entry.is_dir() and not entry.is_symlink():
            shutil.rmtree(entry)
        else:
            entry.unlink()


def _read_fifo(proc: subprocess.Popen[bytes]) -> str:
    """The line the user's command writes, or RuntimeError if the emissary ends first."""
    fd = os.open(FIFO, os.O_RDONLY | os.O_NONBLOCK)
    try:
        data = b""
        deadline = time.monotonic() + RUN_TIMEOUT
        while not data.endswith(b"\n"):
            if proc.poll() is not None and not select.select([fd], [], [], 0)[0]:
                raise RuntimeError(f"argoexec ended with {proc.returncode} first")
            if time.monotonic() > deadline:
                raise RuntimeError(f"no start within {RUN_TIMEOUT} s")
            if select.select([fd], [], [], POLL)[0]:
                data += os.read(fd, 64)
        return data.decode().strip()
    finally:
        os.close(fd)


def start_once(executable: Path) -> StartRun:
    """Start the emissary once and time its milestones."""
    _clean_run_dir()
    FIFO.unlink(missing_ok=True)
    os.mkfifo(FIFO)
    script = f"echo $PPID > {FIFO}"
    cpu_before = _children_cpu()
    proc = _start([str(executable), "emissary", "--", "/bin/sh", "-c", script])
    t0 = time.monotonic()
    seen, stop = _Seen(), threading.Event()
    watcher = threading.Thread(target=_watch, args=(proc.pid, t0, stop, seen))
    watcher.start()
    try:
        inner = int(_read_fifo(proc))
        main = time.monotonic() - t0
    finally:
        stop.set()
        watcher.join()
        proc.wait(RUN_TIMEOUT)
    cpu = _children_cpu() - cpu_before
    parent = seen.inner.get(inner, -1)
    # Installed by the time the command ran; a look at /proc may have missed it
    # (they are POLL apart), so then the command's start is the upper bound.
    owned, handled = seen.owned.get(parent), seen.handled.get(parent)
    return StartRun(
        owned=main if owned is None else owned,
        handled=main if handled is None else handled,
        main=main,
        cpu=cpu,
    )


def _children_cpu() -> float:
    """User + system seconds of every waited-for descendant so far."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def signal_once(executable: Path, delay: float) -> str:
    """SIGTERM the emissary `delay` seconds after exec and say how it ended."""
    _clean_run_dir()
    proc = _start([str(executable), "emissary", "--", "/bin/sleep", "3"])
    # A benchmark's own pacing, not a wait for a condition.
    time.sleep(delay)  # noqa: sleep-ok - the delay under measurement
    proc.send_signal(signal.SIGTERM)
    code = proc.wait(RUN_TIMEOUT)
    if code < 0:
        return f"signal {-code}"
    if code == 0:
        return LOST
    return "exit 2" if code == 2 else str(code)


def sweep(executable: Path, delays: Sequence[float]) -> dict[float, str]:
    """`signal_once` at each delay."""
    return {delay: signal_once(executable, delay) for delay in delays}


def mount_private_run_dir() -> None:
    """Put a tmpfs on /run (in this process's own mount namespace) with /run/argo in it."""
    subprocess.run(["mount", "-t", "tmpfs", "wpc-bench", "/run"], check=True)
    RUN_DIR.mkdir(parents=True, exist_ok=True)

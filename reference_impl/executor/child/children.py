"""Running the user's command as the emissary's child.

Three duties besides start-and-wait (contract 1.5 steps 4-6):
- forward every signal the emissary receives to the child's process group
  (signals that arrive before the child exists are queued and delivered once
  it does);
- tee the child's stdout to `ctr/<c>/stdout` and stdout+stderr to
  `ctr/<c>/combined` when the script output is wanted;
- act on the signal file `ctr/<c>/signal`: read the number, remove the file,
  signal the child.
The child leads a process group of its own and every signal goes to that group,
as upstream's emissary does (`osspecific.Setpgid` at start, `osspecific.Kill`
signals `-pgid`): a command's background job (`sleep 600 &` in a shell) gets the
SIGTERM too, instead of outliving its shell, holding the output pipes, and
turning a command that handles SIGTERM into a SIGKILL at the grace period.
The exit code is the child's, or 128 + N when signal N ended it, as a shell and
upstream's Linux emissary report it (`osspecific.Wait` in signal_linux.go); 137 is
only the fallback when no code is known.
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import subprocess
import threading
from collections.abc import Callable
from collections.abc import Mapping
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import BinaryIO

from reference_impl.executor import launching
from reference_impl.executor.clocks import Clock
from reference_impl.executor.protocol import Paths
from reference_impl.executor.threads import UNCATCHABLE_OR_SYNCHRONOUS
from reference_impl.executor.threads import start_helper

logger = logging.getLogger(__name__)

_NOT_FORWARDED = UNCATCHABLE_OR_SYNCHRONOUS | {
    signal.SIGCHLD,  # about our own child, not for it
    signal.SIGPIPE,  # ours, from a closed log reader
}
FORWARDED = frozenset(s for s in signal.valid_signals() if s not in _NOT_FORWARDED)
_STDOUT = 1  # the container's log streams, as file descriptors (not sys.stdout,
_STDERR = 2  # which a test harness or logging setup may have replaced)
TEE_JOIN_TIMEOUT = 10.0
"""How long to keep copying output after the child exits, for grandchildren holding the pipes."""


def exit_code_of(returncode: int) -> int:
    """Map a Popen return code to the emissary's exit code."""
    return returncode if returncode >= 0 else 128 - returncode


class SignalForwarder:
    """Forward caught signals to the child; queue them until there is one."""

    def __init__(self, translate: Callable[[int], int] | None = None) -> None:
        self._translate = translate or (lambda signum: signum)
        """The signal to forward for one caught (a fault's `signals` hook at `forward`)."""
        self._pid: int | None = None
        self._pending: list[int] = []
        self._previous: dict[int, object] = {}
        self._finished = False
        self.exited = threading.Event()
        """Set once the child has exited (by `finish`)."""

    def install(self) -> None:
        """Catch every forwardable signal (main thread only), then take delivery.

        Until now the launcher kept them blocked, so none arrived before this
        handler existed; those pending are handled (queued) at once.
        """
        for signum in FORWARDED:
            # Intentionally ignore failures: some real-time signals are reserved.
            with contextlib.suppress(OSError, ValueError):
                self._previous[signum] = signal.signal(signum, self._handle)
        launching.release_signals()

    def restore(self) -> None:
        """Put the previous handlers back."""
        for signum, handler in self._previous.items():
            signal.signal(signum, handler)  # type: ignore[arg-type]
        self._previous.clear()

    @property
    def pending(self) -> list[int]:
        """Signals caught before a child was attached."""
        return list(self._pending)

    def attach(self, pid: int) -> None:
        """Start forwarding to `pid`, delivering what was queued first."""
        self._pid = pid
        for signum in self._pending:
            self._send(self._translate(signum))
        self._pending.clear()

    def finish(self) -> None:
        """The child is gone: from now on, drop signals instead of forwarding them.

        The handlers stay installed. A late SIGTERM (the controller signals a
        finished container again, the kubelet stops the pod) must not kill the
        emissary while it writes its exitcode file: under the default
        disposition it would die by the signal, and the static bootloader
        around argoexec reports a signalled child as exit code 2, not as 143.
        The SIGKILL after the grace period stays the only hard limit.
        """
        self._pid = None
        self._pending.clear()
        self._finished = True
        self.exited.set()

    def signal_child(self, signum: int) -> bool:
        """Signal the child now, if it still runs; False if there is none (yet or any more)."""
        if self._finished or self._pid is None:
            return False
        self._send(signum)
        return True

    def _handle(self, signum: int, _frame: FrameType | None) -> None:
        if self._finished:
            logger.info(
                "Signal %d arrived after the command exited; ignoring it.", signum
            )
        elif self._pid is None:
            self._pending.append(signum)
        else:
            self._send(self._translate(signum))

    def _send(self, signum: int) -> None:
        assert self._pid is not None
        signal_group(self._pid, signum)


def signal_group(pid: int, signum: int) -> None:
    """Signal the process group `pid` is in (the child's own), else `pid` alone.

    Upstream's `osspecific.Kill`: `-getpgid(pid)` when the group can be read.
    Our own group is never signalled: a child that rejoined it would turn the
    forward into a signal to the emissary itself.
    """
    try:
        group = os.getpgid(pid)
        if group != os.getpgrp():
            os.killpg(group, signum)
            return
        os.kill(pid, signum)
    except ProcessLookupError:
        pass  # intentionally ignore: the child (and its group) has gone already


def watch_signal_file(
    *, path: Path, pid: int, stop: threading.Event, clock: Clock, poll: float
) -> None:
    """Until `stop`, act on `path`: read a signal number, remove the file, signal `pid`."""
    while not stop.is_set():
        try:
            text = path.read_text().strip()
        except FileNotFoundError:
            text = None
        # Empty: the writer has created the file but not written the number yet;
        # removing it now would lose the signal, so look again next time.
        if text:
            _remove(path)
            try:
                signum = int(text)
                logger.info(
                    "Signal file asks for signal %d; signalling %d.", signum, pid
                )
                signal_group(pid, signum)
            except ValueError:
                logger.warning("Ignoring signal file %s with body %r.", path, text)
        clock.wait(stop, poll)


def _remove(path: Path) -> None:
    # Intentionally ignore a missing file: a writer raced us; the next poll sees it.
    with contextlib.suppress(FileNotFoundError):
        path.unlink()


@dataclass(frozen=True)
class ChildSpec:
    """What to run and how."""

    argv: Sequence[str]
    env: Mapping[str, str]
    cwd: str | None
    capture: bool
    """Tee to ctr/<c>/stdout and ctr/<c>/combined (ARGO_INCLUDE_SCRIPT_OUTPUT)."""


def run(
    *,
    spec: ChildSpec,
    paths: Paths,
    container: str,
    forwarder: SignalForwarder,
    clock: Clock,
    poll: float,
    watch_signals: bool = True,
    on_started: Callable[[int], None] | None = None,
) -> int:
    """Run the child to completion and return the emissary's exit code for it."""
    pipe = subprocess.PIPE if spec.capture else None
    proc = subprocess.Popen(  # the user's argv, never a shell
        list(spec.argv),
        env=dict(spec.env),
        cwd=spec.cwd,
        stdout=pipe,
        stderr=pipe,
        process_group=0,  # a group of its own, as upstream's Setpgid
    )
    forwarder.attach(proc.pid)
    stop = threading.Event()
    threads, log_fds = (
        _tee(proc=proc, paths=paths, container=container) if spec.capture else ([], [])
    )
    watcher: threading.Thread | None = None
    if watch_signals:
        watcher = threading.Thread(
            target=watch_signal_file,
            kwargs={
                "path": paths.signal(container),
                "pid": proc.pid,
                "stop": stop,
                "clock": clock,
                "poll": poll,
            },
            name="signal-file",
            daemon=True,
        )
        start_helper(watcher)
    if on_started is not None:
        on_started(proc.pid)
    returncode = proc.wait()
    forwarder.finish()  # its pid may be reused now
    stop.set()
    if watcher is not None:
        watcher.join()  # no thread should outlive the run: see freezing.LIBGCC_S
    for thread in threads:
        thread.join(TEE_JOIN_TIMEOUT)
    if not any(t.is_alive() for t in threads):
        # Only once the copies are done; a grandchild may still hold the pipes.
        for fd in log_fds:
            os.close(fd)
        for stream in (proc.stdout, proc.stderr):
            if stream is not None:
                stream.close()
    logger.info("The command exited with return code %d.", returncode)
    return exit_code_of(returncode)


def _tee(
    *, proc: subprocess.Popen[bytes], paths: Paths, container: str
) -> tuple[list[threading.Thread], list[int]]:
    assert proc.stdout is not None
    assert proc.stderr is not None
    stdout_file = _open_log(paths.stdout(container))
    combined_file = _open_log(paths.combined(container))
    lock = threading.Lock()
    threads = [
        threading.Thread(
            target=_copy,
            args=(proc.stdout, [_STDOUT, stdout_file, combined_file], lock),
            name="tee-stdout",
            daemon=True,
        ),
        threading.Thread(
            target=_copy,
            args=(proc.stderr, [_STDERR, combined_file], lock),
            name="tee-stderr",
            daemon=True,
        ),
    ]
    for thread in threads:
        start_helper(thread)
    return threads, [stdout_file, combined_file]


def _open_log(path: Path) -> int:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o666)
    os.fchmod(fd, 0o666)
    return fd


def _copy(source: BinaryIO, fds: list[int], lock: threading.Lock) -> None:
    # The lock keeps a chunk of stdout and one of stderr from interleaving in
    # `combined`; chunk order follows the order the reads completed in.
    fd = source.fileno()
    while chunk := os.read(fd, 64 * 1024):
        with lock:
            for out in fds:
                _write_all(out, chunk)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        try:
            view = view[os.write(fd, view) :]
        except OSError as err:
            logger.debug("Dropping output for fd %d: %s.", fd, err)
            return

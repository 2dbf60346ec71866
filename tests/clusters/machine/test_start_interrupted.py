"""A signal that lands while a daemon is being started never loses the daemon.

We test this aspect with a real child process and a real SIGTERM sent to this
process at the worst moment: inside `subprocess.Popen`, after the fork (the
child exists) and before Popen has returned its pid. CI's dry run once hit it
(`clusters up` got SIGTERM just as containerd started): the rollback ran before the
child had become containerd, so it matched neither the executable nor the
command line the rollback looks for, and containerd outlived the rollback.
`processes.start` must finish recording the child (pid file, reaping table) and
only then raise `Signalled`, and the child must receive SIGTERM as usual (the
blocked mask of the deferral is not inherited).
"""

from __future__ import annotations

import os
import signal
import subprocess
from pathlib import Path
from typing import Any

import pytest

from clusters.machine import interrupting
from clusters.machine import processes
from plumbing.waiting import NotYet
from plumbing.waiting import until

EXIT_TIMEOUT = 10.0
"""Seconds for `sleep` to exit once signalled (it does at once)."""
SIGNAL_BITS = {
    signal.SIGINT: 1 << (signal.SIGINT - 1),
    signal.SIGTERM: 1 << (signal.SIGTERM - 1),
}


def _mask(pid: int, field: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(f"{field}:"):
            return int(line.split()[1], 16)
    raise AssertionError(f"/proc/{pid}/status has no {field}")


@pytest.fixture
def signal_inside_popen(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """SIGTERM to ourselves right after Popen forked its child; the child pids seen."""
    original = subprocess.Popen._execute_child  # type: ignore[attr-defined]
    children: list[int] = []

    def fork_then_signal(
        self: subprocess.Popen[bytes], *args: Any, **kwargs: Any
    ) -> None:
        original(self, *args, **kwargs)
        children.append(self.pid)
        os.kill(os.getpid(), signal.SIGTERM)

    monkeypatch.setattr(subprocess.Popen, "_execute_child", fork_then_signal)
    return children


def test_a_signal_inside_popen_is_raised_only_once_the_child_is_recorded(
    tmp_path: Path, signal_inside_popen: list[int]
) -> None:
    component = processes.Component(
        name="sleeper", command=("sleep", "300"), probe=lambda: NotYet("never")
    )
    try:
        with (
            pytest.raises(interrupting.Signalled) as raised,
            interrupting.interrupts_raise(),
        ):
            processes.start(
                component, log_dir=tmp_path / "logs", run_dir=tmp_path / "run"
            )
        assert raised.value.signum == signal.SIGTERM
        (pid,) = signal_inside_popen
        pid_file = tmp_path / "run" / "sleeper.pid"
        assert pid_file.exists(), (
            "the signal cut start() short: the child's pid is lost"
        )
        assert pid_file.read_text().strip() == str(pid)
        assert _mask(pid, "SigBlk") & SIGNAL_BITS[signal.SIGTERM] == 0, (
            "the daemon inherited the deferral's blocked SIGTERM: a rollback's "
            "SIGTERM would not stop it"
        )
        processes.kill_all([pid], timeout=EXIT_TIMEOUT)
        assert not Path(f"/proc/{pid}").exists(), "reaped after kill_all"
    finally:
        for pid in signal_inside_popen:
            try:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
            except (ProcessLookupError, ChildProcessError):
                pass


def test_a_daemon_started_without_a_signal_gets_sigterm_as_usual(
    tmp_path: Path,
) -> None:
    component = processes.Component(
        name="sleeper", command=("sleep", "300"), probe=lambda: NotYet("never")
    )
    with interrupting.interrupts_raise():
        started = processes.start(
            component, log_dir=tmp_path / "logs", run_dir=tmp_path / "run"
        )
    pid = started.process.pid
    try:
        assert (
            _mask(pid, "SigBlk")
            & (SIGNAL_BITS[signal.SIGTERM] | SIGNAL_BITS[signal.SIGINT])
            == 0
        )
        assert _mask(os.getpid(), "SigBlk") & SIGNAL_BITS[signal.SIGTERM] == 0, (
            "the deferral left SIGTERM blocked in this process"
        )
        os.kill(pid, signal.SIGTERM)
        until(
            lambda: (
                "exited" if started.process.poll() is not None else NotYet("running")
            ),
            timeout=EXIT_TIMEOUT,
            interval=0.05,
            describe="sleep to exit on SIGTERM",
        )
        assert started.process.returncode == -signal.SIGTERM
    finally:
        if started.process.poll() is None:
            started.process.kill()
            started.process.wait()

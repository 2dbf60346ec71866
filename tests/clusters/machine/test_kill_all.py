"""`kill_all` waits for a process to be gone, not just for its main thread.

CI's dry run once failed here: `clusters down` stopped our containerd, the
main thread of that Go daemon exited first, `/proc/<pid>/stat` said zombie,
and `kill_all` took that as exited while other threads still ran. The child
could not be reaped yet, its Popen object was dropped unreaped, and Python
warned "subprocess ... is still running" into the next test. We rebuild that
moment with a real child: it ignores SIGTERM, ends only its main thread
(SYS_exit) and lets a second thread run on for a while.
"""

from __future__ import annotations

import platform
import sys
from pathlib import Path

import pytest

from clusters.machine import processes
from plumbing.waiting import NotYet
from plumbing.waiting import until

LINGER = 1.5
"""Seconds the second thread runs on after the main thread has exited."""
EXIT_TIMEOUT = 10.0
"""Seconds kill_all gives the child per signal: well above LINGER."""
LEADER_TIMEOUT = 10.0
"""Seconds for the child's main thread to exit after start."""

SYS_EXIT = {"x86_64": 60, "aarch64": 93}
"""The `exit` system call (one thread), not `exit_group` (the process)."""

CHILD = f"""
import ctypes, os, signal, threading, time
signal.signal(signal.SIGTERM, signal.SIG_IGN)
def linger():
    time.sleep({LINGER})  # noqa: sleep-ok - the child must outlive its main thread
    os._exit(0)
threading.Thread(target=linger).start()
ctypes.CDLL(None).syscall({SYS_EXIT.get(platform.machine(), 60)}, 0)
"""


def _leader_state(pid: int) -> str:
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]


@pytest.mark.skipif(
    platform.machine() not in SYS_EXIT, reason="needs a known SYS_exit number"
)
def test_a_child_whose_main_thread_exited_is_reaped_not_dropped(
    tmp_path: Path,
) -> None:
    component = processes.Component(
        name="lingerer",
        command=(sys.executable, "-c", CHILD),
        probe=lambda: NotYet("never"),
    )
    started = processes.start(
        component, log_dir=tmp_path / "logs", run_dir=tmp_path / "run"
    )
    pid = started.process.pid
    try:
        until(
            lambda: (
                "zombie leader"
                if _leader_state(pid) == "Z"
                else NotYet(_leader_state(pid))
            ),
            timeout=LEADER_TIMEOUT,
            interval=0.05,
            describe="the child's main thread to exit",
        )
        assert started.process.poll() is None, "a thread still runs: not reapable"
        processes.kill_all([pid], timeout=EXIT_TIMEOUT)
        assert started.process.returncode == 0, (
            "kill_all returned before the child was gone and reaped"
        )
        assert pid not in processes._OUTLIVING
    finally:
        if started.process.poll() is None:
            started.process.kill()
            started.process.wait()

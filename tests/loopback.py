"""A server process of the tests' own on a free 127.0.0.1 port, up only while needed.

Used by the S3 server (tests/reference_impl/artifacts) and the OCI registry
(tests/clusters/_registry.py) fixtures: start the built binary with its output in a
log, wait until its port accepts connections (failing at once, with the command and
the log's tail, if it exits first), and stop it afterwards.
"""

from __future__ import annotations

import socket
import subprocess
from collections.abc import Iterator
from collections.abc import Mapping
from contextlib import contextmanager
from pathlib import Path

import pytest

from plumbing import waiting

POLL_INTERVAL = 0.05
STOP_TIMEOUT = 10.0
"""Seconds a stopped server gets to exit after SIGTERM before SIGKILL."""


def free_port() -> int:
    """A port on 127.0.0.1 that nothing listens on now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def log_tail(path: Path, lines: int = 30) -> str:
    """The last `lines` lines of a log, for an error message."""
    return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])


@contextmanager
def serving(
    command: list[str],
    *,
    port: int,
    log_path: Path,
    env: Mapping[str, str],
    describe: str,
    ready_timeout: float,
) -> Iterator[subprocess.Popen[bytes]]:
    """Run `command` until the block ends, once it accepts connections on `port`."""
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            command, stdout=log, stderr=subprocess.STDOUT, env=dict(env)
        )
    try:

        def accepting() -> bool | waiting.NotYet:
            if process.poll() is not None:
                pytest.fail(
                    f"{describe} exited with {process.returncode} before it was "
                    f"ready: {' '.join(command)}\nlog {log_path}:\n{log_tail(log_path)}"
                )
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
            except OSError as exc:
                return waiting.NotYet(f"{exc!r}; log tail:\n{log_tail(log_path)}")
            return True

        waiting.until(
            accepting,
            timeout=ready_timeout,
            interval=POLL_INTERVAL,
            describe=f"{describe} on 127.0.0.1:{port}",
        )
        yield process
    finally:
        process.terminate()
        try:
            process.wait(timeout=STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=STOP_TIMEOUT)

"""Run commands with evidence on failure: the project's one subprocess runner.

`run` appends a command's output to a log file (long builds and installs);
`capture` returns a short command's stdout; `attempt` runs a best-effort
command or a probe and returns its result whatever the exit code. Both take argv lists, never shell
strings, and raise `error` (a `CommandFailed`, or a package's subclass of it)
carrying the command line, exit code, last output lines and log path, so a
failure is pasteable as it stands. A command that cannot start at all (not on
PATH) fails the same way, with exit code 127 as a shell would report, and one
that outlives its `timeout` with exit code -1 (it was killed; nothing exited).
"""

from __future__ import annotations

import contextlib
import logging
import os
import shlex
import subprocess
import threading
import time
from collections.abc import Callable
from collections.abc import Iterator
from collections.abc import Mapping
from collections.abc import Sequence
from pathlib import Path

from plumbing.errors import CommandFailed

logger = logging.getLogger(__name__)

NOT_FOUND = 127
"""Exit code reported for a command that could not start (as a shell does)."""

TIMED_OUT = -1
"""Exit code reported for a command killed because it outlived its timeout."""


def _text(data: bytes | str | None) -> str:
    if isinstance(data, bytes):
        return data.decode(errors="replace")
    return data or ""


def _environment(env: Mapping[str, str] | None) -> dict[str, str]:
    return {**os.environ, **(env or {})}


HEARTBEAT = 20.0
"""Seconds between "still running" lines for a long `run` (under 30 s, so no CI
log is silent for longer than that while a build or an install runs, #12)."""


def elapsed(seconds: float) -> str:
    """`1m05s` / `42s`: an elapsed time for progress lines."""
    minutes, secs = divmod(int(seconds), 60)
    return f"{minutes}m{secs:02d}s" if minutes else f"{secs}s"


@contextlib.contextmanager
def heartbeat(describe: str, *, every: float = HEARTBEAT) -> Iterator[None]:
    """Log "Still <describe> after ..." every `every` s while the block runs.

    For long steps that are not one command (a provider's step that waits on the
    cluster, say), so a CI log is never silent for as long as they take.
    """
    started = time.monotonic()
    done = threading.Event()

    def beat() -> None:
        while not done.wait(every):
            logger.info(
                "Still %s after %s.", describe, elapsed(time.monotonic() - started)
            )

    thread = threading.Thread(target=beat, name="wpc-step-heartbeat", daemon=True)
    thread.start()
    try:
        yield
    finally:
        done.set()
        thread.join()


def _last_line(log_path: Path) -> str:
    """The log's last non-empty line (what the command is doing), shortened."""
    try:
        with log_path.open("rb") as log:
            log.seek(max(0, log_path.stat().st_size - 4096))
            lines = log.read().decode(errors="replace").splitlines()
    except OSError:  # intentionally ignored: the line is a courtesy, not evidence
        return ""
    last = next((line.strip() for line in reversed(lines) if line.strip()), "")
    return last if len(last) <= 160 else last[:157] + "..."


def _short(command: Sequence[str]) -> str:
    text = shlex.join(command)
    return text if len(text) <= 120 else text[:117] + "..."


def run(
    command: Sequence[str],
    *,
    log_path: Path,
    env: Mapping[str, str] | None = None,
    cwd: Path | None = None,
    timeout: float | None = None,
    error: Callable[..., CommandFailed] = CommandFailed,
    heartbeat: float = HEARTBEAT,
) -> None:
    """Run `command`, appending its stdout and stderr to `log_path`.

    While it runs, logs "Still running ..." with the elapsed time and the log's
    last line every `heartbeat` seconds, so a long build shows it is alive.
    """
    log_path.parent.mkdir(parents=True, exist_ok=True)
    logger.info("Running %s (log: %s).", shlex.join(command), log_path)
    started = time.monotonic()
    with log_path.open("ab") as log:
        log.write(f"\n$ {shlex.join(command)}\n".encode())
        log.flush()
        try:
            proc = subprocess.Popen(  # an argv list, never a shell
                list(command),
                stdout=log,
                stderr=subprocess.STDOUT,
                env=_environment(env),
                cwd=cwd,
            )
        except OSError as exc:  # e.g. `go` is not on PATH
            log.write(f"cannot start: {exc}\n".encode())
            returncode = NOT_FOUND
        else:
            returncode = _wait(
                proc,
                command=command,
                log_path=log_path,
                timeout=timeout,
                heartbeat=heartbeat,
                started=started,
            )
            if returncode == TIMED_OUT:
                log.write(f"killed: still running after {timeout:g} s\n".encode())
    if returncode != 0:
        raise error(command=command, returncode=returncode, log_path=log_path)


def _wait(
    proc: subprocess.Popen[bytes],
    *,
    command: Sequence[str],
    log_path: Path,
    timeout: float | None,
    heartbeat: float,
    started: float,
) -> int:
    """Wait for `proc`, saying it is alive every `heartbeat` s; TIMED_OUT kills it."""
    while True:
        spent = time.monotonic() - started
        wait = heartbeat if timeout is None else min(heartbeat, timeout - spent)
        try:
            return proc.wait(timeout=max(wait, 0.0))
        except subprocess.TimeoutExpired:
            spent = time.monotonic() - started
            if timeout is not None and spent >= timeout:
                proc.kill()
                proc.wait()
                return TIMED_OUT
            logger.info(
                "Still running %s after %s: %s",
                _short(command),
                elapsed(spent),
                _last_line(log_path) or "(no output yet)",
            )


def _captured(
    command: Sequence[str],
    *,
    env: Mapping[str, str] | None,
    cwd: Path | None,
    timeout: float | None,
    stdin: str | None,
) -> subprocess.CompletedProcess[str]:
    """Run a short command to its end, its output captured as text, whatever its code.

    The one spelling of a captured run for `capture` and `attempt`; each turns
    OSError (cannot start) and TimeoutExpired into its own answer.
    """
    return subprocess.run(  # an argv list, never a shell
        list(command),
        capture_output=True,
        text=True,
        input=stdin,
        env=_environment(env),
        cwd=cwd,
        timeout=timeout,
        check=False,
    )


def capture(
    command: Sequence[str],
    *,
    env: Mapping[str, str] | None = None,
    cwd: Path | None = None,
    timeout: float | None = None,
    stdin: str | None = None,
    error: Callable[..., CommandFailed] = CommandFailed,
) -> str:
    """Run a short command and return its stdout."""
    try:
        proc = _captured(command, env=env, cwd=cwd, timeout=timeout, stdin=stdin)
    except OSError as exc:
        raise error(
            command=command, returncode=NOT_FOUND, output=f"cannot start: {exc}"
        ) from exc
    except subprocess.TimeoutExpired as exc:
        said = _text(exc.stdout) + _text(exc.stderr)
        raise error(
            command=command,
            returncode=TIMED_OUT,
            output=f"{said[-8000:]}\nkilled: still running after {timeout:g} s",
        ) from exc
    if proc.returncode != 0:
        raise error(
            command=command,
            returncode=proc.returncode,
            output=(proc.stdout + proc.stderr)[-8000:],
        )
    return proc.stdout


def attempt(
    command: Sequence[str],
    *,
    env: Mapping[str, str] | None = None,
    timeout: float | None = None,
    stdin: str | None = None,
) -> subprocess.CompletedProcess[str]:
    """Run a command whose failure is an answer, not an error (probes, clean-ups).

    A command that cannot start comes back with exit code 127 and the reason on
    stderr, so callers need one check, not two.
    """
    try:
        return _captured(command, env=env, cwd=None, timeout=timeout, stdin=stdin)
    except OSError as exc:
        return subprocess.CompletedProcess(
            list(command), NOT_FOUND, "", f"cannot start: {exc}"
        )

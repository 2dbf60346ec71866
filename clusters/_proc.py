"""Run commands with their output in a log file and evidence on failure."""

from __future__ import annotations

import logging
import os
import subprocess
from collections.abc import Mapping
from collections.abc import Sequence
from pathlib import Path

from clusters.errors import RunError

logger = logging.getLogger(__name__)


def run(
    command: Sequence[str],
    *,
    log_path: Path,
    env: Mapping[str, str] | None = None,
    cwd: Path | None = None,
    timeout: float | None = None,
) -> None:
    """Run `command`, appending stdout and stderr to `log_path`.

    Raises RunError (command line, exit code, last log lines, log path) when
    the command exits non-zero, so a failure is pasteable as it stands.
    """
    log_path.parent.mkdir(parents=True, exist_ok=True)
    full_env = dict(os.environ)
    if env:
        full_env.update(env)
    logger.info("Running %s (log: %s).", " ".join(command), log_path)
    with log_path.open("ab") as log:
        log.write(f"\n$ {' '.join(command)}\n".encode())
        log.flush()
        proc = subprocess.run(
            list(command),
            stdout=log,
            stderr=subprocess.STDOUT,
            env=full_env,
            cwd=cwd,
            timeout=timeout,
            check=False,
        )
    if proc.returncode != 0:
        raise RunError(command=command, returncode=proc.returncode, log_path=log_path)


def capture(command: Sequence[str], *, env: Mapping[str, str] | None = None) -> str:
    """Run a short command and return its stdout; RunError on failure."""
    full_env = dict(os.environ)
    if env:
        full_env.update(env)
    proc = subprocess.run(
        list(command), capture_output=True, text=True, env=full_env, check=False
    )
    if proc.returncode != 0:
        raise RunError(
            command=command,
            returncode=proc.returncode,
            output=(proc.stdout + proc.stderr)[-4000:],
        )
    return proc.stdout

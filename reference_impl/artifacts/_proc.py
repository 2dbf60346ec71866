"""Run a build command with its output in a log file and evidence on failure."""

from __future__ import annotations

import logging
import os
import shlex
import subprocess
from collections.abc import Mapping
from collections.abc import Sequence
from pathlib import Path

from reference_impl.artifacts.errors import BuildError

logger = logging.getLogger(__name__)

TAIL_LINES = 50
"""How many log lines a BuildError carries."""


def tail(path: Path, lines: int = TAIL_LINES) -> list[str]:
    """Return the last `lines` lines of a log file (empty if it is missing)."""
    try:
        text = path.read_text(errors="replace")
    except FileNotFoundError:
        return []
    return text.splitlines()[-lines:]


def run(
    command: Sequence[str],
    *,
    log_path: Path,
    env: Mapping[str, str] | None = None,
    cwd: Path | None = None,
) -> None:
    """Run `command`, appending its stdout and stderr to `log_path`.

    Raises BuildError (command line, exit code, last log lines, log path) if
    the command exits non-zero or cannot be started at all.
    """
    log_path.parent.mkdir(parents=True, exist_ok=True)
    full_env = {**os.environ, **(env or {})}
    logger.info("Running %s (log: %s).", shlex.join(command), log_path)
    with log_path.open("ab") as log:
        log.write(f"\n$ {shlex.join(command)}\n".encode())
        log.flush()
        try:
            proc = subprocess.run(  # an argv list, never a shell
                list(command),
                stdout=log,
                stderr=subprocess.STDOUT,
                env=full_env,
                cwd=cwd,
                check=False,
            )
        except OSError as exc:  # e.g. `go` is not on PATH
            log.write(f"cannot start: {exc}\n".encode())
            log.flush()
            returncode = 127
        else:
            returncode = proc.returncode
    if returncode != 0:
        raise BuildError(
            command=command,
            returncode=returncode,
            log_tail=tail(log_path),
            log_path=log_path,
        )

"""The init-less status marker: its format, and writing it whole.

Format and semantics are documented in `protocol`. Writers go through
`write_status`, readers through `read_status`; nothing else touches the file.
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass
from pathlib import Path

logger = logging.getLogger(__name__)

RUNNING = "RUNNING"
READY = "READY"
FAILED = "FAILED"
TOKENS = frozenset({RUNNING, READY, FAILED})


def encode(token: str, message: str = "") -> bytes:
    r"""Return the marker body: `RUNNING\n`, `READY\n`, `FAILED\n<msg>` (`FAILED` alone if no msg)."""
    if token == FAILED:
        return f"{FAILED}\n{message}".encode() if message else FAILED.encode()
    return f"{token}\n".encode()


@dataclass(frozen=True)
class StatusReading:
    """One read of the marker: token (None when partial or unknown), message, mtime."""

    token: str | None
    message: str
    mtime: float


def parse(body: bytes) -> tuple[str | None, str]:
    """Split a body into (token, message); the token is None unless it is a known one."""
    first, _, rest = body.decode(errors="replace").partition("\n")
    token = first.strip()
    return (token if token in TOKENS else None), rest.strip()


def read_status(path: Path) -> StatusReading | None:
    """Read the marker; None when it does not exist (yet).

    A read that loses the race with a rename (stat succeeded, open did not) is
    reported as a partial body with the stat's mtime, so the caller keeps waiting.
    """
    try:
        mtime = path.stat().st_mtime
    except FileNotFoundError:
        return None
    try:
        body = path.read_bytes()
    except FileNotFoundError:
        return StatusReading(token=None, message="", mtime=mtime)
    token, message = parse(body)
    return StatusReading(token=token, message=message, mtime=mtime)


def write_status(
    *, path: Path, tmp_path: Path, body: bytes, atomic: bool = True
) -> None:
    """Write the marker so that a reader only ever sees a whole body.

    The body goes to `tmp_path` (0644) and is renamed over `path`; no fsync, as
    upstream, since readers are on the same node and the volume is an emptyDir.
    `atomic=False` is the `no-atomic-write` fault: truncate in place and write
    in two halves, so a racing reader can see an empty or partial body.
    """
    if not atomic:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        try:
            half = max(1, len(body) // 2)
            _write_all(fd, body[:half])
            _write_all(fd, body[half:])
        finally:
            os.close(fd)
        return
    fd = os.open(tmp_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    try:
        _write_all(fd, body)
    finally:
        os.close(fd)
    os.replace(tmp_path, path)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]

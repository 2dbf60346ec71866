"""The user command, and the markers it prints about its own start and end.

The main container runs `sh -c SCRIPT`. The script's first instruction is the
shell builtin `read`, which copies `/proc/uptime` (the node's boot clock,
10 ms resolution) into a variable without forking: that is "main's first
instruction". Only then does it fork `date +%s` (busybox `date` has no `%N`)
for the clock cross-check, and `stat` of the supervisor's status marker,
whose modification time is when `READY` was written (WPC-HANDSHAKE-002: every
write renames a fresh file onto it; -003: nothing changes it after READY); in
a pod without a supervisor there is no marker and it prints `none`. Its last
instruction reads the boot clock again, so "main exit" has the same 10 ms
resolution::

    wpc-bench-start uptime=4059.18 wall=1795318924 status_mtime=2026-11-22 03:42:04.123456789 +0000
    wpc-bench-end uptime=4059.21
"""

from __future__ import annotations

import datetime
import re
from dataclasses import dataclass

from conformance import contract
from conformance.errors import MarkerError

PREFIX = "wpc-bench-start"
END_PREFIX = "wpc-bench-end"
SCRIPT = (
    "read -r WPC_UP WPC_IDLE </proc/uptime; "
    f"WPC_READY=$(stat -c %y {contract.STATUS_MARKER} 2>/dev/null || echo none); "
    f'echo "{PREFIX} uptime=$WPC_UP wall=$(date +%s) status_mtime=$WPC_READY"; '
    "read -r WPC_END WPC_IDLE </proc/uptime; "
    f'echo "{END_PREFIX} uptime=$WPC_END"'
)
"""The user command; `read` comes first so nothing runs before the clock is read."""

_START = re.compile(
    rf"^{PREFIX} uptime=(?P<uptime>\d+(?:\.\d+)?) wall=(?P<wall>\d+)"
    r" status_mtime=(?P<mtime>.*?)\s*$",
    re.M,
)
_END = re.compile(rf"^{END_PREFIX} uptime=(?P<uptime>\d+(?:\.\d+)?)\s*$", re.M)


@dataclass(frozen=True)
class StartMarker:
    """What the user command recorded at its first and last instructions."""

    uptime: float
    """Node boot clock (CLOCK_BOOTTIME) when the command started, seconds (10 ms)."""

    wall: int
    """Container wall clock a fork later, whole seconds; only for the clock check."""

    ready_wall: float | None
    """Wall-clock mtime of the status marker (when READY was written); None without one."""

    end_uptime: float
    """Node boot clock at the command's last instruction, just before it exits."""


def stat_time(text: str) -> float:
    """Epoch seconds of busybox/coreutils `stat -c %y` output (ns cut to us)."""
    day, clock, zone = text.strip().split(" ")
    whole, _, fraction = clock.partition(".")
    moment = datetime.datetime.strptime(
        f"{day} {whole}.{(fraction or '0')[:6]} {zone}", "%Y-%m-%d %H:%M:%S.%f %z"
    )
    return moment.timestamp()


def _one(pattern: re.Pattern[str], name: str, log: str) -> re.Match[str]:
    found = list(pattern.finditer(log))
    if len(found) != 1:
        raise MarkerError(
            f"expected exactly one {name!r} line, found {len(found)}; "
            f"log tail: {log[-500:]!r}"
        )
    return found[0]


def parse(log: str) -> StartMarker:
    """Return the markers of a main container log; MarkerError otherwise."""
    start = _one(_START, PREFIX, log)
    end = _one(_END, END_PREFIX, log)
    mtime = start["mtime"]
    try:
        ready = None if mtime == "none" else stat_time(mtime)
    except ValueError as exc:
        raise MarkerError(
            f"status_mtime {mtime!r} is not `stat -c %y` output: {exc}"
        ) from exc
    return StartMarker(
        uptime=float(start["uptime"]),
        wall=int(start["wall"]),
        ready_wall=ready,
        end_uptime=float(end["uptime"]),
    )

"""The user command and the start marker it prints.

The main container runs `sh -c SCRIPT`. The script's first instruction is the
shell builtin `read`, which copies `/proc/uptime` (the node's boot clock, 10 ms
resolution) into a variable without forking; only then does it fork `date +%s`
(busybox `date` has no `%N`) for the clock cross-check, and print one line::

    wpc-bench-start uptime=4059.18 wall=1795318924
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from reference_impl.bench.errors import MarkerError

PREFIX = "wpc-bench-start"
SCRIPT = (
    "read -r WPC_UP WPC_IDLE </proc/uptime; "
    f'echo "{PREFIX} uptime=$WPC_UP wall=$(date +%s)"'
)
"""The user command; `read` comes first so nothing runs before the clock is read."""

_LINE = re.compile(
    rf"^{PREFIX} uptime=(?P<uptime>\d+(?:\.\d+)?) wall=(?P<wall>\d+)\s*$", re.M
)


@dataclass(frozen=True)
class StartMarker:
    """What the user command recorded at its first instruction."""

    uptime: float
    """Node boot clock (CLOCK_BOOTTIME) when the command started, seconds (10 ms)."""

    wall: int
    """Container wall clock a fork later, whole seconds; only for the clock check."""


def parse(log: str) -> StartMarker:
    """Return the one start marker in a main container log; MarkerError otherwise."""
    found = list(_LINE.finditer(log))
    if len(found) != 1:
        raise MarkerError(
            f"expected exactly one {PREFIX!r} line, found {len(found)}; "
            f"log tail: {log[-500:]!r}"
        )
    match = found[0]
    return StartMarker(uptime=float(match["uptime"]), wall=int(match["wall"]))

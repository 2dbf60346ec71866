"""The host's clocks, and the check that a container shares them.

The user command reads `/proc/uptime`, which is CLOCK_BOOTTIME in centiseconds.
Containers get no time namespace from containerd, so inside a pod it is the
node kernel's boot clock; when the node is this host, it is the clock
`boottime()` reads here, and a watch event stamped with `boottime()` can be
subtracted from it directly. `boot_epoch()` maps boot-clock readings to wall
time for the cross-checks against the API's second-resolution timestamps.
"""

from __future__ import annotations

import time

CLOCK_SKEW_LOW = -1.5
"""Lowest acceptable `(container date +%s) - uptime - host boot epoch`, seconds.
`date +%s` truncates to the second, so the true value can be down to -1."""

CLOCK_SKEW_HIGH = 5.0
"""Highest acceptable skew: `date` runs after `read`, a fork later, on a loaded host."""


def boottime() -> float:
    """Seconds since boot on CLOCK_BOOTTIME, the clock behind `/proc/uptime`."""
    return time.clock_gettime(time.CLOCK_BOOTTIME)


def boot_epoch(samples: int = 5) -> float:
    """Wall-clock time of boot (`time.time() - boottime()`), from the tightest sample."""
    readings = []
    for _ in range(max(1, samples)):
        before = boottime()
        wall = time.time()
        after = boottime()
        readings.append((after - before, wall - (before + after) / 2))
    return min(readings)[1]


def skew_ok(skew: float) -> bool:
    """Whether a container's boot-epoch skew means it shares this host's clock."""
    return CLOCK_SKEW_LOW <= skew <= CLOCK_SKEW_HIGH

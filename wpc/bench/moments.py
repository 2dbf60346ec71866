"""When a milestone happened: the host's clocks, API timestamps, and both combined.

The user command reads `/proc/uptime`, which is CLOCK_BOOTTIME in centiseconds.
Containers get no time namespace from containerd, so inside a pod it is the
node kernel's boot clock; when the node is this host, it is the clock
`boottime()` reads here, and a watch event stamped with `boottime()` can be
subtracted from it directly. `boot_epoch()` maps boot-clock readings to wall
time, to compare them with the API's timestamps. `skew_ok` checks that a
container shares this host's clock.

The API reports every milestone of a pod (`creationTimestamp`, a condition's
`lastTransitionTime`, a container's `startedAt`/`finishedAt`, a node's
`finishedAt`) truncated to the whole second, so on its own it places the
milestone in `[stamp, stamp + 1)`. A watch on this host delivers the object
that first shows it a little *after* it happened, with sub-millisecond
resolution. Together they bound it to `[stamp, min(stamp + 1, seen)]`, and
which end to take depends on who wrote the stamp:

- `Moment.latest()`, the upper bound, for stamps the API server writes in the
  very request the watch delivers (creation, the binding's PodScheduled): the
  watch lags by one round trip (tens of ms), so the bound is tight;
- `Moment.estimate()`, the interval's midpoint, for the kubelet's stamps (its
  conditions, container `startedAt`/`finishedAt`): they reach the API through
  its status manager after its next relist, up to a second or more later on a
  loaded node, so the truth can lie anywhere in the interval; the midpoint is
  off by at most half a second, about zero on average.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from datetime import datetime

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


def epoch(stamp: str) -> float:
    """Seconds since the epoch of an API timestamp (second or sub-second resolution)."""
    text = stamp.strip()
    if text.endswith(("Z", "z")):
        text = text[:-1] + "+00:00"
    moment = datetime.fromisoformat(text)
    if moment.tzinfo is None:
        raise ValueError(f"timestamp without a time zone: {stamp!r}")
    return moment.timestamp()


API_RESOLUTION = 1.0
"""The API truncates its timestamps to whole seconds."""


@dataclass(frozen=True)
class Moment:
    """What the sources say about one milestone, in wall-clock epoch seconds."""

    api: float | None
    """The API's timestamp (truncated to the second), if it reports one."""
    seen: float | None
    """When a watch on this host first delivered an object showing it."""

    def _upper(self, api: float) -> float:
        upper = api + API_RESOLUTION
        if self.seen is not None:
            # A watch cannot show a milestone before it happened; a `seen`
            # before `api` only means the second boundary fell in between.
            upper = max(api, min(upper, self.seen))
        return upper

    def estimate(self) -> float | None:
        """Midpoint of the interval both sources allow (see the module docstring)."""
        if self.api is None:
            return self.seen
        return (self.api + self._upper(self.api)) / 2

    def latest(self) -> float | None:
        """The latest moment both sources allow; the API's mid-second without a watch."""
        if self.api is None:
            return self.seen
        if self.seen is None:
            return self.api + API_RESOLUTION / 2
        return self._upper(self.api)


def later(*moments: float | None) -> float | None:
    """The latest of the known moments (None if none is known)."""
    known = [m for m in moments if m is not None]
    return max(known) if known else None

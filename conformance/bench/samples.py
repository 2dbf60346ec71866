"""One workflow's measurements, computed from what the cluster reported.

Times come from three clocks, all on this host when the node is this host:

- the boot clock (CLOCK_BOOTTIME, `/proc/uptime`): when the benchmark submitted
  the workflow, first saw its pod in a watch and saw it finish, and when the
  user command started (10 ms resolution);
- the wall clock: the same watch moment, for comparison with
- the API's timestamps: pod `creationTimestamp` and the main container's
  `startedAt`, both truncated to whole seconds by the API.

`pod_startup` (first seen -> user command started) is the headline figure; the
second-resolution differences are cross-checks.
"""

from __future__ import annotations

from dataclasses import asdict
from dataclasses import dataclass
from typing import Any

from reference_impl.bench import clocks
from reference_impl.bench import markers
from reference_impl.bench import timestamps
from reference_impl.bench.errors import ClockError

Json = dict[str, Any]


@dataclass(frozen=True)
class Observed:
    """What the benchmark itself saw of one workflow, on this host's clocks."""

    workflow: str
    submitted_boot: float
    """Boot clock just before the create request was sent."""
    pod_seen_boot: float | None
    """Boot clock when a watch event first carried the workflow's pod."""
    pod_seen_wall: float | None
    """Wall clock at the same moment."""
    finished_boot: float | None
    """Boot clock when a watch event first carried the finished phase."""
    phase: str
    """Last observed workflow phase."""


@dataclass(frozen=True)
class Sample:
    """One workflow's figures, in seconds; None where a source was missing."""

    workflow: str
    pod: str | None
    phase: str
    pod_startup: float | None
    """Pod first seen by the watch -> user command started (boot clock, +-10 ms)."""
    created_to_user: float | None
    """Pod creationTimestamp (truncated) -> user command started."""
    created_to_started: float | None
    """Pod creationTimestamp -> main container startedAt (both whole seconds)."""
    started_to_user: float | None
    """Main container startedAt (truncated) -> user command started."""
    seen_after_created: float | None
    """Watch delivery time -> creationTimestamp; sanity check, expect 0 <= x < 1+lag."""
    submit_to_pod_seen: float | None
    """Create request sent -> pod first seen (controller reaction + pod creation)."""
    workflow_duration: float | None
    """Create request sent -> finished phase seen."""
    clock_skew: float | None
    """Container `date +%s` - uptime - host boot epoch; see `clocks.skew_ok`."""

    def as_json(self) -> dict[str, Any]:
        """The sample as a JSON object."""
        return asdict(self)


def main_started_at(pod: Json) -> str | None:
    """The main container's `startedAt` (running or terminated), if reported."""
    for status in (pod.get("status") or {}).get("containerStatuses") or []:
        if status.get("name") != "main":
            continue
        state = status.get("state") or {}
        for key in ("running", "terminated"):
            started = (state.get(key) or {}).get("startedAt")
            if started:
                return str(started)
    return None


def _minus(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None else a - b


def measure(
    observed: Observed,
    *,
    pod: Json | None,
    log: str | None,
    boot_epoch: float,
) -> Sample:
    """Combine the benchmark's observations with the pod and its main log.

    Raises MarkerError when a log is given without one start marker, and
    ClockError when the container's clock is not this host's.
    """
    marker = markers.parse(log) if log is not None else None
    user_boot = marker.uptime if marker else None
    user_wall = user_boot + boot_epoch if user_boot is not None else None
    skew = marker.wall - marker.uptime - boot_epoch if marker else None
    if skew is not None and not clocks.skew_ok(skew):
        raise ClockError(
            f"[{observed.workflow}] the container's boot epoch differs from this "
            f"host's by {skew:+.2f}s (allowed {clocks.CLOCK_SKEW_LOW}.."
            f"{clocks.CLOCK_SKEW_HIGH}); /proc/uptime in the pod is not this host's "
            "boot clock, so the node is another machine and startup cannot be "
            "measured this way"
        )
    metadata = (pod or {}).get("metadata") or {}
    created = metadata.get("creationTimestamp")
    created_wall = timestamps.epoch(created) if created else None
    started = main_started_at(pod or {})
    started_wall = timestamps.epoch(started) if started else None
    return Sample(
        workflow=observed.workflow,
        pod=metadata.get("name"),
        phase=observed.phase,
        pod_startup=_minus(user_boot, observed.pod_seen_boot),
        created_to_user=_minus(user_wall, created_wall),
        created_to_started=_minus(started_wall, created_wall),
        started_to_user=_minus(user_wall, started_wall),
        seen_after_created=_minus(observed.pod_seen_wall, created_wall),
        submit_to_pod_seen=_minus(observed.pod_seen_boot, observed.submitted_boot),
        workflow_duration=_minus(observed.finished_boot, observed.submitted_boot),
        clock_skew=skew,
    )

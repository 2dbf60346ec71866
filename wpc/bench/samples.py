"""One workflow's milestones and startup phases, from what the cluster reported.

Every milestone becomes a wall-clock moment on this host (see `moments` for
how an API timestamp and a watch arrival are combined, and
`workloads.WRITTEN_IN_THE_WATCHED_REQUEST` for which end each one takes):

=====================  ======================================================
created                pod `creationTimestamp` / the pod's first watch event
scheduled              `PodScheduled` condition
sandbox_ready          `PodReadyToStartContainers` condition (sandbox, network)
initialized            `Initialized` condition (legacy: the `init` container
                       staged argoexec; a pod without init containers is
                       initialized from the start)
aux_started            `startedAt` of `wait` or `supervisor`
ready                  the status marker's mtime, READY's write (initless only)
first_instruction      main's first instruction (boot-clock marker, 10 ms)
main_exit              main's last instruction (boot-clock marker, 10 ms)
node_completed         the workflow watch event that first shows the pod node
                       done (the node's `finishedAt` is the pod's last container
                       exit in Argo, so it only stands in when no event showed it)
=====================  ======================================================

The phases are the gaps between consecutive milestones, so they add up to
created -> node completed. "Sandbox and image volume ready" ends when regular
containers may start: the later of `sandbox_ready` and `initialized`. The
kubelet mounts an image volume (the initless executor binary) after the
sandbox and before the first container, and reports nothing for it, so in the
init-less layout that mount falls into "aux container started".
"""

from __future__ import annotations

from dataclasses import asdict
from dataclasses import dataclass
from dataclasses import field
from typing import Any

from conformance.errors import ClockError
from wpc.bench import markers
from wpc.bench import moments
from wpc.bench import workloads

Json = dict[str, Any]

PHASES = {
    "scheduled": ("created", "scheduled"),
    "sandbox_ready": ("scheduled", "containers_may_start"),
    "aux_started": ("containers_may_start", "aux_started"),
    "handshake_ready": ("aux_started", "ready"),
    "first_instruction": ("before_main", "first_instruction"),
    "user_command": ("first_instruction", "main_exit"),
    "node_completed": ("main_exit", "node_completed"),
}
"""Phase -> (from milestone, to milestone). `before_main` is `ready` where the
layout has a handshake, `aux_started` otherwise."""

PHASE_TITLES = {
    "scheduled": "scheduled",
    "sandbox_ready": "sandbox + image volume ready",
    "aux_started": "aux container started",
    "handshake_ready": "handshake READY",
    "first_instruction": "main's first instruction",
    "user_command": "user command ran",
    "node_completed": "main exit -> node completed",
}
"""How the table names each phase (issue #10's words)."""


@dataclass(frozen=True)
class Observed:
    """What the benchmark itself saw of one workflow, on this host's boot clock."""

    workflow: str
    submitted_boot: float
    """Boot clock just before the create request was sent."""
    seen_boot: dict[str, float]
    """Pod milestone (and `node_completed`) -> boot clock of the first watch event
    showing it."""
    stamps: dict[str, str]
    """Pod milestone -> its API timestamp in that first event."""
    finished_boot: float | None
    """Boot clock when a watch event first carried the workflow's finished phase."""
    phase: str
    """Last observed workflow phase."""


@dataclass(frozen=True)
class Sample:
    """One workflow's figures, in seconds; None where a source was missing."""

    workflow: str
    pod: str | None
    phase: str
    milestones: dict[str, float | None] = field(default_factory=dict)
    """Milestone -> seconds after the pod was created."""
    phases: dict[str, float | None] = field(default_factory=dict)
    """Phase (`PHASES`) -> its duration."""
    sources: dict[str, dict[str, float | None]] = field(default_factory=dict)
    """Milestone -> its API timestamp (`api`, whole second) and first watch arrival
    (`seen`), seconds after the pod was created: the raw data behind `milestones`."""
    pod_startup: float | None = None
    """Pod created -> main's first instruction: the headline figure."""
    submit_to_pod: float | None = None
    """Create request sent -> pod created (controller reaction + pod creation)."""
    workflow_duration: float | None = None
    """Create request sent -> finished workflow phase seen."""
    main_exit_check: float | None = None
    """Main's `finishedAt` (estimated) - its last instruction: the emissary's exit."""
    clock_skew: float | None = None
    """Container `date +%s` - uptime - host boot epoch; see `moments.skew_ok`."""

    def as_json(self) -> dict[str, Any]:
        """The sample as plain data."""
        return asdict(self)


def _minus(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None else a - b


def _moment(
    stamp: str | None, seen_boot: float | None, boot_epoch: float
) -> moments.Moment:
    return moments.Moment(
        api=moments.epoch(stamp) if stamp else None,
        seen=None if seen_boot is None else seen_boot + boot_epoch,
    )


def _check_clock(workflow: str, skew: float) -> None:
    if not moments.skew_ok(skew):
        raise ClockError(
            f"[{workflow}] the container's boot epoch differs from this "
            f"host's by {skew:+.2f}s (allowed {moments.CLOCK_SKEW_LOW}.."
            f"{moments.CLOCK_SKEW_HIGH}); /proc/uptime in the pod is not this host's "
            "boot clock, so the node is another machine and startup cannot be "
            "measured this way"
        )


def milestones(
    observed: Observed,
    *,
    pod: Json,
    workflow: Json | None,
    marker: markers.StartMarker | None,
    boot_epoch: float,
) -> dict[str, float | None]:
    """Every milestone as a wall-clock epoch moment (None where unknown)."""
    seen = observed.seen_boot
    found: dict[str, float | None] = {}
    for name, stamp, boot in _raw(observed, pod=pod, workflow=workflow):
        if name == "node_completed":
            continue
        moment = _moment(stamp, boot, boot_epoch)
        tight = name in workloads.WRITTEN_IN_THE_WATCHED_REQUEST
        found[name] = moment.latest() if tight else moment.estimate()
    found["containers_may_start"] = moments.later(
        found["sandbox_ready"], found["initialized"]
    )
    found["ready"] = marker.ready_wall if marker else None
    found["before_main"] = found["ready"] or found["aux_started"]
    found["first_instruction"] = marker.uptime + boot_epoch if marker else None
    found["main_exit"] = marker.end_uptime + boot_epoch if marker else None
    # The node is completed when the controller writes it so: the workflow event
    # that first shows it, one round trip late. Its `finishedAt` is no help:
    # Argo sets it to the pod's last container exit, before the controller acts.
    completed = seen.get("node_completed")
    found["node_completed"] = (
        completed + boot_epoch
        if completed is not None
        else _moment(found_stamp(workflow), None, boot_epoch).latest()
    )
    return found


def _raw(
    observed: Observed, *, pod: Json, workflow: Json | None
) -> list[tuple[str, str | None, float | None]]:
    seen = observed.seen_boot
    raw = [
        (name, observed.stamps.get(name) or read(pod), seen.get(name))
        for name, read in workloads.POD_MILESTONES.items()
    ]
    node = ("node_completed", found_stamp(workflow), seen.get("node_completed"))
    return [*raw, node]


def found_stamp(workflow: Json | None) -> str | None:
    """The pod node's `finishedAt`, if the workflow shows it done."""
    return workloads.node_finished_at(workflow) if workflow else None


def measure(
    observed: Observed,
    *,
    pod: Json,
    workflow: Json | None,
    log: str,
    boot_epoch: float,
) -> Sample:
    """Combine the benchmark's observations with the pod, its workflow and main's log.

    Raises MarkerError when the log lacks the markers, and ClockError when the
    container's clock is not this host's.
    """
    marker = markers.parse(log)
    skew = marker.wall - marker.uptime - boot_epoch
    _check_clock(observed.workflow, skew)
    found = milestones(
        observed, pod=pod, workflow=workflow, marker=marker, boot_epoch=boot_epoch
    )
    created = found["created"]
    sources = {
        name: {
            "api": _minus(moments.epoch(stamp) if stamp else None, created),
            "seen": _minus(None if boot is None else boot + boot_epoch, created),
        }
        for name, stamp, boot in _raw(observed, pod=pod, workflow=workflow)
    }
    phases = {
        name: _minus(found[end], found[start]) for name, (start, end) in PHASES.items()
    }
    finished = _moment(
        workloads.finished_at(pod, "main"),
        observed.seen_boot.get("main_finished"),
        boot_epoch,
    ).estimate()
    submitted = observed.submitted_boot + boot_epoch
    return Sample(
        workflow=observed.workflow,
        pod=(pod.get("metadata") or {}).get("name"),
        phase=observed.phase,
        milestones={
            name: _minus(value, created)
            for name, value in found.items()
            if name not in {"before_main", "containers_may_start"}
        },
        phases=phases,
        sources=sources,
        pod_startup=_minus(found["first_instruction"], created),
        submit_to_pod=_minus(created, submitted),
        workflow_duration=_minus(observed.finished_boot, observed.submitted_boot),
        main_exit_check=_minus(finished, found["main_exit"]),
        clock_skew=skew,
    )
